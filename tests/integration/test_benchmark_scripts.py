"""Every ``benchmarks/`` script runs on a tiny input, and what it prints has the shape of its figures: the lines
it promises, each number in its range (a share between 0 and 100%, a rate above 0). The values themselves are
the benchmarks' business (``benchmarks/RESULTS.md``), not the tests'.

The scripts run one after the other in one Python process of their own (``python -m
tests.integration.test_benchmark_scripts OUT``), each as ``__main__`` with its own arguments and environment, so
that they share the loaded models instead of each loading them again."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from selfrag_langchain.llms.transformers import TransformersLLM

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
SHARED = ROOT.parent / "shared" / "data"
NUMBER = r"(-?\d+(?:\.\d+)?)"


def _head(source: Path, target: Path, n: int, keep: Callable[[dict], bool] = lambda row: True) -> Path:
    rows = [row for row in map(json.loads, source.read_text(encoding="utf-8").splitlines()) if keep(row)]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(json.dumps(row) + "\n" for row in rows[:n]), encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory, selfrag_home: Path, smollm2: TransformersLLM) -> dict[str, Path]:
    """The inputs, a few rows of each."""
    folder = tmp_path_factory.mktemp("tiny")
    critic = SHARED / "critic_dev.jsonl"
    made = {
        "popqa": _head(SHARED / "popqa_longtail_dev.jsonl", folder / "popqa.jsonl", 2),
        "arc": _head(SHARED / "arc_challenge_dev.jsonl", folder / "arc.jsonl", 2),
        "chat": _head(BENCHMARKS / "data" / "chat_conversations.jsonl", folder / "chat.jsonl", 1),
        "answerable": _head(BENCHMARKS / "data" / "tuning_questions.jsonl", folder / "answerable.jsonl", 2),
        "unanswerable": _head(BENCHMARKS / "data" / "unanswerable_questions.jsonl", folder / "unanswerable.jsonl",
                              2),
        "critic": folder / "critic.jsonl",
        "groundedness": _head(critic, folder / "groundedness.jsonl", 60, lambda r: r["task"] == "groundedness"),
        "utility": _head(critic, folder / "utility.jsonl", 20, lambda r: r["task"] == "utility"),
    }
    rows = [row for task in ("retrieval", "relevance", "groundedness", "utility")
            for row in [r for r in map(json.loads, critic.read_text().splitlines()) if r["task"] == task][:6]]
    made["critic"].write_text("".join(json.dumps(r) + "\n" for r in rows))
    # The shared data's layout, a few rows of each file the reader's benchmark reads.
    data = folder / "data"
    _head(SHARED / "squad" / "selqa_test.jsonl", data / "squad" / "selqa_test.jsonl", 4)
    for name in ("squad20_dev.jsonl", "squad11_dev.jsonl"):
        squad = [json.loads(line) for line in (SHARED / "squad" / name).read_text().splitlines()]
        titles = list(dict.fromkeys(row["title"] for row in squad))[:4]
        (data / "squad" / name).write_text("".join(
            json.dumps(row) + "\n" for title in titles for row in [r for r in squad if r["title"] == title][:6]))
    nli = SHARED / "nli"
    _head(nli / "snli_counterfactual.jsonl", data / "nli" / "snli_counterfactual.jsonl", 30,
          lambda row: row.get("split") == "cad_test")
    _head(nli / "mnli_taxinli.jsonl", data / "nli" / "mnli_taxinli.jsonl", 30)
    _head(nli / "halueval_qa.jsonl", data / "nli" / "halueval_qa.jsonl", 80)
    made["reader_data"] = data
    from selfrag_langchain.chains.answer_kinds import asks_place, asks_year

    made["squad"] = _head(SHARED / "squad" / "squad11_train.jsonl", folder / "squad11.jsonl", 3,
                          lambda row: any(asks_place(q["question"]) or asks_year(q["question"]) for q in row["qas"]))
    # An untrained generator that has the reflection tokens, for the script that checks a trained one's.
    from selfrag_langchain.trainer.vocabulary import save_with_reflection_tokens

    made["generator"] = save_with_reflection_tokens(smollm2.hf_model, smollm2.tokenizer, folder / "generator")
    # Two questions through `selfrag eval`, for the script that reads its traces.
    results = folder / "eval"
    done = subprocess.run([sys.executable, "-m", "selfrag_langchain.cli", "eval", str(made["popqa"]), "--task",
                           "popqa", "--methods", "selfrag", "--out", str(results), "--no-progress"],
                          capture_output=True, text=True, timeout=600, cwd=folder,
                          env={**os.environ, "SELFRAG_HOME": str(selfrag_home)})
    assert done.returncode == 0, done.stderr[-3000:]
    made["eval_results"] = results / "selfrag.jsonl"
    return made


@dataclass(frozen=True)
class Script:
    """One script's tiny run: its arguments (``{name}`` is a tiny input, ``{out}`` a fresh path) and the lines
    its output must have, each a pattern whose numbers must lie in ``within``."""

    name: str
    args: tuple[str, ...]
    lines: tuple[str, ...]
    within: tuple[float, float] = (0.0, 100.0)
    timeout: int = 300
    env: dict[str, str] = field(default_factory=dict)
    variant: str = ""
    """Names a second run of the same script (its id and output files)."""

    @property
    def run(self) -> str:
        return f"{self.name}-{self.variant}" if self.variant else self.name


SCRIPTS = (
    Script("answer_finder.py", ("--data", "{reader_data}", "--limit", "6", "--baseline-finder", "shipped"),
           (rf'"auc": {NUMBER}', rf'"balanced_accuracy_at_0.5": {NUMBER}', rf'"answer_finder": {NUMBER}',
            rf'"baseline_finder": {NUMBER}', rf'"answer_sentence_first": {NUMBER}'),
           within=(0.0, 1.0)),
    Script("answer_kinds.py", ("--squad", "{squad}"),
           tuple(rf"^{kind} +(\d+) +(\d+) = {NUMBER}% \[{NUMBER}%, {NUMBER}%\] +(\d+) of (\d+) = {NUMBER}%$"
                 for kind in ("year", "place"))),
    Script("arc_options.py", ("--data", "{arc}", "--k", "1"),
           (r"ARC-Challenge, 2 questions", rf"^\s+\S.*\s{NUMBER}%\s+\((\d+)/2\)$")),
    Script("backends.py", ("--data", "{popqa}", "--questions", "1", "--k", "1", "--max-new-tokens", "4",
                           "--backends", "transformers"),
           (rf"^\| transformers \| {NUMBER} \| {NUMBER} \| {NUMBER} \|",), within=(0.0, 1e4)),
    Script("chat_followups.py", ("--data", "{chat}", "--k", "1", "--max-new-tokens", "8"),
           (r"^2 follow-ups in 1 conversations", r"top 1 +(\d)/2 +first +(\d)/2",
            rf"right +(\d)/2 \[{NUMBER}, {NUMBER}\]")),
    Script("declining.py", ("--form", "short", "--out", "{out}", "--answerable", "{answerable}",
                            "--unanswerable", "{unanswerable}"),
           (rf"^\| \S+ \| 2 \| (\d)/2 = {NUMBER}% \[{NUMBER}%, {NUMBER}%\] \|",)),
    Script("document_indexing.py", ("--pages", "2"),
           (rf"^\| pdf \| (\d+) \| {NUMBER} \| {NUMBER} \|", rf"^\| txt \| (\d+) \| {NUMBER} \| {NUMBER} \|"),
           within=(0.0, 1e5)),
    Script("eval_traces.py", ("{eval_results}",),
           (r"^questions 2, retrieved [0-2]$", rf"IsRel +s_rel AUC .*: ({NUMBER}|n/a)"), within=(0.0, 2.0)),
    Script("indexing.py", ("--limit", "4", "--descriptions", "3", "--k", "1"),
           (rf"^\| torch \| {NUMBER} \| {NUMBER} \|", rf"^\| onnx-int8 \| {NUMBER} \| {NUMBER} \|"),
           within=(0.0, 1e5)),
    Script("judge_runtime.py", ("{answerable}", "--questions", "1"),
           (r'"same_answers": (1)', rf'"ratio": {NUMBER}'), within=(0.0, 10.0)),
    Script("judge_runtime.py", ("{answerable}", "--questions", "1", "--models", "readers"),
           (r'"models": "readers"', r'"same_answers": (1)', rf'"ratio": {NUMBER}'), within=(0.0, 10.0),
           variant="readers"),
    Script("judges.py", ("{critic}", "--judge", "shipped"), (rf'"balanced_accuracy": {NUMBER}',), within=(0.0, 1.0)),
    Script("load.py", ("--questions", "2"),
           (r"^\| `abatch`, all at once \| 2 \| 0 \| 0 \| 0 \|",
            r"^\| chat sessions, .* \| 2 \| 0 \| 0 \| 0 \| .* 2/2 sessions")),
    Script("long_form.py", ("--data", "{popqa}", "--questions", "1", "--k", "1", "--max-new-tokens", "30"),
           (rf"whole budget: +{NUMBER}s",), within=(0.0, 1e4)),
    Script("long_form_answers.py", ("--answerable", "{answerable}", "--unanswerable", "{unanswerable}",
                                    "--limit", "1", "--out", "{out}", "--json"),
           (r'"right": [01], "answerable": 1', r'"declined": [01], "unanswerable": 1')),
    Script("finder_questions.py", ("{answerable}", "{unanswerable}", "--k", "2", "--out", "{out}"),
           (r"^(\d) questions from 2 lists \((\d) answerable, (\d) not\)",), within=(2, 4)),
    Script("names_rule.py", ("{answerable}", "{unanswerable}", "--k", "3"),
           (r"^answerable: ([0-2])/2 = ", r"^unanswerable: ([0-2])/2 = ",
            r"^\| unanswerable\.jsonl \| 2 \| ([0-2]) \| ([0-2]) \|$")),
    Script("ocr_pages.py", ("--pages", "1", "--ocr-dpi", "100"),
           (rf"^\| \S.* \| {NUMBER} \| {NUMBER} \| {NUMBER} \| {NUMBER}% \|",), within=(0.0, 1e4)),
    Script("rag_prompts.py", ("--data", "{popqa}", "--k", "1", "--max-new-tokens", "8"),
           (rf"top-1 branch right (\d)/2 \({NUMBER}%\), some branch right (\d)/2",)),
    Script("reader.py", ("--data", "{reader_data}"),
           (rf'"reader_balanced_accuracy": {NUMBER}', rf'"word_overlap": {NUMBER}', rf'"lead_first": {NUMBER}'),
           within=(0.0, 1.0)),
    Script("reader_lists.py", ("{answerable}", "{unanswerable}", "--k", "2"),
           (rf'"share": {NUMBER}', rf'"auc": {NUMBER}', rf'"balanced_accuracy": {NUMBER}'), within=(0.0, 1.0)),
    Script("selection.py", ("--data", "{popqa}", "--task", "popqa", "--cache", "{out}", "--k", "2",
                            "--max-new-tokens", "8"),
           (rf"^\| RAG, top-1 passage \| (\d)/2 = {NUMBER}% \[{NUMBER}%, {NUMBER}%\]",
            rf"^\| ceiling: some branch right \| (\d)/2 = {NUMBER}%")),
    Script("short_form.py", ("--data", "{popqa}", "--questions", "1", "--k", "2", "--max-new-tokens", "8"),
           (rf"Self-RAG default \(calibrated judge\) / plain RAG: {NUMBER}x",
            rf"branches one by one / batched: {NUMBER}x"), within=(0.0, 1e3)),
    Script("reselection.py", ("{eval_results}",),
           tuple(rf"^{kind}: (\d+) questions, (\d+) change \[{NUMBER}, {NUMBER}%\]"
                 for kind in ("right", "wrong", "declined", "unanswerable, answered", "unanswerable, declined"))),
    Script("serve_start.py", ("--list", "{answerable}", "--questions", "1", "--short"),
           tuple(rf"^{name} +listening after {NUMBER} s; requests in turn: {NUMBER} s$"
                 for name in (r"warm-up \(default\)", "--no-warm-up")), within=(0.0, 1e4), timeout=900),
    Script("settled_quotes.py", ("{eval_results}",),
           tuple(rf"^{label}: (\d+)/(\d+) = {NUMBER}% \[{NUMBER}%, {NUMBER}%\]$"
                 for label in ("settled before writing", r"the quote is the best-read sentence \(baseline\)"))),
    Script("squad_passages.py", ("--data", "{reader_data}", "--limit", "5", "--passages", "3", "--out", "{out}"),
           (rf'"questions": {NUMBER}', rf'"3": {NUMBER}'), within=(0.0, 5.0)),
    Script("support_claims.py", ("--train", "{groundedness}", "--heldout", "{groundedness}"),
           (rf'"cv_balanced_accuracy": {NUMBER}', rf'"groundedness.jsonl": {NUMBER}'), within=(0.0, 1.0)),
    Script("title_reading.py", ("--data", "{reader_data}", "--limit", "6"),
           (rf'"first": {NUMBER}', rf'"pooled_auc": {NUMBER}', rf'"answerable_auc": {NUMBER}'), within=(0.0, 1.0)),
    Script("train_generator_check.py", ("--model", "{generator}", "--questions", "1", "--steps", "1",
                                        "--max-new-tokens", "8"),
           (r"^\| \S+ \| ([01])/1 \| ",), within=(0.0, 1.0)),
    Script("train_pairs.py", ("{utility}", "{out}", "--limit", "3"), (r"^(\d) pairs -> ",), within=(1.0, 3.0)),
)
"""Each script, the tiny run it gets, and the lines of figures it must print."""


def _numbers(match: re.Match[str]) -> list[float]:
    return [float(g) for g in match.groups() if g is not None and re.fullmatch(r"-?\d+(?:\.\d+)?", g)]


def run_scripts(plan: Path) -> None:
    """Run every script of ``plan`` (JSON: name, argv, env, stdout file) as ``__main__``, one after another,
    and write each one's exit status and error beside its output."""
    import contextlib
    import runpy
    import traceback

    sys.path.insert(0, str(BENCHMARKS))
    for step in json.loads(plan.read_text()):
        saved_env, saved_argv = dict(os.environ), sys.argv
        os.environ.update(step["env"])
        sys.argv = [str(BENCHMARKS / step["name"]), *step["argv"]]
        status, error = 0, ""
        with open(step["stdout"], "w", encoding="utf-8") as out, contextlib.redirect_stdout(out):
            try:
                runpy.run_path(sys.argv[0], run_name="__main__")
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
                error = str(e.code)
            except Exception:  # the script's own failure, reported by its test
                status, error = 1, traceback.format_exc()
        os.environ.clear()
        os.environ.update(saved_env)
        sys.argv = saved_argv
        Path(step["stdout"] + ".status").write_text(json.dumps({"status": status, "error": error[-3000:]}))


