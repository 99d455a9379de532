"""Agreement of predicted labels with reference labels, beside a majority-label baseline.

Critic labels are imbalanced (most utility labels are ``[Utility:5]``, most relevance labels
``[Relevant]``), so plain agreement rewards always answering the majority label. Each measure is
therefore given for the predictions and for that constant baseline, with two balanced measures:
balanced accuracy (mean recall over the reference classes) and macro-F1 (mean F1 over the labels that
occur in the references or the predictions). Given the label probabilities, the ranking quality too (AUC):
a critic that answers the majority label everywhere can still order the rows well, or not at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Agreement:
    """The measures of one set of predictions against references."""

    n: int
    accuracy: float
    balanced_accuracy: float
    macro_f1: float


@dataclass(frozen=True)
class GroupReport:
    """One task's predictions and its majority-label baseline."""

    task: str
    model: Agreement
    majority_label: str
    majority: Agreement
    gold_counts: dict[str, int]
    predicted_counts: dict[str, int]
    auc: float | None = None
    """Macro one-vs-rest AUC of the label probabilities (None without probabilities, or one label only)."""

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def agreement(gold: Sequence[str], predicted: Sequence[str]) -> Agreement:
    """Accuracy, balanced accuracy and macro-F1 of ``predicted`` against ``gold``.

    Raises:
        ValueError: for sequences of different lengths or no items.
    """
    if len(gold) != len(predicted) or not gold:
        msg = f"need equally many gold and predicted labels, at least one (got {len(gold)} and {len(predicted)})"
        raise ValueError(msg)
    pairs = list(zip(gold, predicted, strict=True))
    accuracy = sum(g == p for g, p in pairs) / len(pairs)
    gold_counts = Counter(gold)
    recalls = [sum(g == p == label for g, p in pairs) / count for label, count in gold_counts.items()]
    f1s = []
    for label in set(gold) | set(predicted):
        hits = sum(g == p == label for g, p in pairs)
        predicted_n, gold_n = sum(p == label for p in predicted), gold_counts.get(label, 0)
        f1s.append(2 * hits / (predicted_n + gold_n) if predicted_n + gold_n else 0.0)
    return Agreement(len(pairs), accuracy, sum(recalls) / len(recalls), sum(f1s) / len(f1s))


def ranking_auc(gold: Sequence[str], probabilities: Sequence[Mapping[str, float]]) -> float | None:
    """The mean over the reference labels of the AUC of that label's probability, the label against the rest
    (for two labels, the plain AUC); None when fewer than two labels occur."""
    from sklearn.metrics import roc_auc_score

    labels = sorted(set(gold))
    if len(labels) < 2 or len(gold) != len(probabilities):
        return None
    scores = [roc_auc_score([g == label for g in gold], [p.get(label, 0.0) for p in probabilities])
              for label in labels]
    return float(sum(scores) / len(scores))


def group_report(task: str, gold: Sequence[str], predicted: Sequence[str],
                 probabilities: Sequence[Mapping[str, float]] | None = None) -> GroupReport:
    """The task's agreement beside always answering the most frequent reference label (ties: the label
    first met), and with ``probabilities`` (one distribution a row) the ranking AUC."""
    counts = Counter(gold)
    majority_label = max(counts, key=lambda label: (counts[label], -gold.index(label)))
    return GroupReport(
        task=task,
        model=agreement(gold, predicted),
        majority_label=majority_label,
        majority=agreement(gold, [majority_label] * len(gold)),
        gold_counts=dict(counts),
        predicted_counts=dict(Counter(predicted)),
        auc=ranking_auc(gold, probabilities) if probabilities is not None else None,
    )


def format_table(reports: Sequence[GroupReport], title: str = "") -> str:
    """A Markdown table: per task, the critic's measures and the majority baseline's, side by side."""
    lines = [title] if title else []
    lines += [
        "| task | n | agreement | majority baseline | balanced acc. | majority bal. acc. | macro-F1 | majority "
        "macro-F1 | AUC | majority label |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        auc = "n/a" if r.auc is None else f"{r.auc:.3f}"
        lines.append(
            f"| {r.task} | {r.model.n} | {r.model.accuracy:.1%} | {r.majority.accuracy:.1%} | "
            f"{r.model.balanced_accuracy:.1%} | {r.majority.balanced_accuracy:.1%} | {r.model.macro_f1:.3f} | "
            f"{r.majority.macro_f1:.3f} | {auc} | {r.majority_label} |"
        )
    return "\n".join(lines)
