"""How well a sentence reader reads held-out pairs: accuracy by reading, minimal pairs ranked against their
flipped twins, answer sentences ranked first, and what the answer's length alone would score.

Examples:
    python benchmarks/reader.py --reader my_reader      # every figure, beside its baseline
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from selfrag_langchain.judging.reader import HEAD_LABELS, READING_LABELS, Reading, SentenceReader
from selfrag_langchain.trainer.reader_data import ReaderPair


def balanced_accuracy(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """The mean over the gold labels of the share of their rows predicted right."""
    by_label: dict[str, list[bool]] = defaultdict(list)
    for g, p in zip(gold, predicted, strict=True):
        by_label[g].append(g == p)
    return sum(sum(v) / len(v) for v in by_label.values()) / len(by_label) if by_label else 0.0


def evaluate_pairs(reader: SentenceReader, pairs: Sequence[ReaderPair]) -> dict[str, Any]:
    """Accuracy and balanced accuracy of the reader's most probable label, per reading present in ``pairs``."""
    report: dict[str, Any] = {}
    for reading in Reading:
        rows = [p for p in pairs if p.reading is reading]
        if not rows:
            continue
        labels = READING_LABELS[reading]
        probabilities = reader.read([(p.first, p.second) for p in rows], reading)
        predicted = [labels[max(range(len(labels)), key=row.__getitem__)] for row in probabilities]
        gold = [HEAD_LABELS[p.label] for p in rows]
        right = sum(g == p for g, p in zip(gold, predicted, strict=True))
        report[str(reading)] = {"rows": len(rows), "accuracy": round(right / len(rows), 4),
                                "balanced_accuracy": round(balanced_accuracy(gold, predicted), 4)}
    return report


def twin_groups(rows: Iterable[dict[str, Any]]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Minimal pairs of the counterfactual file: each entailment row with the rows that share its premise or its
    hypothesis and carry another label (its edited twins)."""
    rows = list(rows)
    by_premise, by_hypothesis = defaultdict(list), defaultdict(list)
    for r in rows:
        by_premise[r["premise"]].append(r)
        by_hypothesis[r["hypothesis"]].append(r)
    out = []
    for r in rows:
        if r["label"] != "entailment":
            continue
        twins = [t for t in (*by_premise[r["premise"]], *by_hypothesis[r["hypothesis"]]) if t["label"] != "entailment"]
        if twins:
            out.append((r, twins))
    return out


def twin_ranking(reader: SentenceReader, groups: Sequence[tuple[dict[str, Any], list[dict[str, Any]]]]) -> float:
    """The share of (supported row, flipped twin) comparisons in which the supported row gets the higher
    entailment probability."""
    texts = {(r["hypothesis"], r["premise"]) for r, twins in groups for r in (r, *twins)}
    scores = dict(zip(texts, (e for e, _, _ in reader.entailment(list(texts))), strict=True))
    wins = total = 0
    for r, twins in groups:
        for t in twins:
            total += 1
            wins += scores[(r["hypothesis"], r["premise"])] > scores[(t["hypothesis"], t["premise"])]
    return wins / total if total else 0.0


def answer_ranking(scores: Sequence[Sequence[float]], answers: Sequence[Sequence[int]]) -> float:
    """The share of questions whose best-scored candidate is one of their answering ones (questions without an
    answering candidate are left out)."""
    kept = [(s, a) for s, a in zip(scores, answers, strict=True) if a and s]
    return sum(max(range(len(s)), key=s.__getitem__) in a for s, a in kept) / len(kept) if kept else 0.0


def length_only(pairs: Sequence[ReaderPair], folds: int = 5) -> float:
    """Balanced accuracy, by cross-validation, of a classifier that reads only the claim's length in words: how
    much a length shortcut would score on ``pairs``."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict

    x = np.asarray([[len(p.first.split())] for p in pairs], dtype=float)
    y = [HEAD_LABELS[p.label] for p in pairs]
    predicted = cross_val_predict(LogisticRegression(), x, y, cv=folds)
    return balanced_accuracy(y, list(predicted))
