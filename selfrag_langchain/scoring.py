"""The paper's scoring formulas (Asai et al., 2023, Section 3.3 and Appendix A.3) as pure functions.

Every function takes plain distributions (token string -> probability) and returns plain numbers, so
the formulas are tested without a model and no backend's raw objects leak in here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.tokens import (
    FULLY_SUPPORTED,
    GROUP_TOKENS,
    IRRELEVANT,
    NO_RETRIEVAL,
    NO_SUPPORT,
    PARTIALLY_SUPPORTED,
    RELEVANT,
    RETRIEVAL,
    UTILITY,
    Group,
)

Distribution = Mapping[str, float]
"""Probabilities of one group's tokens, normalised within the group (they sum to 1)."""

UTILITY_WEIGHTS: tuple[float, ...] = (-1.0, -0.5, 0.0, 0.5, 1.0)
"""Weights of ``[Utility:1]`` ... ``[Utility:5]`` in the IsUse score (paper A.3)."""


class RetrieveMode(StrEnum):
    """How the retrieve decision is taken (paper Section 3.3)."""

    ADAPTIVE = "adaptive"
    """Retrieve when p([Retrieval]) / (p([Retrieval]) + p([No Retrieval])) > threshold."""
    HARD = "hard"
    """Retrieve when the judge's most likely Retrieve token is ``[Retrieval]``."""
    ALWAYS = "always"
    NEVER = "never"


def normalize(group: Group, probs: Mapping[str, float]) -> dict[str, float]:
    """Restrict ``probs`` to ``group``'s tokens and renormalise them to sum to 1.

    Tokens of the group missing from ``probs`` get probability 0. All-zero input gives the uniform
    distribution, since nothing distinguishes the tokens.

    Raises:
        ValueError: if a probability is negative or not finite.
    """
    values = {tok: float(probs.get(tok, 0.0)) for tok in group.tokens}
    for tok, p in values.items():
        if p < 0 or not math.isfinite(p):
            msg = f"probability of {tok} must be a finite number >= 0, got {p}"
            raise ValueError(msg)
    total = sum(values.values())
    if total == 0:
        return {tok: 1.0 / len(values) for tok in values}
    return {tok: p / total for tok, p in values.items()}


def from_logprobs(group: Group, logprobs: Mapping[str, float]) -> dict[str, float]:
    """A normalised group distribution from log-probabilities (a softmax over the group's tokens).

    The reference code divides raw log-probabilities; this takes ``exp`` first, as the paper defines.
    Tokens missing from ``logprobs`` get probability 0.
    """
    present = {tok: lp for tok, lp in logprobs.items() if tok in group.tokens and lp > -math.inf}
    if not present:
        return normalize(group, {})
    top = max(present.values())
    return normalize(group, {tok: math.exp(lp - top) for tok, lp in present.items()})


def retrieve_probability(dist: Distribution) -> float:
    """p([Retrieval]) / (p([Retrieval]) + p([No Retrieval])); 0.5 when both are 0."""
    yes, no = dist.get(RETRIEVAL, 0.0), dist.get(NO_RETRIEVAL, 0.0)
    return 0.5 if yes + no == 0 else yes / (yes + no)


def relevance_score(dist: Distribution) -> float:
    """s_rel = p([Relevant]) / (p([Relevant]) + p([Irrelevant]))."""
    rel, irr = dist.get(RELEVANT, 0.0), dist.get(IRRELEVANT, 0.0)
    return 0.0 if rel + irr == 0 else rel / (rel + irr)


def support_score(dist: Distribution) -> float:
    """s_sup = p(Fully)/S + 0.5 * p(Partially)/S, S the sum over the three IsSup tokens."""
    total = sum(dist.get(tok, 0.0) for tok in GROUP_TOKENS[Group.ISSUP])
    if total == 0:
        return 0.0
    return (dist.get(FULLY_SUPPORTED, 0.0) + 0.5 * dist.get(PARTIALLY_SUPPORTED, 0.0)) / total


def utility_score(dist: Distribution) -> float:
    """s_use = sum_i w_i p([Utility:i]) / S with w = (-1, -0.5, 0, 0.5, 1), S over the five tokens."""
    total = sum(dist.get(tok, 0.0) for tok in UTILITY)
    if total == 0:
        return 0.0
    return sum(w * dist.get(tok, 0.0) for w, tok in zip(UTILITY_WEIGHTS, UTILITY, strict=True)) / total


def should_retrieve(mode: RetrieveMode, dist: Distribution | None, threshold: float) -> bool:
    """The retrieve decision for a mode, given the judge's Retrieve distribution.

    ``adaptive`` retrieves when the normalised p([Retrieval]) exceeds ``threshold``; ``hard`` when
    ``[Retrieval]`` is more likely than ``[No Retrieval]``. Without a distribution both retrieve, the
    safer choice for grounded answers.
    """
    if mode is RetrieveMode.ALWAYS:
        return True
    if mode is RetrieveMode.NEVER:
        return False
    if dist is None:
        return True
    p = retrieve_probability(dist)
    return p > threshold if mode is RetrieveMode.ADAPTIVE else p > 0.5


WEIGHT_RANGE: tuple[float, float] = (0.0, 10.0)
"""The values each critique weight may take, ends included. 0 leaves a term out; the sequence
probability and every critique score lie within [-1, 1], so at 10 one term already outweighs all the
others at their defaults; a negative weight would prefer passages judged irrelevant or unsupported."""


