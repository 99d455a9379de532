"""The evaluation loop: answer each question not yet in the output file, score it, append its line.

Re-running with the same output skips the questions already there; an interrupt (Ctrl-C) keeps every
finished line and writes the summary of what is done, marked incomplete.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.methods import Method
from selfrag_langchain.eval.metrics import EntailmentJudge
from selfrag_langchain.eval.records import append_record, read_records
from selfrag_langchain.eval.tasks import Task
from selfrag_langchain.files.durable import write_json_atomic


def json_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """Settings as they read back from JSON (enums as strings, tuples as lists), for comparison on resume."""
    return json.loads(json.dumps(settings, default=str))


@dataclass
class Progress:
    """Which questions a run answered now, which it found done, and whether it finished."""

    records: dict[str, dict[str, Any]]
    answered: int = 0
    resumed: int = 0
    wall_seconds: float = 0.0
    complete: bool = False


def run_questions(
    examples: Sequence[EvalExample],
    output: Path,
    settings: dict[str, Any],
    answer: Callable[[EvalExample], dict[str, Any]],
    *,
    desc: str,
    show_progress: bool = True,
    progress: Progress | None = None,
) -> Progress:
    """Append one line per example missing from ``output``; every line carries ``key``, ``settings`` and
    ``seconds`` besides what ``answer`` returns.

    ``progress`` (filled as the run goes, so a caller still has it when the run is interrupted) collects
    every record, those found in ``output`` first. Raises what ``answer`` raises, KeyboardInterrupt
    included, after the finished lines are safe on disk.
    """
    settings = json_settings(settings)
    progress = progress if progress is not None else Progress(records={})
    progress.records.update(read_records(output, settings))
    progress.resumed = sum(ex.key in progress.records for ex in examples)
    todo = [ex for ex in examples if ex.key not in progress.records]
    output.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    bar = tqdm(total=len(examples), initial=progress.resumed, desc=desc, unit="q", disable=not show_progress,
               dynamic_ncols=True)
    try:
        with output.open("a", encoding="utf-8") as handle:
            for ex in todo:
                t0 = time.perf_counter()
                body = answer(ex)
                record = {"key": ex.key, "line": ex.line, **body, "seconds": round(time.perf_counter() - t0, 3),
                          "settings": settings}
                append_record(handle, record)
                progress.records[ex.key] = record
                progress.answered += 1
                bar.update(1)
                if postfix := running_postfix(progress.records.values()):
                    bar.set_postfix_str(postfix)
        progress.complete = True
    finally:
        bar.close()
        progress.wall_seconds = time.perf_counter() - start
    return progress


def running_postfix(records: Iterable[dict[str, Any]]) -> str | None:
    """The progress bar's postfix: accuracy and retrieval frequency of the lines so far."""
    rows = list(records)
    scored = [r["score"] for r in rows if r.get("score") is not None]
    retrieved = [bool(r["retrieved"]) for r in rows if "retrieved" in r]
    parts = []
    if scored:
        parts.append(f"acc={statistics.fmean(scored):.3f}")
    if retrieved:
        parts.append(f"ret={statistics.fmean(retrieved):.2f}")
    return " ".join(parts) or None


def method_record(method: Method, task: Task, example: EvalExample,
                  judge: EntailmentJudge | None = None) -> dict[str, Any]:
    """Answer and score one question: the body of its result line."""
    outcome = method.answer(example, task)
    score = task.score(example, outcome.prediction, cited_passages=outcome.cited_passages, judge=judge)
    return {
        "question": example.question,
        "gold": example.gold(),
        "prediction": outcome.prediction,
        "label": score.label,
        "correct": score.correct,
        "score": score.value,
        "metrics": score.metrics,
        "retrieved": outcome.retrieved,
        "retrieve_probability": outcome.retrieve_probability,
        "trace": outcome.trace,
    }


def summarize(
    task: Task,
    method: str,
    examples: Sequence[EvalExample],
    progress: Progress,
    settings: dict[str, Any],
    *,
    source: Path,
    output: Path,
    skipped_lines: int = 0,
) -> dict[str, Any]:
    """Accuracy, retrieval frequency, counts, settings and time of the questions done so far."""
    rows = [progress.records[ex.key] for ex in examples if ex.key in progress.records]
    scored = [r for r in rows if r.get("score") is not None]
    seconds = [r["seconds"] for r in rows]
    metrics: dict[str, float] = {}
    for name in sorted({m for r in rows for m in r.get("metrics") or {}}):
        values = [r["metrics"][name] for r in rows if name in (r.get("metrics") or {})]
        metrics[name] = statistics.fmean(values)
    return {
        "task": task.name,
        "method": method,
        "file": str(source),
        "output": str(output),
        "complete": progress.complete and len(rows) == len(examples),
        "questions": len(examples),
        "answered": len(rows),
        "answered_now": progress.answered,
        "resumed": progress.resumed,
        "skipped_lines": skipped_lines,
        "metric": task.metric,
        "accuracy": statistics.fmean(r["score"] for r in scored) if scored else None,
        "correct": sum(bool(r.get("correct")) for r in scored),
        "scored": len(scored),
        "retrieval_frequency": statistics.fmean(bool(r["retrieved"]) for r in rows) if rows else None,
        "retrieved": sum(bool(r["retrieved"]) for r in rows),
        "metrics": metrics,
        "settings": json_settings(settings),
        "wall_seconds": round(progress.wall_seconds, 2),
        "seconds_per_question": round(statistics.fmean(seconds), 3) if seconds else None,
        "question_seconds_total": round(sum(seconds), 2),
    }


def evaluate(
    method: Method,
    task: Task,
    examples: Sequence[EvalExample],
    output: Path,
    *,
    source: Path,
    judge: EntailmentJudge | None = None,
    skipped_lines: int = 0,
    show_progress: bool = True,
) -> dict[str, Any]:
    """Run ``method`` on every question missing from ``output`` and write ``<output>.summary.json``.

    The summary is written also when the run is interrupted (``complete: false``), then the interrupt
    goes on.
    """
    settings = {"task": task.name, **method.settings()}
    progress = Progress(records={})
    summary: dict[str, Any] = {}
    try:
        run_questions(examples, output, settings, lambda ex: method_record(method, task, ex, judge),
                      desc=method.name, show_progress=show_progress, progress=progress)
    finally:
        if progress.records or progress.complete:
            summary = summarize(task, method.name, examples, progress, settings, source=source, output=output,
                                skipped_lines=skipped_lines)
            write_json_atomic(summary_path(output), summary)
    return summary


def summary_path(output: Path) -> Path:
    """``results/selfrag.jsonl`` -> ``results/selfrag.summary.json``."""
    return output.with_name(output.stem + ".summary.json")
