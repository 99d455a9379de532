"""Agreement measures against hand-computed values, and the majority baseline beside them."""

from __future__ import annotations

import pytest

from selfrag_langchain.trainer.agreement import agreement, format_table, group_report


def test_measures_on_a_small_table() -> None:
    gold = ["A", "A", "A", "B"]
    predicted = ["A", "B", "A", "B"]
    result = agreement(gold, predicted)
    assert result.n == 4
    assert result.accuracy == pytest.approx(0.75)
    assert result.balanced_accuracy == pytest.approx((2 / 3 + 1) / 2)
    # F1(A) = 2*2/(2+3) = 0.8, F1(B) = 2*1/(2+1) = 2/3
    assert result.macro_f1 == pytest.approx((0.8 + 2 / 3) / 2)


def test_majority_baseline_is_strong_on_agreement_and_weak_on_balance() -> None:
    gold = ["[Utility:5]"] * 9 + ["[Utility:1]"]
    report = group_report("utility", gold, ["[Utility:1]"] * 10)
    assert report.majority_label == "[Utility:5]"
    assert report.majority.accuracy == pytest.approx(0.9)
    assert report.majority.balanced_accuracy == pytest.approx(0.5)
    assert report.model.accuracy == pytest.approx(0.1)
    assert report.model.balanced_accuracy == pytest.approx(0.5)
    assert report.predicted_counts == {"[Utility:1]": 10}
    table = format_table([report])
    assert "| utility | 10 | 10.0% | 90.0% |" in table


def test_labels_never_predicted_count_in_macro_f1() -> None:
    assert agreement(["A", "B"], ["A", "A"]).macro_f1 == pytest.approx((2 / 3 + 0.0) / 2)


def test_mismatched_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="equally many"):
        agreement(["A"], [])


def test_auc_ranks_by_each_labels_probability() -> None:
    gold = ["A", "A", "B", "B"]
    perfect = [{"A": 0.9, "B": 0.1}, {"A": 0.6, "B": 0.4}, {"A": 0.4, "B": 0.6}, {"A": 0.2, "B": 0.8}]
    report = group_report("relevance", gold, ["A", "A", "B", "B"], perfect)
    assert report.auc == pytest.approx(1.0)
    # One swapped pair of the four (A at 0.6 ranked below B at 0.7): 3 of 4 pairs in order.
    swapped = [{"A": a, "B": 1 - a} for a in (0.9, 0.3, 0.7, 0.1)]
    assert group_report("relevance", gold, ["A", "B", "A", "B"], swapped).auc == pytest.approx(0.75)
    # The same constant label everywhere, equal probabilities: no ranking at all.
    flat = [{"A": 0.8, "B": 0.2}] * 4
    assert group_report("relevance", gold, ["A"] * 4, flat).auc == pytest.approx(0.5)
    assert group_report("relevance", gold, ["A"] * 4).auc is None
    assert group_report("relevance", ["A"] * 4, ["A"] * 4, flat).auc is None
    assert "| 0.500 |" in format_table([group_report("relevance", gold, ["A"] * 4, flat)])
