"""`selfrag eval` as a user runs it, on a scripted Self-RAG model: every method and the sweeps write their
files, and user mistakes print one line and exit 2 before any model loads."""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from selfrag_langchain.cli import main
from selfrag_langchain.eval import session as eval_session
from selfrag_langchain.judging import InlineReflector
from tests.fakes.eiffel import EIFFEL, scripted
from tests.fakes.scripted_llm import ScriptedSelfRAGLLM

CTXS = [{"title": "Louvre", "text": "The Louvre is a museum in Paris."},
        {"title": "Eiffel Tower", "text": "The Eiffel Tower was built by Gustave Eiffel's company."}]


@pytest.fixture
def popqa_file(tmp_path: Path) -> Path:
    asked = ("Who built the Eiffel Tower?", "Which company built the Eiffel Tower?", "Who built Paris's Eiffel Tower?")
    rows = [{"id": i, "question": question, "answers": ["Gustave Eiffel"], "ctxs": CTXS}
            for i, question in enumerate(asked)]
    path = tmp_path / "popqa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> ScriptedSelfRAGLLM:
    model = scripted(EIFFEL)
    monkeypatch.setattr(eval_session, "build_generator", lambda args: model)
    monkeypatch.setattr(eval_session, "build_reflector", lambda args, generator: InlineReflector(generator))
    return model


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_method_writes_its_lines_and_summary(popqa_file: Path, tmp_path: Path, llm: ScriptedSelfRAGLLM,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code = main(["eval", str(popqa_file), "--task", "popqa", "--methods", "all", "--reflector", "inline",
                 "--out", str(out), "--no-progress", "--k", "2"])
    assert code == 0
    printed = capsys.readouterr().out
    for method in ("selfrag", "no_retrieval", "rag_top1", "rag_topk", "rag_top1_quoted"):
        summary = json.loads((out / f"{method}.summary.json").read_text())
        assert summary["answered"] == 3 and summary["complete"] is True
        assert summary["settings"]["method"] == method and summary["settings"]["task"] == "popqa"
        assert len(read_lines(out / f"{method}.jsonl")) == 3
        assert f"\n{method:<16}" in printed
    selfrag = read_lines(out / "selfrag.jsonl")[0]
    # Quoted (the pipeline's default): the passage's sentence that states "Gustave Eiffel's company built it."
    assert selfrag["prediction"] == "The Eiffel Tower was built by Gustave Eiffel's company." and selfrag["correct"]
    # Its passage's readings settled the quote before writing (settle_quotes): judged by its IsRel and its quote.
    eiffel = selfrag["trace"]["branches"][1]
    assert selfrag["retrieved"] is True and eiffel["distributions"]["IsRel"] and eiffel["written"]
    assert eiffel["raw_generation"] == "" and any("(settle_quotes)" in note for note in eiffel["notes"])
    no_retrieval = read_lines(out / "no_retrieval.jsonl")[0]
    assert no_retrieval["prediction"] == "Nobody knows." and no_retrieval["retrieved"] is False
    top1 = read_lines(out / "rag_top1.jsonl")[0]
    assert [p["title"] for p in top1["trace"]["passages"]] == ["Louvre"]
    assert top1["correct"] is False  # the top passage is the wrong one
    quoted = read_lines(out / "rag_top1_quoted.jsonl")[0]
    # The same generation, answered with the top passage's sentence that states it.
    assert quoted["trace"]["generation"] == top1["prediction"] == "Louis XIV built it."
    assert quoted["prediction"] == quoted["trace"]["quote"] == "The Louvre is a museum in Paris."
    topk = read_lines(out / "rag_topk.jsonl")[0]
    assert [p["title"] for p in topk["trace"]["passages"]] == ["Louvre", "Eiffel Tower"]
    assert "Louvre is a museum" in topk["trace"]["prompt"] and "Gustave Eiffel's company." in topk["trace"]["prompt"]

    calls = llm.calls
    assert main(["eval", str(popqa_file), "--task", "popqa", "--methods", "all", "--reflector", "inline",
                 "--out", str(out), "--no-progress", "--k", "2"]) == 0
    assert llm.calls == calls  # everything was done: nothing is generated again


def test_sweeps_reuse_the_selfrag_run_and_draw_plots(popqa_file: Path, tmp_path: Path, llm: ScriptedSelfRAGLLM,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    argv = ["eval", str(popqa_file), "--task", "popqa", "--reflector", "inline", "--out", str(out), "--no-progress"]
    assert main([*argv, "--methods", "selfrag,no_retrieval"]) == 0
    calls = llm.calls
    assert main([*argv, "--threshold", "0.5", "--sweep", "threshold", "--sweep", "w_sup",
                 "--thresholds", "0,0.5,0.9", "--w-sup-values", "0,1"]) == 0
    assert llm.calls == calls + 3  # only each question's no-retrieval answer was generated
    summary = json.loads((out / "sweep.summary.json").read_text())
    points = summary["sweeps"]["threshold"]["points"]
    assert [(p["value"], p["accuracy"], p["retrieval_frequency"]) for p in points] == [
        (0.0, 1.0, 1.0), (0.5, 1.0, 1.0), (0.9, 0.0, 0.0)]
    assert [p["accuracy"] for p in summary["sweeps"]["w_sup"]["points"]] == [1.0, 1.0]
    for knob in ("threshold", "w_sup"):
        png = out / f"sweep_{knob}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert all(r["reused"] == ["retrieval"] for r in read_lines(out / "sweep.jsonl"))
    assert "threshold  accuracy  retrieval" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "content", "message"),
    [
        (["--task", "bioasq"], "{}", "unknown task 'bioasq': choose one of popqa"),
        (["--task", "popqa"], None, "eval file not found"),
        (["--task", "popqa"], "", "is empty"),
        (["--task", "popqa"], '{"question": "q"}\n{"query": "r"}\n', "no usable question in .* for task popqa"),
        (["--task", "arc_c"], '{"question": "q", "answers": ["a"]}\n', "each record needs 'question', 'choices'"),
        (["--task", "popqa", "--methods", "selfrag,bogus"], "{}", "unknown method bogus"),
        (["--task", "popqa", "--sweep", "w_rel"], "{}", "cannot sweep 'w_rel': choose threshold or w_sup"),
        (["--task", "asqa", "--sweep", "threshold"], "{}", "--sweep works on the short-form tasks, not asqa"),
        (["--task", "popqa", "--sweep", "threshold", "--thresholds", "0,2"], "{}",
         r"--thresholds must lie in \[0, 1\]"),
        (["--task", "popqa", "--sweep", "w_sup", "--w-sup-values", "a,b"], "{}", "--w-sup-values must be comma"),
        (["--task", "popqa", "--sweep", "w_sup", "--w-sup-values", "1,-2"], "{}",
         "--w-sup-values must be between 0 and 10, got -2"),
        (["--task", "popqa", "--w-sup", "-100"], "{}", "--w-sup must be between 0 and 10, got -100"),
        (["--task", "popqa", "--threshold", "1.5"], "{}", r"--threshold must be in \[0, 1\], got 1.5"),
        (["--task", "popqa", "--limit", "0"], "{}", "--limit must be >= 1, got 0"),
    ],
)
def test_user_mistakes_print_one_line_and_exit_2(
    argv: list[str], content: str | None, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def no_model(args: Any) -> None:
        raise AssertionError("no model may load for a user mistake")

    monkeypatch.setattr(eval_session, "build_generator", no_model)
    path = tmp_path / "data.jsonl"
    if content is not None:
        path.write_text(content)
    assert main(["eval", str(path), *argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("selfrag: error: ") and err.count("\n") == 1
    assert re.search(message, err), err
    assert not (tmp_path / "out").exists()


def test_a_kill_keeps_the_finished_lines_and_writes_their_summary(
    popqa_file: Path, tmp_path: Path, llm: ScriptedSelfRAGLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    generate = ScriptedSelfRAGLLM._generate

    def killed_on_second_question(self: ScriptedSelfRAGLLM, *args: Any, **kwargs: Any) -> Any:
        if self.calls == 1:
            os.kill(os.getpid(), signal.SIGTERM)
        return generate(self, *args, **kwargs)

    monkeypatch.setattr(ScriptedSelfRAGLLM, "_generate", killed_on_second_question)
    out = tmp_path / "out"
    argv = ["eval", str(popqa_file), "--task", "popqa", "--methods", "no_retrieval", "--reflector", "inline",
            "--out", str(out), "--no-progress"]
    assert main(argv) == 130
    assert len(read_lines(out / "no_retrieval.jsonl")) == 1
    summary = json.loads((out / "no_retrieval.summary.json").read_text())
    assert (summary["complete"], summary["answered"]) == (False, 1)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler is the command's only while it runs

    monkeypatch.setattr(ScriptedSelfRAGLLM, "_generate", generate)
    assert main(argv) == 0
    assert len(read_lines(out / "no_retrieval.jsonl")) == 3
