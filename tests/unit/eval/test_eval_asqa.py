"""ASQA through the runner: a long-form result's answer and numbered citations are scored with str-em,
ROUGE-L and citation precision / recall, from a long-form Runnable that returns a known result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document

from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.methods import LongFormMethod
from selfrag_langchain.eval.runner import evaluate
from selfrag_langchain.eval.tasks import get_task
from selfrag_langchain.results import CitedSegment, LongFormResult
from tests.fakes.table_judge import TableJudge

SUNDAY = Document("Constantine made Sunday a day of rest in 321 AD.", metadata={"title": "Sunday", "citation": 1})
ISO = Document("ISO 8601 puts Monday first.", metadata={"title": "ISO 8601", "citation": 2})


class FixedLongForm:
    """A long-form Runnable stand-in: always the same cited answer; records what it was asked."""

    def __init__(self) -> None:
        self.inputs: list[Any] = []

    def settings(self) -> dict[str, Any]:
        return {"beam_width": 2, "max_depth": 3}

    def invoke(self, data: Any) -> LongFormResult:
        self.inputs.append(data)
        segments = [CitedSegment(text="Sunday became a day of rest in 321 AD.", citation=1, source=SUNDAY),
                    CitedSegment(text="In ISO 8601 it is the seventh day.", citation=2, source=ISO)]
        return LongFormResult(question=data["question"], answer=" ".join(s.marked() for s in segments),
                              segments=segments, citations=[ISO, SUNDAY], retrievals=1, selected=0, beams=[],
                              steps=[], candidates=[], reflector="critic")


def test_asqa_scores_str_em_rouge_and_citations(tmp_path: Path) -> None:
    example = EvalExample(
        key="s", line=1, question="When did Sunday become the seventh day of the week?",
        short_answer_sets=(("321 AD",), ("1988",)),
        references=("Sunday became a day of rest in 321 AD. ISO 8601 made it the seventh day in 1988.",),
        passages=[SUNDAY, ISO])
    judge = TableJudge({
        ("Sunday\nConstantine made Sunday a day of rest in 321 AD.", "Sunday became a day of rest in 321 AD."),
    })
    runnable = FixedLongForm()
    out = tmp_path / "selfrag.jsonl"
    summary = evaluate(LongFormMethod(runnable, models={"model": "m"}), get_task("asqa"), [example], out,
                       source=Path("asqa.json"), judge=judge, show_progress=False)

    assert runnable.inputs[0]["instruction"].startswith("Answer the following question. The question may be")
    assert runnable.inputs[0]["passages"] == [SUNDAY, ISO]
    (line,) = [json.loads(x) for x in out.read_text().splitlines()]
    assert line["prediction"] == "Sunday became a day of rest in 321 AD [1]. In ISO 8601 it is the seventh day [2]."
    assert line["retrieved"] is True
    metrics = line["metrics"]
    assert metrics["str_em"] == pytest.approx(0.5)  # "321 AD" found, "1988" not
    assert metrics["str_hit"] == 0.0
    assert 0.3 < metrics["rouge_l"] < 1.0
    # [1] supports the first sentence, [2] does not support the second: half the sentences, half the citations.
    assert metrics["citation_recall"] == pytest.approx(0.5)
    assert metrics["citation_precision"] == pytest.approx(0.5)
    assert summary["metric"] == "str_em" and summary["accuracy"] == pytest.approx(0.5)
    assert summary["metrics"]["citation_recall"] == pytest.approx(0.5)
    assert summary["settings"]["beam_width"] == 2 and summary["settings"]["form"] == "long"


def test_asqa_without_a_judge_leaves_citation_metrics_out(tmp_path: Path) -> None:
    example = EvalExample(key="s", line=1, question="q?", short_answer_sets=(("321 AD",),), references=("x",))
    summary = evaluate(LongFormMethod(FixedLongForm()), get_task("asqa"), [example], tmp_path / "r.jsonl",
                       source=Path("asqa.json"), show_progress=False)
    assert summary["accuracy"] == 1.0
    assert set(summary["metrics"]) == {"str_em", "str_hit", "rouge_l"}


def test_selfrag_eval_task_asqa_runs_the_long_form_runnable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from selfrag_langchain.cli import main
    from selfrag_langchain.eval import session as eval_session
    from selfrag_langchain.judging import InlineReflector
    from tests.fakes.eiffel import EIFFEL, scripted

    llm = scripted(EIFFEL)
    monkeypatch.setattr(eval_session, "build_generator", lambda settings: llm)
    monkeypatch.setattr(eval_session, "build_reflector", lambda settings, generator: InlineReflector(generator))
    record = {"question": "Who built the Eiffel Tower?", "qa_pairs": [{"short_answers": ["Gustave Eiffel"]}],
              "annotations": [{"long_answer": "The Eiffel Tower was built by Gustave Eiffel's company."}],
              "docs": [{"title": "Louvre", "text": "The Louvre is a museum in Paris."},
                       {"title": "Eiffel Tower", "text": "The Eiffel Tower was built by Gustave Eiffel's company."}]}
    path = tmp_path / "asqa.json"
    path.write_text(json.dumps([record]))
    out = tmp_path / "out"
    assert main(["eval", str(path), "--task", "asqa", "--reflector", "inline", "--mode", "always", "--k", "2",
                 "--max-depth", "2", "--citation-judge", "none", "--out", str(out), "--no-progress"]) == 0
    (line,) = [json.loads(x) for x in (out / "selfrag.jsonl").read_text().splitlines()]
    # The supported Eiffel branch wins and cites the file's second passage as [1].
    # Quoted (the pipeline's default): the passage's sentence that states "Gustave Eiffel's company built it."
    assert line["prediction"] == "The Eiffel Tower was built by Gustave Eiffel's company [1]."
    assert line["trace"]["citations"][0]["metadata"]["title"] == "Eiffel Tower"
    assert line["metrics"]["str_em"] == 1.0 and line["metrics"]["rouge_l"] > 0.9
    assert line["retrieved"] is True
    summary = json.loads((out / "selfrag.summary.json").read_text())
    assert summary["settings"]["form"] == "long" and summary["settings"]["max_depth"] == 2
