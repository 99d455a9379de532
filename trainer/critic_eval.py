"""Critic evaluation: agreement with held-out labels per task, beside the majority-label baseline
(the paper's Table 5, plus balanced measures because the labels are imbalanced).

A critic model is asked through :class:`~selfrag_langchain.judging.critic.CriticReflector`, and the default
judge is :class:`~selfrag_langchain.judging.CalibratedReflector`, each exactly as Self-RAG asks it at
inference (same prompts, labels, signals and calibration); the prediction is the most probable label.

Examples:
    selfrag train critic-eval --model critic-smollm2 --data critic_dev.jsonl --out critic-eval.json
    selfrag train critic-eval --model smollm2-135m-instruct --prompts zero_shot --data critic_dev.jsonl
    selfrag train critic-eval --data critic_dev.jsonl      # the default judge, as SelfRAG uses it
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from selfrag_langchain.errors import InputError
from selfrag_langchain.files.durable import write_json_atomic
from selfrag_langchain.judging import CriticReflector, Reflector, load_label_bias
from selfrag_langchain.trainer.agreement import GroupReport, format_table, group_report
from selfrag_langchain.trainer.config import CRITIC_TASKS, CriticEvalConfig
from selfrag_langchain.trainer.critic_rows import CriticRow, read_critic_rows
from selfrag_langchain.trainer.provenance import data_hashes

BATCH = 8
"""Rows per backend call."""


CALIBRATED = "calibrated judge"
"""The ``model`` an evaluation of the calibrated judge records."""


def describe(model: str, prompts: str) -> str:
    """The table's title: the critic model and its prompts, or the calibrated judge and its calibration."""
    if model == CALIBRATED:
        return f"calibrated judge (calibration: {prompts})"
    return f"critic {model} (prompts: {prompts})"



@dataclass
class CriticEvaluation:
    """Per-task reports, the per-row predictions, and rows that could not be asked."""

    model: str
    prompts: str
    reports: list[GroupReport]
    predictions: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def table(self) -> str:
        return format_table(self.reports, describe(self.model, self.prompts))

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "prompts": self.prompts,
            "tasks": {r.task: r.to_dict() for r in self.reports},
            "notes": self.notes,
            "predictions": self.predictions,
        }


def predict(reflector: Reflector, rows: list[CriticRow], *, progress: bool = True,
            desc: str = "critic eval") -> list[dict[str, float]]:
    """The critic's label distribution for each row (rows must split into fields, see ``CriticRow.fields``)."""
    from tqdm import tqdm

    queries = []
    for row in rows:
        query = row.query()
        if query is None:
            msg = f"critic row input is not in the released layout: {row.input[:60]!r}"
            raise InputError(msg)
        queries.append(query)
    dists: list[dict[str, float]] = []
    with tqdm(total=len(queries), desc=desc, disable=not progress) as bar:
        for start in range(0, len(queries), BATCH):
            dists.extend(reflector.judge(queries[start : start + BATCH]))
            bar.update(len(queries[start : start + BATCH]))
    return dists


def evaluate(config: CriticEvalConfig, reflector: Reflector | None = None, *,
             progress: bool = True) -> CriticEvaluation:
    """Evaluate the critic ``config.model`` (or ``reflector``, when given) on ``config.data``.

    Raises:
        InputError: for bad data. ModelLoadError: for a critic that cannot be loaded.
    """
    rows = read_critic_rows(config.data)
    if config.limit is not None:
        rows = rows[: config.limit]
    notes = []
    askable = [r for r in rows if r.fields() is not None]
    if len(askable) < len(rows):
        notes.append(f"{len(rows) - len(askable)} rows whose input is not in the released layout were skipped")
    if not askable:
        msg = f"no row of {config.data} has its input in the released layout (Task instruction: ...)"
        raise InputError(msg)
    name, prompts = (config.model, config.prompts) if config.model else (CALIBRATED, config.calibration or "shipped")
    if reflector is None and not config.model:
        from selfrag_langchain.judging import CalibratedReflector

        reflector = CalibratedReflector(config.calibration)
    if reflector is None:
        from selfrag_langchain.llms.transformers import TransformersLLM

        bias = load_label_bias(config.model, config.prompts) if config.label_bias else None
        if bias is not None and bias.weights:
            notes.append(f"read with the label bias saved in {config.model} (--no-label-bias reads it without)")
            fitted = bias.fitted_on.get("data")
            if isinstance(fitted, dict) and set(data_hashes([config.data]).values()) & set(fitted.values()):
                notes.append(f"its label bias was fitted on {config.data}: these figures are not held out")
        reflector = CriticReflector(TransformersLLM(model=config.model, device=config.device).load(),
                                    prompts=config.prompts, label_bias=bias)
    dists = predict(reflector, askable, progress=progress)
    by_task: dict[str, tuple[list[str], list[str], list[dict[str, float]]]] = defaultdict(lambda: ([], [], []))
    predictions = []
    for row, dist in zip(askable, dists, strict=True):
        label = max(dist, key=lambda tok: dist[tok])  # ties: the first in group order
        by_task[row.task][0].append(row.output)
        by_task[row.task][1].append(label)
        by_task[row.task][2].append(dist)
        predictions.append({"task": row.task, "gold": row.output, "predicted": label,
                            "probs": {tok: round(p, 6) for tok, p in dist.items()}})
    reports = [group_report(task, *by_task[task]) for task in CRITIC_TASKS if task in by_task]
    evaluation = CriticEvaluation(name, prompts, reports, predictions, notes)
    if config.out:
        write_json_atomic(config.out, evaluation.to_dict())
    return evaluation
