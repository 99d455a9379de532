"""Sweeps of the paper's analyses (Figure 3b, 3c) from one set of generations.

Neither the threshold δ nor the critique weights change what is generated: δ only chooses between the
answer with retrieval and the answer without, and the weights only choose among the retrieval branches.
So each question is generated once down both paths (all K passage branches, judged, and the no-retrieval
answer) with its p(Retrieve); every swept value then re-decides and re-selects from these traces with the
pure functions of :mod:`selfrag_langchain.scoring` and :func:`~selfrag_langchain.eval.rescoring.reselect`.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.rescoring import reselect
from selfrag_langchain.eval.tasks import Task
from selfrag_langchain.files.durable import json_lines
from selfrag_langchain.prompts import build_instruction
from selfrag_langchain.results import SelfRAGResult
from selfrag_langchain.scoring import (
    HardConstraints,
    RetrieveMode,
    ScoringWeights,
    retrieve_probability,
    should_retrieve,
)

SWEEPABLE = ("threshold", "w_sup")
DEFAULT_VALUES: dict[str, tuple[float, ...]] = {
    "threshold": tuple(round(0.1 * i, 1) for i in range(11)),
    "w_sup": (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0),
}
DECISION_KNOBS = ("mode", "threshold", "w_sup", "use_sequence_probability", "drop_unsupported")
"""Settings that only decide and select: generations do not depend on them, so they are not compared
when a sweep resumes from its generations (``decline`` and ``min_name_coverage`` do: the names rule leaves
branches it settles unwritten, :func:`~selfrag_langchain.chains.names.moot_reasons`; so do ``w_rel``, ``w_use``
and ``drop_irrelevant``, which set a quoted branch's prospect and the bar it is measured against,
:func:`~selfrag_langchain.chains.prospects.out_of_reach`; ``w_sup`` adds the same to every quote)."""


def generation_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings the generations of a sweep depend on."""
    return {k: v for k, v in settings.items() if k not in DECISION_KNOBS}


def sweep_record(runnable: Any, task: Task, example: EvalExample,
                 prior: dict[str, Any] | None = None) -> dict[str, Any]:
    """Generate one question down both paths: p(Retrieve), every retrieval branch judged, and the answer
    without retrieval. The body of its line in the sweep file.

    ``prior``, the line of an adaptive or hard Self-RAG run with the same generation settings, already
    holds p(Retrieve) and one of the two paths: only the other is generated.
    """
    data = task.runnable_input(example)
    paths: dict[str, SelfRAGResult] = {}
    dist = None
    if prior is not None:
        earlier = SelfRAGResult.model_validate(prior["trace"])
        if earlier.retrieve_decision.distribution is not None:
            dist = earlier.retrieve_decision.distribution
            paths["retrieval" if earlier.retrieve_decision.retrieve else "no_retrieval"] = earlier
    reused = sorted(paths)
    if dist is None:
        instruction = build_instruction(example.question, task.instruction, example.choices or None)
        dist = runnable.reflector.retrieve_distribution(instruction)
    for path, mode in (("retrieval", RetrieveMode.ALWAYS), ("no_retrieval", RetrieveMode.NEVER)):
        if path not in paths:
            paths[path] = runnable.model_copy(update={"mode": mode}).invoke(data)
    return {
        "question": example.question,
        "gold": example.gold(),
        "retrieve_distribution": dist,
        "retrieve_probability": retrieve_probability(dist) if dist is not None else None,
        "retrieval": paths["retrieval"].model_dump(mode="json"),
        "no_retrieval": paths["no_retrieval"].model_dump(mode="json"),
        "reused": reused,
    }


def reusable_lines(path: Path, settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Lines of an earlier ``--methods selfrag`` run in ``path`` whose generations a sweep with ``settings``
    can reuse (same task, models and generation settings; any threshold and weights)."""
    if not path.exists():
        return {}
    wanted = {k: v for k, v in settings.items() if k != "kind"}
    found: dict[str, dict[str, Any]] = {}
    for _, record, error in json_lines(path.read_text(encoding="utf-8").splitlines()):
        if error is not None:
            continue
        earlier = {k: v for k, v in (record.get("settings") or {}).items() if k != "method"}
        if isinstance(record, dict) and "trace" in record and generation_settings(earlier) == wanted:
            found[record["key"]] = record
    return found


@dataclass(frozen=True)
class Decision:
    """The knobs one sweep point applies to the recorded generations."""

    mode: RetrieveMode
    threshold: float
    weights: ScoringWeights
    constraints: HardConstraints


@dataclass(frozen=True)
class SweepPoint:
    """Accuracy and retrieval frequency at one value of the swept knob."""

    knob: str
    value: float
    accuracy: float | None
    retrieval_frequency: float
    questions: int


def predict(record: dict[str, Any], task: Task, example: EvalExample, decision: Decision) -> tuple[str, bool]:
    """The answer one question gets under ``decision``, and whether it used retrieval."""
    dist = record.get("retrieve_distribution")
    retrieve = should_retrieve(decision.mode, dist, decision.threshold)
    result = SelfRAGResult.model_validate(record["retrieval" if retrieve else "no_retrieval"])
    answer = reselect(result, task, example, weights=decision.weights, constraints=decision.constraints)
    return answer, result.retrieved


def point(
    records: dict[str, dict[str, Any]],
    task: Task,
    examples: Sequence[EvalExample],
    decision: Decision,
    knob: str,
    value: float,
) -> SweepPoint:
    """Score every recorded question under ``decision``."""
    scores: list[float] = []
    retrieved: list[bool] = []
    for ex in examples:
        if ex.key not in records:
            continue
        answer, used = predict(records[ex.key], task, ex, decision)
        score = task.score(ex, answer)
        if score.value is not None:
            scores.append(score.value)
        retrieved.append(used)
    return SweepPoint(knob, value, statistics.fmean(scores) if scores else None,
                      statistics.fmean(retrieved) if retrieved else 0.0, len(retrieved))


def sweep(
    records: dict[str, dict[str, Any]],
    task: Task,
    examples: Sequence[EvalExample],
    base: Decision,
    knob: str,
    values: Sequence[float],
) -> list[SweepPoint]:
    """One point per value of ``knob``. The threshold sweep decides adaptively (Figure 3c); the w_sup
    sweep keeps the base decision's mode and threshold (Figure 3b)."""
    points = []
    for value in values:
        if knob == "threshold":
            decision = replace(base, mode=RetrieveMode.ADAPTIVE, threshold=value)
        elif knob == "w_sup":
            decision = replace(base, weights=replace(base.weights, w_sup=value))
        else:
            msg = f"cannot sweep '{knob}': choose one of {', '.join(SWEEPABLE)}"
            raise ValueError(msg)
        points.append(point(records, task, examples, decision, knob, value))
    return points
