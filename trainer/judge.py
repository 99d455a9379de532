"""Fitting the calibrated judge: one logistic regression per reflection group on the GPT-4 critic labels.

The signals of every labelled row are computed exactly as :class:`~selfrag_langchain.judging.
CalibratedReflector` computes them at inference; per group, the regularisation strength and class
weighting are chosen by stratified cross-validation on the training file alone (balanced accuracy for
Retrieve, IsRel and IsSup, macro-F1 for IsUse, whose labels are 95% ``[Utility:5]``). The fitted
parameters are written as JSON; the package ships the file this command writes from
``critic_train.jsonl``.

Examples:
    selfrag train judge --data critic_train.jsonl --out judge.json
    selfrag train critic-eval --judge judge.json --data critic_dev.jsonl
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any

from selfrag_langchain.errors import InputError
from selfrag_langchain.files.durable import write_json_atomic
from selfrag_langchain.judging import CriticQuery
from selfrag_langchain.judging.calibrated import DEFAULT_EMBEDDINGS, GroupCalibration, JudgeCalibration
from selfrag_langchain.judging.features import SignalReader
from selfrag_langchain.tokens import CONTINUE_EVIDENCE, Group
from selfrag_langchain.trainer.config import JudgeConfig
from selfrag_langchain.trainer.critic_rows import CriticRow, capped, read_critic_rows
from selfrag_langchain.trainer.provenance import provenance

C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
"""Inverse regularisation strengths tried per group."""

SCORING = {Group.RETRIEVE: "balanced_accuracy", Group.ISREL: "balanced_accuracy",
           Group.ISSUP: "balanced_accuracy", Group.ISUSE: "f1_macro"}
"""What cross-validation maximises per group (the measures the judge is reported by)."""


@dataclass(frozen=True)
class LabelledSignals:
    """The signals and GPT-4 label of each row of one group."""

    group: Group
    features: tuple[str, ...]
    rows: list[list[float]]
    labels: list[str]


def judgement(row: CriticRow) -> CriticQuery | None:
    """What :class:`CalibratedReflector` would be asked for this row; None for a row it cannot use (input
    not in the released layout, or ``[Continue to Use Evidence]``, which needs a passage in hand)."""
    return None if row.output == CONTINUE_EVIDENCE else row.query()


def labelled_signals(rows: list[CriticRow], reader: SignalReader) -> dict[Group, LabelledSignals]:
    """Rows grouped by reflection group, as signal vectors (feature order fixed per group)."""
    usable = [(row, j) for row in rows if (j := judgement(row)) is not None]
    signals = reader.read([j for _, j in usable])
    out: dict[Group, LabelledSignals] = {}
    for (row, _), values in zip(usable, signals, strict=True):
        if row.group not in out:
            out[row.group] = LabelledSignals(row.group, tuple(values), [], [])
        entry = out[row.group]
        entry.rows.append([values[f] for f in entry.features])
        entry.labels.append(row.output)
    return out


def class_weight_options(labels: list[str]) -> list[Any]:
    """No weighting, full balancing, and square-root balancing (in between, for very skewed groups)."""
    counts = Counter(labels)
    top = max(counts.values())
    return [None, "balanced", {label: (top / n) ** 0.5 for label, n in counts.items()}]


def fit_group(data: LabelledSignals, *, folds: int = 5, seed: int = 0) -> tuple[GroupCalibration, dict[str, Any]]:
    """The cross-validated logistic regression of one group, as a :class:`GroupCalibration`."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = np.asarray(data.rows, dtype=float), np.asarray(data.labels)
    # No more folds than the rarest label has rows; a label seen once cannot be in every fold anyway, and
    # StratifiedKFold goes on without it.
    smallest = min(Counter(data.labels).values())
    n_splits = folds if smallest < 2 else max(2, min(folds, smallest))
    splits = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    pipeline = Pipeline([("scale", StandardScaler()), ("model", LogisticRegression(max_iter=5000))])
    grid = {"model__C": list(C_GRID), "model__class_weight": class_weight_options(data.labels)}
    search = GridSearchCV(pipeline, grid, scoring=SCORING[data.group], cv=splits)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # folds without a rare label, and their undefined F1 terms
        search.fit(x, y)
    scaler, model = search.best_estimator_.named_steps["scale"], search.best_estimator_.named_steps["model"]
    scale = [float(s) if s > 0 else 1.0 for s in scaler.scale_]
    calibration = GroupCalibration(
        data.group, data.features, tuple(str(c) for c in model.classes_), tuple(map(float, scaler.mean_)),
        tuple(scale), tuple(tuple(map(float, r)) for r in model.coef_), tuple(map(float, model.intercept_)))
    weight = search.best_params_["model__class_weight"]
    report = {"rows": len(data.labels), "labels": dict(Counter(data.labels)), "C": search.best_params_["model__C"],
              "class_weight": weight if weight is None or isinstance(weight, str) else "sqrt-balanced",
              "cv_" + SCORING[data.group]: round(float(search.best_score_), 4)}
    return calibration, report


def signal_reader(reader: str | None) -> SignalReader:
    """The signals the judge is fitted on, computed as its reflector computes them: the calibrated judge's, or with
    ``reader`` (``shipped`` or a directory of ``selfrag train reader``) the entailment judge's too."""
    from selfrag_langchain.embeddings import MiniLMEmbeddings

    # Full precision, as the judges read them (torch, so that a reader shares its layers; the calibrated judge
    # reads the same vectors, to 1e-7, in ONNX Runtime).
    embeddings = MiniLMEmbeddings(runtime="torch")
    if reader is None:
        return SignalReader(embeddings)
    from selfrag_langchain.judging.calibrated import shared_minilm
    from selfrag_langchain.judging.entailment import ReadingSignals
    from selfrag_langchain.judging.reader import SentenceReader

    loaded = SentenceReader(None if reader == "shipped" else reader, shared=shared_minilm(embeddings))
    return ReadingSignals(embeddings, loaded)


def fit_judge(config: JudgeConfig, reader: SignalReader | None = None) -> JudgeCalibration:
    """Fit every group on ``config.data`` and write the calibration to ``config.out``.

    Raises:
        InputError: for bad data, or a file without labels of some group.
    """
    rows = capped(read_critic_rows(config.data), config.per_label, config.seed)
    if reader is None:
        reader = signal_reader(config.reader)
    by_group = labelled_signals(rows, reader)
    for group in Group:
        labels = set(by_group[group].labels) if group in by_group else set()
        if len(labels) < 2:
            msg = (f"{', '.join(config.data)} needs rows of at least two {group} labels to fit the judge, found "
                   f"{len(labels)}")
            raise InputError(msg)
    groups, reports = {}, {}
    for group in Group:
        groups[group], reports[str(group)] = fit_group(by_group[group], folds=config.folds, seed=config.seed)
    made = {**provenance(config.data, config.seed), "per_label": config.per_label, "groups": reports}
    if config.reader is not None:
        made["reader"] = config.reader
    calibration = JudgeCalibration(groups, DEFAULT_EMBEDDINGS, made)
    write_json_atomic(config.out, calibration.to_dict())
    return calibration
