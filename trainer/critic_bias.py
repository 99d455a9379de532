"""Label bias for a trained critic (``selfrag train critic-bias``): one log-weight per label, fitted on labelled
rows the critic never trained on, kept for a group only when it raises balanced accuracy across folds.

The weights minimise the class-balanced log loss of the critic's label distributions with the weights added
to their logarithms (a softmax with one free weight per label, lightly L2-regularised), so every label counts
as much as the others whatever its share of the rows. A label with fewer than ``min_rows`` rows keeps weight
0 but stays in the softmax, and every row is scored, as ``critic-eval`` scores it. Rows of the critic's own
training draw (the same instruction, input and task, whatever their label) are skipped: the draw is rebuilt
from the configuration its ``selfrag_training.json`` records, from the files whose hashes it records.

Example:
    selfrag train critic-bias --model selfrag-train/critic_smollm2 --data my_labels.csv
"""

from __future__ import annotations

import json
import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from selfrag_langchain.errors import ConfigurationError, InputError
from selfrag_langchain.files.durable import write_json_atomic
from selfrag_langchain.judging.label_bias import LABEL_BIAS_FILE, LabelBias
from selfrag_langchain.tokens import Group
from selfrag_langchain.trainer.agreement import agreement
from selfrag_langchain.trainer.config import CriticBiasConfig
from selfrag_langchain.trainer.critic_rows import CriticRow, read_critic_rows
from selfrag_langchain.trainer.provenance import data_hashes, data_keys, file_hash
from selfrag_langchain.trainer.training import SUMMARY_FILE

L2 = 0.01
"""Weight of the squared log-weights in the loss, per row: keeps a weight that no row needs near 0."""

RowKey = tuple[str, str, str]
"""What a critic reads of a row (instruction, input, task): a relabelled copy of a training row is the same row."""


def row_key(row: CriticRow) -> RowKey:
    return (row.instruction, row.input, row.task)


@dataclass
class GroupFit:
    """One group's log-weights and what cross-validation said of them."""

    group: Group
    rows: int
    labels: dict[str, int]
    weights: dict[str, float]
    raw_balanced_accuracy: float
    cv_balanced_accuracy: float

    @property
    def kept(self) -> bool:
        return self.cv_balanced_accuracy > self.raw_balanced_accuracy

    def line(self) -> str:
        verdict = "kept" if self.kept else "not kept (no gain across folds)"
        return (f"{self.group.value}: {self.rows} rows, balanced accuracy {self.raw_balanced_accuracy:.1%} as the "
                f"critic reads them, {self.cv_balanced_accuracy:.1%} with log-weights fitted on the other folds: "
                f"{verdict}")


