"""`selfrag index` and `selfrag ask` as a user runs them: real model, real Chroma store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from examples.corpus import PASSAGES
from selfrag_langchain.cli import main

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def store(passages_store: Path) -> Path:
    return passages_store


def test_index_twice_adds_nothing_the_second_time(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = store.parent / "corpus.jsonl"
    assert main(["index", str(corpus), "--store", str(store)]) == 0
    assert "0 chunk(s) added, 5 already present" in capsys.readouterr().out


@pytest.mark.parametrize("quote", [False, True])
def test_ask_json_trace_totals_equal_the_formulas(store: Path, capsys: pytest.CaptureFixture[str], quote: bool
                                                  ) -> None:
    code = main(["ask", "Who designed the Eiffel Tower?", "--store", str(store), "--k", "2",
                 "--mode", "always", "--max-new-tokens", "24", "--sequence-probability", "--json",
                 "--quote" if quote else "--no-quote"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["retrieved"] and len(result["branches"]) == 2
    titles = {b["passage"]["metadata"]["title"] for b in result["branches"]}
    assert "Eiffel Tower" in titles
    assert result["citations"][0]["metadata"]["title"] in titles
    assert any(b["written"] for b in result["branches"])
    for branch in result["branches"]:
        d, s = branch["distributions"], branch["scores"]
        s_rel = d["IsRel"]["[Relevant]"] / (d["IsRel"]["[Relevant]"] + d["IsRel"]["[Irrelevant]"])
        if not branch["written"]:  # settled by the names rule before it was written: its IsRel alone was read
            assert branch["dropped"] and branch["raw_generation"] == "" and d["IsSup"] is None
            expected = 1.0 * s_rel
        elif quote:  # scored as its quote: its passage's words, answering as the reader reads it, no sequence term
            assert branch["quote"] and 0.0 <= branch["quote_answering"] <= 1.0
            expected = 1.0 * s_rel + 1.0 * 1.0 + 0.5 * (2 * branch["quote_answering"] - 1)
            assert s["sequence_probability"] is None
        else:
            sup = d["IsSup"]
            s_sup = (sup["[Fully supported]"] + 0.5 * sup["[Partially supported]"]) / sum(sup.values())
            use = d["IsUse"]
            s_use = sum(w * use[f"[Utility:{i}]"] for i, w in enumerate((-1, -0.5, 0, 0.5, 1), 1)) / sum(use.values())
            expected = s["sequence_probability"] + 1.0 * s_rel + 1.0 * s_sup + 0.5 * s_use
        assert s["total"] == pytest.approx(expected)
        assert sum(d["IsRel"].values()) == pytest.approx(1.0)
    best = max(result["branches"], key=lambda b: b["scores"]["total"])
    assert result["selected"] == best["index"]


def test_ask_prints_answer_sources_and_reflection(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "How high is Mount Everest?", "--store", str(store), "--k", "2", "--mode", "always",
                 "--max-new-tokens", "24"]) == 0
    out = capsys.readouterr().out
    assert "Sources:\n  [1] " in out
    assert "Reflection (calibrated judge; mode always; retrieved: yes)" in out
    assert out.count("IsRel [") == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ask", "   "], "the question is empty"),
        (["ask", "q", "--threshold", "1.5"], "--threshold must be in [0, 1], got 1.5"),
        (["ask", "q", "--k", "-1"], "--k must be >= 1, got -1"),
        (["ask", "q", "--model", "/no/such/model"], "does not exist"),
        (["ask", "q", "--reflector", "inline"], "lacks them"),
        (["index", "/no/such/file.txt"], "No such file or directory: /no/such/file.txt"),
    ],
)
def test_user_mistakes_print_one_line_and_exit_2(
    argv: list[str], message: str, store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if argv[0] == "ask" and "--store" not in argv:
        argv = [*argv, "--store", str(store)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_missing_store_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "q", "--store", str(tmp_path / "nothing")]) == 2
    assert "selfrag index" in capsys.readouterr().err
    assert not (tmp_path / "nothing").exists()


def test_ask_without_store_uses_what_index_filled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SELFRAG_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "everest.txt"
    corpus.write_text(dict(PASSAGES)["Mount Everest"])
    assert main(["index", str(corpus)]) == 0
    assert (tmp_path / "home" / "store" / "chroma.sqlite3").exists()
    capsys.readouterr()
    assert main(["ask", "How high is Mount Everest?", "--mode", "always", "--k", "1", "--max-new-tokens", "8",
                 "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["citations"][0]["metadata"]["title"] == "everest"
    assert "demo corpus" not in captured.err
    assert not (tmp_path / "home" / "demo-store").exists()


def test_demo_corpus_has_a_store_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from selfrag_langchain.corpus.demo import ensure_demo_store
    from selfrag_langchain.corpus.store import store_size

    monkeypatch.setenv("SELFRAG_HOME", str(tmp_path))
    store = ensure_demo_store(progress=False, limit=5)
    assert store_size(store) == 5
    assert (tmp_path / "demo-store" / "chroma.sqlite3").exists() and not (tmp_path / "store").exists()


def test_ask_json_stdout_parses_when_a_library_prints_while_it_loads(store: Path) -> None:
    """With the ``train`` extra installed, DeepSpeed prints "Setting accelerator to CPU" on stdout when it
    is first imported; imported here while the command builds its pipeline, as a library may import it,
    that line goes to stderr and stdout is the JSON alone."""
    import subprocess
    import sys

    pytest.importorskip("deepspeed", reason="the train extra is not installed")
    script = (
        "import sys\n"
        "import selfrag_langchain.commands.ask as ask\n"
        "built = ask.build_selfrag\n"
        "def build(*args, **kwargs):\n"
        "    import deepspeed  # noqa: F401\n"
        "    return built(*args, **kwargs)\n"
        "ask.build_selfrag = build\n"
        "from selfrag_langchain.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, "ask", "Who designed the Eiffel Tower?", "--store",
                           str(store), "--k", "1", "--mode", "always", "--max-new-tokens", "12", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["question"] == "Who designed the Eiffel Tower?"
    assert "accelerator" in done.stderr  # the library did print, just not on stdout
