"""Running the sweeps of one evaluation: each question generated once down both paths, every swept value
re-decided from those traces (:mod:`selfrag_langchain.eval.sweep`), a plot per knob and a summary file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.methods import BASELINES
from selfrag_langchain.eval.plots import plot_sweep
from selfrag_langchain.eval.runner import Progress, json_settings, run_questions
from selfrag_langchain.eval.session import EvalSession
from selfrag_langchain.eval.sweep import Decision, generation_settings, reusable_lines, sweep, sweep_record
from selfrag_langchain.eval.tasks import Task
from selfrag_langchain.files.durable import write_json_atomic


def run_sweeps(session: EvalSession, task: Task, examples: list[EvalExample], out: Path,
               sweeps: dict[str, list[float]], *, source: Path, show_progress: bool = True) -> dict[str, Any]:
    """Sweep each knob over its values; the summary (also written to ``out/sweep.summary.json``) has each
    knob's points and plot."""
    runnable = session.selfrag()
    settings = {"task": task.name, "kind": "sweep", **session.models(judges=True),
                **generation_settings(runnable.settings())}
    settings = json_settings(settings)
    prior = reusable_lines(out / "selfrag.jsonl", settings)
    progress = Progress(records={})
    run_questions(examples, out / "sweep.jsonl", settings,
                  lambda ex: sweep_record(runnable, task, ex, prior.get(ex.key)),
                  desc="sweep", show_progress=show_progress, progress=progress)
    pipeline = session.settings
    base = Decision(pipeline.mode, pipeline.threshold, runnable.weights(), runnable.constraints())
    baselines = baseline_accuracies(out, pipeline.model)
    result: dict[str, Any] = {"task": task.name, "file": str(source), "questions": len(examples),
                              "settings": settings, "base": {"mode": str(pipeline.mode),
                                                             "threshold": pipeline.threshold,
                                                             **runnable.weights().__dict__},
                              "generation_seconds": round(sum(r["seconds"] for r in progress.records.values()), 2),
                              "sweeps": {}}
    for knob, values in sweeps.items():
        points = sweep(progress.records, task, examples, base, knob, values)
        png = plot_sweep(points, out / f"sweep_{knob}.png", baselines=baselines,
                         title=f"{task.name}, {pipeline.model}, {len(examples)} questions, k={pipeline.k}")
        result["sweeps"][knob] = {"points": [p.__dict__ for p in points], "plot": str(png)}
    result = json.loads(json.dumps(result, default=str))
    write_json_atomic(out / "sweep.summary.json", result)
    return result


def baseline_accuracies(out: Path, model: str) -> dict[str, float]:
    """Accuracies of the baselines already evaluated into ``out`` with the same model, drawn as reference
    lines."""
    found = {}
    for name in BASELINES:
        path = out / f"{name}.summary.json"
        if path.exists():
            summary = json.loads(path.read_text())
            if summary.get("accuracy") is not None and summary.get("settings", {}).get("model") == model:
                found[name] = summary["accuracy"]
    return found
