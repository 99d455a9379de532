"""Scoring judged branches and choosing the answer: pure, shared by every Runnable."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from selfrag_langchain.chains.quotes import QUOTE_SUPPORT, Quote
from selfrag_langchain.judging import Branch, Critique
from selfrag_langchain.results import BranchTrace, ScoreTerms
from selfrag_langchain.scoring import (
    HardConstraints,
    ScoringWeights,
    aggregate_options,
    best_index,
    score_branch,
)
from selfrag_langchain.tokens import UTILITY


@dataclass(frozen=True)
class Selection:
    """The traces of all branches, the chosen one, and per-option sums for closed-set questions."""

    traces: list[BranchTrace]
    selected: int | None
    option: str | None
    option_scores: dict[str, float] | None
    notes: list[str]


def extract_option(answer: str, choices: Mapping[str, str]) -> str | None:
    """The option a free-text answer chose: a label like ``A``, ``(A)``, ``A:``, or an option's text.

    A label counts only when punctuation or the end follows it, so "A lot of..." chooses nothing.

    Label forms are tried first; then the option whose text occurs in the answer (longest first, so
    that one option's text inside another's does not win). Case-insensitive.
    """
    if not choices:
        return None
    labels = "|".join(re.escape(label) for label in sorted(choices, key=len, reverse=True))
    prefix = r"(?:(?:the\s+)?(?:correct\s+)?answer\s*(?:is)?\s*:?\s*)?"
    match = re.match(rf"^\W*{prefix}\(?({labels})(?:\)|:|\.|,|$)", answer.strip(), re.I)
    if match:
        found = match.group(1)
        return next(label for label in choices if label.lower() == found.lower())
    lowered = answer.lower()
    for label, text in sorted(choices.items(), key=lambda kv: len(kv[1]), reverse=True):
        if text.strip() and text.strip().lower() in lowered:
            return label
    return None


def quoted_critique(critique: Critique, answering: float | None) -> Critique:
    """The critique of a branch's quote rather than its generation: the quote is its passage's own words, so
    IsSup is ``[Fully supported]``; IsRel stays the passage's; IsUse is the reader's probability ``answering``
    that the quote answers the question, as ``[Utility:5]`` against ``[Utility:1]`` (s_use = 2 p - 1), or the
    judge's IsUse of the generation without a reader."""
    utility = critique.utility
    if answering is not None:
        utility = {token: 0.0 for token in UTILITY} | {UTILITY[-1]: answering, UTILITY[0]: 1.0 - answering}
    return Critique(relevance=critique.relevance, support=dict(QUOTE_SUPPORT), utility=utility,
                    notes=critique.notes)


def select(
    branches: Sequence[Branch],
    critiques: Sequence[Critique],
    *,
    weights: ScoringWeights,
    constraints: HardConstraints,
    choices: Mapping[str, str] | None = None,
    name_coverage: Sequence[float | None] | None = None,
    speaks_of_asked: Sequence[bool | None] | None = None,
    quotes: Sequence[Quote | None] | None = None,
    retrieval_order_margin: float = 0.0,
    written: Sequence[bool] | None = None,
) -> Selection:
    """Score every branch, apply hard constraints, and pick the answer (paper Section 3.3, A.3).

    ``name_coverage``: each branch's share of the question's names that its passage holds, for the
    constraint :attr:`~selfrag_langchain.scoring.HardConstraints.min_name_coverage` (see
    :func:`~selfrag_langchain.chains.names.name_coverages`); ``speaks_of_asked``: whether each branch's quote
    speaks of what the question names, for the same constraint
    (:func:`~selfrag_langchain.chains.declining.branch_subject_checks`).

    ``quotes``: each branch's quote (:class:`~selfrag_langchain.chains.quotes.PassageQuoter`), the answer it gives
    when chosen. A quoted branch is scored as what it shows: by :func:`quoted_critique`, without the sequence
    term, since the generation's probability says nothing of a sentence it did not write. The trace keeps the
    judge's distributions of the generation.

    Open questions take the branch with the highest total, or, of the branches within
    ``retrieval_order_margin`` of it, the one whose passage the retriever ranked first (a difference that small
    is the judge's noise; :attr:`~selfrag_langchain.chains.controls.LoopSettings.retrieval_order_margin`).
    Closed-set questions sum the totals of
    the branches per option and take the option with the largest sum, then its best branch. If every
    branch violates a hard constraint, the best-scoring branch is chosen anyway and a note says so.

    ``written``: whether each branch was generated (None: all were). A branch left unwritten
    (:func:`~selfrag_langchain.chains.names.moot_reasons`,
    :func:`~selfrag_langchain.chains.prospects.out_of_reach`) is never chosen while a written one remains.
    """
    traces: list[BranchTrace] = []
    totals: list[float | None] = []
    options: list[str | None] = []
    shown = list(quotes) if quotes is not None else [None] * len(branches)
    for i, (branch, critique, quote) in enumerate(zip(branches, critiques, shown, strict=True)):
        scored = quoted_critique(critique, quote.answering) if quote is not None else critique
        breakdown = score_branch(
            mean_logprob=branch.stats.mean_logprob if branch.stats and quote is None else None,
            relevance=scored.relevance,
            support=scored.support,
            utility=scored.utility,
            weights=weights,
        )
        dropped = constraints.violation(scored.relevance, scored.support,
                                        name_coverage[i] if name_coverage is not None else None,
                                        speaks_of_asked[i] if speaks_of_asked is not None else None)
        option = extract_option(branch.answer, choices) if choices else None
        traces.append(
            BranchTrace(
                index=i,
                passage=branch.passage,
                raw_generation=branch.raw,
                answer=branch.answer,
                option=option,
                distributions=critique.distributions(),
                scores=ScoreTerms(**breakdown.terms()),
                dropped=dropped,
                quote=quote.text if quote is not None else None,
                quote_answering=quote.answering if quote is not None else None,
                quote_holds_answer=quote.holds_answer if quote is not None else None,
                written=written[i] if written is not None else True,
                notes=[*branch.notes, *critique.notes],
            )
        )
        totals.append(None if dropped else breakdown.total)
        options.append(option)

    notes: list[str] = []
    eligible = [t.written for t in traces] if any(t.written for t in traces) else [True] * len(traces)
    totals = [total if ok else None for total, ok in zip(totals, eligible, strict=True)]
    if traces and all(t is None for t in totals):
        notes.append("every branch violated a hard constraint: chose the best-scoring branch anyway")
        totals = [t.scores.total if ok else None for t, ok in zip(traces, eligible, strict=True)]

    if choices:
        sums = aggregate_options(options, totals)
        if sums:
            best_option = max(sums, key=lambda o: (sums[o], -list(choices).index(o)))
            in_option = [t if o == best_option else None for t, o in zip(totals, options, strict=True)]
            return Selection(traces, best_index(in_option), best_option, sums, notes)
        notes.append("no branch named an answer option: chose the best-scoring branch")
        return Selection(traces, best_index(totals), None, {}, notes)
    return Selection(traces, best_index(totals, retrieval_order_margin), None, None, notes)