@pytest.fixture(scope="module")
def outputs(request: pytest.FixtureRequest, tiny: dict[str, Path], selfrag_home: Path,
            tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where each selected script's output and exit status are, once all have run."""
    folder = tmp_path_factory.mktemp("runs")
    inputs = {k: str(v) for k, v in tiny.items()}
    selected = [item.callspec.params["script"] for item in request.session.items
                if isinstance(getattr(item, "callspec", None) and item.callspec.params.get("script"), Script)]
    plan = [{"name": script.name, "stdout": str(folder / f"{script.run}.out"), "env": script.env,
             "argv": [a.format(**inputs, out=str(folder / f"{script.run}.made")) for a in script.args]}
            for script in selected]
    (folder / "plan.json").write_text(json.dumps(plan))
    done = subprocess.run([sys.executable, "-m", "tests.integration.test_benchmark_scripts", str(folder / "plan.json")],
                          capture_output=True, text=True, timeout=sum(s.timeout for s in selected), cwd=ROOT,
                          env={**os.environ, "OMP_NUM_THREADS": "2", "SELFRAG_HOME": str(selfrag_home)})
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.run for s in SCRIPTS])
def test_the_script_runs_on_a_tiny_input_and_prints_its_figures(script: Script, outputs: Path) -> None:
    result = json.loads((outputs / f"{script.run}.out.status").read_text())
    assert result["status"] == 0, result["error"]
    printed = (outputs / f"{script.run}.out").read_text()
    for pattern in script.lines:
        found = list(re.finditer(pattern, printed, re.M))
        assert found, f"{script.name} printed no line like {pattern!r}:\n{printed[-2000:]}"
        for match in found:
            low, high = script.within
            assert all(low <= x <= high for x in _numbers(match)), f"out of range in {match.group(0)!r}"


if __name__ == "__main__":
    run_scripts(Path(sys.argv[1]))