@dataclass
class BiasFit:
    """The label bias written, each group's fit, and notes (rows skipped)."""

    bias: LabelBias
    groups: list[GroupFit]
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The notes, one line per group, then the log-weights kept."""
        lines = [*self.notes, *(f.line() for f in self.groups)]
        lines += [f"{g.value} log-weights: " + ", ".join(f"{tok} {w:+.2f}" for tok, w in ws.items())
                  for g, ws in self.bias.weights.items()]
        return lines


def fit_weights(probabilities: np.ndarray, gold: np.ndarray, free: Sequence[int]) -> np.ndarray:
    """Log-weights ``b`` (those not in ``free`` held at 0) minimising the class-balanced log loss of
    ``softmax(log p + b)`` over the rows whose label is free, plus ``L2 * n * |b|^2``.

    ``probabilities[i]`` is row i's distribution over the group's labels and ``gold[i]`` its label's index.
    """
    from scipy.optimize import minimize

    logp = np.log(np.clip(probabilities, 1e-12, None))
    chosen = np.isin(gold, free)
    logp, y = logp[chosen], gold[chosen]
    counts = np.bincount(y, minlength=logp.shape[1])
    row_weight = len(y) / (np.count_nonzero(counts) * counts[y])
    onehot = np.eye(logp.shape[1])[y]
    free = list(free)

    def loss(x: np.ndarray) -> tuple[float, np.ndarray]:
        b = np.zeros(logp.shape[1])
        b[free] = x
        z = logp + b
        z -= z.max(axis=1, keepdims=True)
        log_q = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        value = -(row_weight * (log_q * onehot).sum(axis=1)).sum() + L2 * len(y) * (x @ x)
        grad = (row_weight[:, None] * (np.exp(log_q) - onehot)).sum(axis=0)[free] + 2 * L2 * len(y) * x
        return float(value), grad

    weights = np.zeros(logp.shape[1])
    weights[free] = minimize(loss, np.zeros(len(free)), jac=True, method="L-BFGS-B").x
    return weights


def _predicted(probabilities: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return np.argmax(np.log(np.clip(probabilities, 1e-12, None)) + weights, axis=1)


def fit_group(group: Group, dists: Sequence[dict[str, float]], gold: Sequence[str], config: CriticBiasConfig
              ) -> GroupFit | None:
    """Log-weights for the labels of ``group`` with at least ``min_rows`` rows, and the balanced accuracy on
    every row with log-weights fitted on the other folds beside the critic's own; None when fewer than two labels
    have enough rows."""
    from sklearn.model_selection import StratifiedKFold

    labels = list(group.tokens)
    counts = {tok: sum(g == tok for g in gold) for tok in labels}
    free = [i for i, tok in enumerate(labels) if counts[tok] >= config.min_rows]
    if len(free) < 2:
        return None
    probs = np.array([[d.get(tok, 0.0) for tok in labels] for d in dists])
    y = np.array([labels.index(g) for g in gold])
    strata = np.where(np.isin(y, free), y, -1)  # labels too rare to fit share one stratum
    folds = StratifiedKFold(n_splits=min(config.folds, min(counts[labels[i]] for i in free)), shuffle=True,
                            random_state=config.seed)
    held_out = np.empty_like(y)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        splits = list(folds.split(probs, strata))
    for train, test in splits:
        held_out[test] = _predicted(probs[test], fit_weights(probs[train], y[train], free))
    names = [labels[k] for k in y]
    raw = agreement(names, [labels[k] for k in _predicted(probs, np.zeros(len(labels)))]).balanced_accuracy
    cv = agreement(names, [labels[k] for k in held_out]).balanced_accuracy
    weights = fit_weights(probs, y, free)
    return GroupFit(group, len(y), {tok: n for tok, n in counts.items() if n},
                    {labels[i]: round(float(weights[i]), 4) for i in free}, raw, cv)


def training_draw(model: str | Path, given: Sequence[str]) -> tuple[set[RowKey] | None, str | None]:
    """What the critic in ``model`` trained on, rebuilt from its training record, each recorded file found where
    the record names it or among ``given`` by its hash; None and a note when it cannot be rebuilt and no
    ``given`` file is one it trained on.

    Raises:
        InputError: when a ``given`` file is one the critic trained on and the draw cannot be rebuilt (the fit
            would read rows the critic has seen).
    """
    from selfrag_langchain.trainer.critic import select_rows

    record = Path(model) / SUMMARY_FILE
    given_hashes = {file_hash(path): path for path in given}
    try:
        summary = json.loads(record.read_text(encoding="utf-8"))
        saved, hashes = dict(summary["config"]), dict(summary["provenance"]["data"])
        recorded = [str(p) for p in saved["data"]]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError):
        return None, f"{record} is missing or not a training record: rows the critic trained on could not be skipped"
    found: list[str] = []
    for path, key in zip(recorded, data_keys(recorded), strict=True):
        want = hashes.get(key)
        if Path(path).is_file() and file_hash(path) == want:
            found.append(path)
        elif want in given_hashes:
            found.append(given_hashes[want])
        else:
            reason = f"{Path(path).name} is not where the record names it, or has changed since"
            break
    else:
        from selfrag_langchain.trainer.training_config import CriticConfig

        # The fields that chose the rows; a critic trained before the configs built on TrainingArguments
        # recorded them under the same names.
        chosen = {k: saved[k] for k in ("tasks", "per_group", "per_label", "limit", "seed") if k in saved}
        try:
            config = CriticConfig(data=found, out=str(model), use_cpu=True, **chosen)
            return {row_key(r) for r in select_rows(read_critic_rows(found), config)}, None
        except (ConfigurationError, InputError, TypeError) as err:
            reason = str(err)
    if set(given_hashes) & set(hashes.values()):
        msg = (f"the training draw of {model} cannot be rebuilt ({reason}), and --data holds a file it trained on: "
               f"give every file it trained on, unchanged, or only rows it never saw")
        raise InputError(msg)
    return None, f"the training draw of {model} could not be rebuilt ({reason}); no --data file is one it trained on"


def fit_label_bias(config: CriticBiasConfig, *, progress: bool = True) -> BiasFit:
    """Judge ``config.data`` with the critic as it reads without a bias, fit each group's log-weights, and write
    the groups that gain across folds to the critic's directory (an empty bias when none does).

    Raises:
        InputError: for bad data or no usable row. ModelLoadError: for a critic that cannot be loaded.
    """
    from selfrag_langchain.judging import CriticReflector
    from selfrag_langchain.llms.transformers import TransformersLLM
    from selfrag_langchain.trainer.critic_eval import predict

    if not Path(config.model).is_dir():
        msg = f"--model must be a trained critic directory, got {config.model!r}"
        raise InputError(msg)
    every = read_critic_rows(config.data)
    rows = [r for r in every if r.fields() is not None]
    notes = []
    if len(rows) < len(every):
        notes.append(f"{len(every) - len(rows)} rows whose input is not in the released layout were skipped")
    seen, note = training_draw(config.model, config.data)
    if note:
        notes.append(note)
    skipped = 0
    if seen:
        before = len(rows)
        rows = [r for r in rows if row_key(r) not in seen]
        skipped = before - len(rows)
        notes.append(f"{skipped} rows the critic trained on were skipped")
    if not rows:
        msg = f"no row of {', '.join(config.data)} is left to fit a label bias on (released layout, not trained on)"
        raise InputError(msg)
    reflector = CriticReflector(TransformersLLM(model=config.model, device=config.device).load(),
                                prompts=config.prompts)
    dists = predict(reflector, rows, progress=progress, desc="critic bias")
    by_group: dict[Group, tuple[list[dict[str, float]], list[str]]] = defaultdict(lambda: ([], []))
    for row, dist in zip(rows, dists, strict=True):
        by_group[row.group][0].append(dist)
        by_group[row.group][1].append(row.output)
    fits = [fit for group in Group if group in by_group
            if (fit := fit_group(group, *by_group[group], config)) is not None]
    unfitted = [g.value for g in Group if g in by_group and g not in {f.group for f in fits}]
    if unfitted:
        notes.append(f"{', '.join(unfitted)}: fewer than two labels with {config.min_rows} rows; left as it is")
    fitted_on = {"data": data_hashes(config.data), "rows": len(rows), "skipped_as_trained_on": skipped,
                 "folds": config.folds, "min_rows": config.min_rows, "seed": config.seed,
                 "groups": {f.group.value: {"rows": f.rows, "labels": f.labels, "kept": f.kept,
                                            "balanced_accuracy": round(f.raw_balanced_accuracy, 4),
                                            "cross_validated_with_weights": round(f.cv_balanced_accuracy, 4)}
                            for f in fits}}
    bias = LabelBias({f.group: f.weights for f in fits if f.kept}, config.prompts, fitted_on)
    write_json_atomic(Path(config.model) / LABEL_BIAS_FILE, bias.to_dict())
    return BiasFit(bias, fits, notes)
