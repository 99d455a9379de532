"""Which branches could win before a word of them is written: a quoted branch's best prospect.

A branch answered by its quote is scored as that quote (:func:`~selfrag_langchain.chains.selection.
quoted_critique`): its passage's IsRel, IsSup fully supported, and IsUse the probability that the quote answers
the question (the sentence reader's, blended with the answer finder's: :meth:`~selfrag_langchain.chains.quotes.
PassageQuoter.readings`). Its generation only chooses which of its passage's sentences is quoted. So before
generating, the most a branch can score is known: its IsRel with the best reading of any sentence of its passage.
A branch whose best prospect falls more than :attr:`~selfrag_langchain.chains.controls.LoopSettings.
writing_margin` below the best branch's is left unwritten (the reader weighs three times the generation in the
choice of quote, so the best branch's quote is nearly always its best-read sentence, and scores near its
prospect).

Long form keeps ``beam_width`` beams rather than one branch: a candidate segment's prospect bounds the score of
the beam it would make (:func:`beam_bound`), and a candidate is left unwritten when that bound falls more than the
margin below the ``beam_width``-th best of the bounds and of the finished beams' scores (at the first step, which
keeps one candidate with ``answer_first``, below the best by more than the larger of the margin and
``retrieval_order_margin``, as in short form).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from selfrag_langchain.chains.quotes import QUOTE_SUPPORT
from selfrag_langchain.chains.selection import quoted_critique
from selfrag_langchain.judging import Critique
from selfrag_langchain.scoring import Distribution, HardConstraints, ScoringWeights, score_branch


class Prospects(NamedTuple):
    """What is read of each passage before its branch is written: its IsRel, its best reading (of the sentences
    it may still quote), and its best reading of those whose quote speaks of what the question names (None where
    none does; the best reading when that is not asked)."""

    relevance: list[Distribution]
    best: list[float | None]
    best_on_subject: list[float | None]


def also_barred(taken: Sequence[frozenset[str]] | None, off_subject: Sequence[frozenset[str]] | None,
                count: int) -> list[frozenset[str]] | None:
    """For each of ``count`` passages, the quotes it may not give (``taken``) with those that speak of another
    thing than the question names (``off_subject``); None when no passage has such a quote."""
    if off_subject is None or not any(off_subject):
        return None
    earlier = list(taken) if taken is not None else [frozenset()] * count
    return [t | o for t, o in zip(earlier, off_subject, strict=True)]


def prospect(relevance: Distribution, best_answering: float, weights: ScoringWeights) -> float:
    """The score of a branch quoting its passage's best-read sentence: the most a quoted branch can score."""
    scored = quoted_critique(Critique(relevance=dict(relevance)), best_answering)
    return score_branch(mean_logprob=None, relevance=scored.relevance, support=scored.support,
                        utility=scored.utility, weights=weights).total


def prospects_of(relevance: Sequence[Distribution], best: Sequence[float | None], weights: ScoringWeights,
                 constraints: HardConstraints, best_on_subject: Sequence[float | None] | None = None
                 ) -> tuple[list[float | None], list[float | None]]:
    """Each branch's prospect from its IsRel and its passage's best reading (None where no sentence was read), and
    what it counts towards the bar (None: nothing). A branch a hard constraint will drop for its IsRel counts
    nothing. ``best_on_subject``, when given, is each passage's best reading among the sentences whose quote
    speaks of what the question names (None where none does: :func:`~selfrag_langchain.chains.declining.
    off_subject_quotes`): selection drops a branch whose quote speaks of another thing while another branch's
    quote passes, so a branch counts only what its passing quotes could score, unless no passage has one (then
    selection drops none for it, and every branch counts its prospect)."""
    prospects = [prospect(rel, answering, weights) if answering is not None else None
                 for rel, answering in zip(relevance, best, strict=True)]
    counted = prospects
    if (best_on_subject is not None and constraints.min_name_coverage > 0.0
            and any(b is not None for b in best_on_subject)):
        counted = [prospect(rel, answering, weights) if answering is not None else None
                   for rel, answering in zip(relevance, best_on_subject, strict=True)]
    return prospects, [p if constraints.violation(rel, QUOTE_SUPPORT) is None else None
                       for rel, p in zip(relevance, counted, strict=True)]


def beam_bound(prospect: float, score_sum: float, count: int, how: str) -> float:
    """The sequence score a beam with ``count`` segments scoring ``score_sum`` in all would have with one more
    segment scoring ``prospect``, ranked by the sum or the mean of its segment scores (``how``)."""
    total = score_sum + prospect
    return total if how == "sum" else total / (count + 1)


def out_of_reach(prospects: Sequence[float | None], margin: float, bars: Sequence[float | None] | None = None, *,
                 kept: int = 1, settled: Sequence[float] = (), beams: bool = False) -> list[str | None]:
    """For each branch's prospect (None: unknown, and so written), why it need not be written, or None where it
    must: a prospect more than ``margin`` below the bar, the ``kept``-th best of what each branch counts towards it
    (``bars``, from :func:`prospects_of`; None: its prospect; a branch counting None counts nothing) and of the
    ``settled`` scores (long form's finished beams, which stay in the running as they are). ``beams``: the
    prospects are the bounds of the beams long-form candidates would make (:func:`beam_bound`), and the notes say
    so."""
    counted = sorted([p for p in (bars if bars is not None else prospects) if p is not None] + list(settled),
                     reverse=True)
    if len(counted) < kept:
        return [None] * len(prospects)
    bar = counted[kept - 1]
    if beams:
        place = "best" if kept == 1 else f"{_ordinal(kept)} best"
        could, below = "with its best sentence its beam could score", f"the {place} beam's"
    else:
        could, below = "its best sentence could score", "the best branch's"
    return [f"{could} {p:.2f}, more than {margin:g} below {below} {bar:.2f}: not expected to be chosen "
            "(writing_margin)" if p is not None and p < bar - margin else None for p in prospects]


def _ordinal(n: int) -> str:
    return {2: "second", 3: "third"}.get(n, f"{n}th")
