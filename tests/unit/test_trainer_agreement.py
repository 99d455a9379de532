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