def check_weight(name: str, value: float) -> float:
    """``value`` if it is a usable critique weight (within :data:`WEIGHT_RANGE`).

    Raises:
        ConfigurationError: naming ``name`` (``w_sup``, ``--w-sup``), the value and the range.
    """
    low, high = WEIGHT_RANGE
    if not math.isfinite(value):
        msg = f"{name} must be a finite number, got {value}"
        raise ConfigurationError(msg)
    if not low <= value <= high:
        msg = f"{name} must be between {low:g} and {high:g}, got {value:g}"
        raise ConfigurationError(msg)
    return value


@dataclass(frozen=True)
class ScoringWeights:
    """Weights of the critique terms in the segment score, and whether the sequence term counts.

    Each weight lies in :data:`WEIGHT_RANGE` (0 to 10); construction refuses anything else.
    """

    w_rel: float = 1.0
    """Weight of the IsRel score s_rel (0 to 10)."""
    w_sup: float = 1.0
    """Weight of the IsSup score s_sup (0 to 10)."""
    w_use: float = 0.5
    """Weight of the IsUse score s_use (0 to 10)."""
    use_sequence_probability: bool = True
    """Add exp(mean token log-probability) of the segment, as the reference implementation does."""

    def __post_init__(self) -> None:
        for name in ("w_rel", "w_sup", "w_use"):
            check_weight(name, getattr(self, name))


@dataclass(frozen=True)
class HardConstraints:
    """Drop a branch outright, instead of down-weighting it, when its judge says so."""

    drop_unsupported: bool = False
    """Drop a branch whose most likely IsSup token is ``[No support / Contradictory]``."""
    drop_irrelevant: bool = False
    """Drop a branch whose most likely IsRel token is ``[Irrelevant]``."""
    min_name_coverage: float = 0.0
    """Drop a branch whose passage holds less than this share of the names the question names (given to
    :meth:`violation` as ``name_coverage``), or whose quote speaks of another thing than the question names
    (``speaks_of_asked``); 0 drops none."""

    def violation(self, rel: Distribution | None, sup: Distribution | None,
                  name_coverage: float | None = None, speaks_of_asked: bool | None = None) -> str | None:
        """The reason a branch is dropped, or None when it satisfies the constraints. ``name_coverage`` is the
        share of the question's names its passage holds (None: not measured, never dropped for it);
        ``speaks_of_asked`` whether its quote speaks of what the question names
        (:func:`~selfrag_langchain.chains.names.speaks_of_asked`; None: not read, never dropped for it)."""
        if self.drop_irrelevant and rel and argmax(rel) == IRRELEVANT:
            return f"dropped: IsRel is {IRRELEVANT}"
        if self.drop_unsupported and sup and argmax(sup) == NO_SUPPORT:
            return f"dropped: IsSup is {NO_SUPPORT}"
        if name_coverage is not None and name_coverage < self.min_name_coverage:
            return f"dropped: the passage holds {name_coverage:.0%} of the question's names"
        if speaks_of_asked is False and self.min_name_coverage > 0.0:
            return "dropped: the quote speaks of another thing than the question names"
        return None


@dataclass(frozen=True)
class ScoreBreakdown:
    """Each term of ``f = p(y) + w_rel s_rel + w_sup s_sup + w_use s_use`` and the total.

    A term whose distribution is unavailable (the judge was not asked, or the token was not emitted)
    is ``None`` and contributes 0 to the total.
    """

    sequence_probability: float | None
    relevance: float | None
    support: float | None
    utility: float | None
    weights: ScoringWeights
    total: float

    def terms(self) -> dict[str, float | None]:
        """Each term, each weight and the total, flat (the shape the result's trace reports)."""
        return {
            "sequence_probability": self.sequence_probability,
            "relevance": self.relevance,
            "support": self.support,
            "utility": self.utility,
            "w_rel": self.weights.w_rel,
            "w_sup": self.weights.w_sup,
            "w_use": self.weights.w_use,
            "total": self.total,
        }


def score_branch(
    *,
    mean_logprob: float | None,
    relevance: Distribution | None,
    support: Distribution | None,
    utility: Distribution | None,
    weights: ScoringWeights,
) -> ScoreBreakdown:
    """The segment score of one branch (paper A.3), each term kept for the trace."""
    seq = math.exp(mean_logprob) if mean_logprob is not None and weights.use_sequence_probability else None
    rel = relevance_score(relevance) if relevance is not None else None
    sup = support_score(support) if support is not None else None
    use = utility_score(utility) if utility is not None else None
    total = (
        (seq or 0.0)
        + weights.w_rel * (rel or 0.0)
        + weights.w_sup * (sup or 0.0)
        + weights.w_use * (use or 0.0)
    )
    return ScoreBreakdown(seq, rel, sup, use, weights, total)


def argmax(dist: Distribution) -> str:
    """The most likely token of a distribution (first in group order on ties)."""
    return max(dist, key=lambda tok: dist[tok])


def best_index(totals: Sequence[float | None], margin: float = 0.0) -> int | None:
    """Index of the highest total, skipping dropped branches (None); None if all are dropped. With ``margin``,
    the first index (the retriever's higher-ranked passage) of those within ``margin`` of the highest."""
    kept = [t for t in totals if t is not None]
    if not kept:
        return None
    best = max(kept)
    return next(i for i, t in enumerate(totals) if t is not None and t >= best - margin)


def aggregate_options(options: Iterable[str | None], totals: Iterable[float | None]) -> dict[str, float]:
    """Closed-set tasks: the summed score of the branches that chose each option (paper A.3).

    Branches without an extractable option or dropped by a hard constraint (``None``) are skipped.
    """
    sums: dict[str, float] = {}
    for option, total in zip(options, totals, strict=True):
        if option is not None and total is not None:
            sums[option] = sums.get(option, 0.0) + total
    return sums
