"""The evaluation loop: one line per question as it goes, resume after an interrupt, summaries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from selfrag_langchain.errors import InputError
from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.methods import Outcome
from selfrag_langchain.eval.runner import evaluate, summary_path
from selfrag_langchain.eval.tasks import get_task

TASK = get_task("popqa")


def examples(n: int = 5) -> list[EvalExample]:
    return [EvalExample(key=f"q{i}", line=i + 1, question=f"Question {i}?", answers=(f"answer {i}",))
            for i in range(n)]


class ScriptedMethod:
    """Answers right on even questions, retrieves on questions divisible by 3; can stop like Ctrl-C."""

    name = "scripted"

    def __init__(self, stop_after: int | None = None, k: int = 1) -> None:
        self.asked: list[str] = []
        self.stop_after = stop_after
        self.k = k

    def settings(self) -> dict[str, Any]:
        return {"method": self.name, "k": self.k}

    def answer(self, example: EvalExample, task: Any) -> Outcome:
        if self.stop_after is not None and len(self.asked) == self.stop_after:
            raise KeyboardInterrupt
        self.asked.append(example.key)
        i = int(example.key[1:])
        prediction = f"It is {example.answers[0]}." if i % 2 == 0 else "I do not know."
        return Outcome(prediction, i % 3 == 0, 0.5, {"branches": [i]})


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_interrupted_run_keeps_its_lines_and_the_rerun_answers_only_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "scripted.jsonl"
    first = ScriptedMethod(stop_after=2)
    with pytest.raises(KeyboardInterrupt):
        evaluate(first, TASK, examples(), out, source=Path("data.jsonl"), show_progress=False)
    assert [r["key"] for r in lines(out)] == ["q0", "q1"]
    partial = json.loads(summary_path(out).read_text())
    assert partial["complete"] is False and partial["answered"] == 2 and partial["questions"] == 5

    second = ScriptedMethod()
    summary = evaluate(second, TASK, examples(), out, source=Path("data.jsonl"), show_progress=False)
    assert second.asked == ["q2", "q3", "q4"]
    records = lines(out)
    assert sorted(r["key"] for r in records) == ["q0", "q1", "q2", "q3", "q4"]  # each question once
    assert summary["complete"] is True
    assert (summary["answered"], summary["answered_now"], summary["resumed"]) == (5, 3, 2)
    assert summary["accuracy"] == pytest.approx(3 / 5) and summary["correct"] == 3
    assert summary["retrieval_frequency"] == pytest.approx(2 / 5) and summary["retrieved"] == 2
    assert summary["settings"] == {"task": "popqa", "method": "scripted", "k": 1}
    assert json.loads(summary_path(out).read_text()) == summary

    third = ScriptedMethod()
    evaluate(third, TASK, examples(), out, source=Path("data.jsonl"), show_progress=False)
    assert third.asked == []  # nothing left to do


def test_each_line_holds_question_prediction_correctness_retrieval_and_trace(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    evaluate(ScriptedMethod(), TASK, examples(2), out, source=Path("d.jsonl"), show_progress=False)
    first = lines(out)[0]
    assert first["question"] == "Question 0?" and first["prediction"] == "It is answer 0."
    assert first["gold"] == ["answer 0"] and first["correct"] is True and first["score"] == 1.0
    assert first["retrieved"] is True and first["retrieve_probability"] == 0.5
    assert first["trace"] == {"branches": [0]} and first["seconds"] >= 0
    assert lines(out)[1]["correct"] is False


def test_resuming_with_other_settings_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    evaluate(ScriptedMethod(), TASK, examples(2), out, source=Path("d.jsonl"), show_progress=False)
    with pytest.raises(InputError, match=r"holds results of other settings \(k 1 -> 3\): use another --out"):
        evaluate(ScriptedMethod(k=3), TASK, examples(3), out, source=Path("d.jsonl"), show_progress=False)
    assert len(lines(out)) == 2


def test_a_line_cut_by_a_hard_kill_is_dropped_and_answered_again(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    evaluate(ScriptedMethod(), TASK, examples(2), out, source=Path("d.jsonl"), show_progress=False)
    with out.open("a") as f:
        f.write('{"key": "q2", "prediction": "It is')
    method = ScriptedMethod()
    summary = evaluate(method, TASK, examples(3), out, source=Path("d.jsonl"), show_progress=False)
    assert method.asked == ["q2"]
    assert [r["key"] for r in lines(out)] == ["q0", "q1", "q2"]
    assert summary["complete"] is True


def test_a_foreign_file_at_the_output_path_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text("hello\n")
    with pytest.raises(InputError, match="line 1 is not a result line"):
        evaluate(ScriptedMethod(), TASK, examples(1), out, source=Path("d.jsonl"), show_progress=False)
