"""The paper's formulas against values computed by hand."""

from __future__ import annotations

import math

import pytest

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.scoring import (
    WEIGHT_RANGE,
    HardConstraints,
    RetrieveMode,
    ScoringWeights,
    aggregate_options,
    best_index,
    from_logprobs,
    normalize,
    relevance_score,
    retrieve_probability,
    score_branch,
    should_retrieve,
    support_score,
    utility_score,
)
from selfrag_langchain.tokens import Group


def test_retrieve_probability_uses_probabilities_not_logprobs() -> None:
    # log p: -0.5 and -2.0. The reference code divides log-probabilities: -0.5/(-2.5) = 0.2.
    dist = from_logprobs(Group.RETRIEVE, {"[Retrieval]": -0.5, "[No Retrieval]": -2.0})
    expected = math.exp(-0.5) / (math.exp(-0.5) + math.exp(-2.0))  # 0.8176
    assert retrieve_probability(dist) == pytest.approx(expected)
    assert retrieve_probability(dist) == pytest.approx(0.817574, abs=1e-6)


def test_relevance() -> None:
    assert relevance_score({"[Relevant]": 0.3, "[Irrelevant]": 0.1}) == pytest.approx(0.75)
    assert relevance_score({}) == 0.0


def test_support_hand_computed() -> None:
    dist = {"[Fully supported]": 0.2, "[Partially supported]": 0.4, "[No support / Contradictory]": 0.4}
    assert support_score(dist) == pytest.approx(0.2 + 0.5 * 0.4)
    unnormalised = {"[Fully supported]": 1.0, "[Partially supported]": 2.0, "[No support / Contradictory]": 2.0}
    assert support_score(unnormalised) == pytest.approx(0.4)


def test_utility_hand_computed() -> None:
    dist = {"[Utility:1]": 0.1, "[Utility:2]": 0.1, "[Utility:3]": 0.2, "[Utility:4]": 0.2, "[Utility:5]": 0.4}
    # -1*0.1 - 0.5*0.1 + 0 + 0.5*0.2 + 1*0.4 = 0.35
    assert utility_score(dist) == pytest.approx(0.35)
    assert utility_score({"[Utility:5]": 1.0}) == pytest.approx(1.0)
    assert utility_score({"[Utility:1]": 1.0}) == pytest.approx(-1.0)


def test_segment_score_total_and_terms() -> None:
    weights = ScoringWeights(w_rel=1.0, w_sup=1.0, w_use=0.5)
    breakdown = score_branch(
        mean_logprob=math.log(0.6),
        relevance={"[Relevant]": 0.8, "[Irrelevant]": 0.2},
        support={"[Fully supported]": 0.5, "[Partially supported]": 0.5, "[No support / Contradictory]": 0.0},
        utility={"[Utility:5]": 1.0},
        weights=weights,
    )
    assert breakdown.sequence_probability == pytest.approx(0.6)
    assert (breakdown.relevance, breakdown.support, breakdown.utility) == pytest.approx((0.8, 0.75, 1.0))
    assert breakdown.total == pytest.approx(0.6 + 0.8 + 0.75 + 0.5)


def test_missing_terms_count_zero_and_sequence_term_can_be_off() -> None:
    weights = ScoringWeights(w_rel=2.0, use_sequence_probability=False)
    breakdown = score_branch(mean_logprob=-0.1, relevance={"[Relevant]": 1.0}, support=None, utility=None,
                             weights=weights)
    assert breakdown.sequence_probability is None and breakdown.support is None
    assert breakdown.total == pytest.approx(2.0)


def test_normalize_restricts_and_renormalises() -> None:
    dist = normalize(Group.ISREL, {"[Relevant]": 0.2, "[Irrelevant]": 0.6, "[Utility:5]": 0.2})
    assert dist == pytest.approx({"[Relevant]": 0.25, "[Irrelevant]": 0.75})
    assert normalize(Group.ISREL, {}) == {"[Relevant]": 0.5, "[Irrelevant]": 0.5}
    with pytest.raises(ValueError, match="finite number >= 0"):
        normalize(Group.ISREL, {"[Relevant]": -1.0})


@pytest.mark.parametrize(
    ("mode", "p_retrieval", "threshold", "expected"),
    [
        (RetrieveMode.ADAPTIVE, 0.3, 0.2, True),
        (RetrieveMode.ADAPTIVE, 0.2, 0.2, False),  # strictly greater
        (RetrieveMode.ADAPTIVE, 0.9, 0.95, False),
        (RetrieveMode.HARD, 0.4, 0.0, False),
        (RetrieveMode.HARD, 0.6, 1.0, True),
        (RetrieveMode.ALWAYS, 0.0, 1.0, True),
        (RetrieveMode.NEVER, 1.0, 0.0, False),
    ],
)
def test_should_retrieve(mode: RetrieveMode, p_retrieval: float, threshold: float, expected: bool) -> None:
    dist = {"[Retrieval]": p_retrieval, "[No Retrieval]": 1 - p_retrieval}
    assert should_retrieve(mode, dist, threshold) is expected


def test_hard_constraints() -> None:
    unsupported = {"[Fully supported]": 0.1, "[Partially supported]": 0.2, "[No support / Contradictory]": 0.7}
    irrelevant = {"[Relevant]": 0.4, "[Irrelevant]": 0.6}
    assert HardConstraints().violation(irrelevant, unsupported) is None
    assert "No support" in HardConstraints(drop_unsupported=True).violation(None, unsupported)
    assert "Irrelevant" in HardConstraints(drop_irrelevant=True).violation(irrelevant, None)
    assert HardConstraints(drop_unsupported=True).violation(None, None) is None


def test_best_index_skips_dropped_and_prefers_first_on_ties() -> None:
    assert best_index([1.0, None, 3.0, 3.0]) == 2
    assert best_index([None, None]) is None


def test_best_index_within_a_margin_takes_the_retrievers_first() -> None:
    assert best_index([2.95, None, 3.0], margin=0.1) == 0  # within 0.1 of the best: the first-ranked
    assert best_index([2.95, None, 3.0]) == 2  # no margin: the best score alone
    assert best_index([2.8, 2.95, 3.0], margin=0.1) == 1  # the first of those within the margin, not of all
    assert best_index([None, 2.95, 3.0], margin=0.1) == 1  # a dropped branch is never taken
    assert best_index([1.0, 3.0], margin=2.0) == 0 and best_index([None], margin=0.5) is None  # at it counts


def test_closed_set_sums_per_option() -> None:
    sums = aggregate_options(["A", "B", "A", None, "B"], [1.0, 1.5, 0.75, 9.0, None])
    assert sums == pytest.approx({"A": 1.75, "B": 1.5})


def test_non_finite_weight_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="w_use must be a finite number"):
        ScoringWeights(w_use=float("nan"))


@pytest.mark.parametrize(
    ("weights", "message"),
    [({"w_sup": -100.0}, "w_sup must be between 0 and 10, got -100"),
     ({"w_rel": -0.5}, "w_rel must be between 0 and 10, got -0.5"),
     ({"w_use": 10.01}, "w_use must be between 0 and 10, got 10.01")],
)
def test_a_weight_outside_the_documented_range_is_refused(weights: dict[str, float], message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        ScoringWeights(**weights)
    assert str(caught.value) == message


def test_the_ends_of_the_range_are_accepted() -> None:
    assert WEIGHT_RANGE == (0.0, 10.0)
    assert ScoringWeights(w_rel=0.0, w_sup=10.0, w_use=0.0).w_sup == 10.0
