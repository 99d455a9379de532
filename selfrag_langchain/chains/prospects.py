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
margin below the ``beam_width``-th best of the bounds and of the finished beams' scores.
"""

from __future__ import annotations

from collections.abc import Sequence

from selfrag_langchain.chains.quotes import QUOTE_SUPPORT
from selfrag_langchain.chains.selection import quoted_critique
from selfrag_langchain.judging import Critique
from selfrag_langchain.scoring import Distribution, HardConstraints, ScoringWeights, score_branch


def prospect(relevance: Distribution, best_answering: float, weights: ScoringWeights) -> float:
    """The score of a branch quoting its passage's best-read sentence: the most a quoted branch can score."""
    scored = quoted_critique(Critique(relevance=dict(relevance)), best_answering)
    return score_branch(mean_logprob=None, relevance=scored.relevance, support=scored.support,
                        utility=scored.utility, weights=weights).total


def prospects_of(relevance: Sequence[Distribution], best: Sequence[float | None], weights: ScoringWeights,
                 constraints: HardConstraints, could_speak_of_asked: Sequence[bool | None] | None = None
                 ) -> tuple[list[float | None], list[bool]]:
    """Each branch's prospect from its IsRel and its passage's best reading (None where no sentence was read), and
    whether it sets the bar: a branch a hard constraint will drop for its IsRel sets none, nor, when
    ``could_speak_of_asked`` says so, one whose passage gives no quote that speaks of what the question names
    (the whole passage read as its quote: :func:`~selfrag_langchain.chains.names.speaks_of_asked`)."""
    prospects = [prospect(rel, answering, weights) if answering is not None else None
                 for rel, answering in zip(relevance, best, strict=True)]
    speaks = could_speak_of_asked if could_speak_of_asked is not None else [None] * len(relevance)
    return prospects, [constraints.violation(rel, QUOTE_SUPPORT, speaks_of_asked=could) is None
                       for rel, could in zip(relevance, speaks, strict=True)]


def beam_bound(prospect: float, score_sum: float, count: int, how: str) -> float:
    """The sequence score a beam with ``count`` segments scoring ``score_sum`` in all would have with one more
    segment scoring ``prospect``, ranked by the sum or the mean of its segment scores (``how``)."""
    total = score_sum + prospect
    return total if how == "sum" else total / (count + 1)


def out_of_reach(prospects: Sequence[float | None], margin: float, sets_bar: Sequence[bool] | None = None, *,
                 kept: int = 1, settled: Sequence[float] = (), beams: bool = False) -> list[str | None]:
    """For each branch's prospect (None: unknown, and so written), why it need not be written, or None where it
    must: a prospect more than ``margin`` below the bar, the ``kept``-th best of the prospects that ``sets_bar``
    (None: all; a branch a hard constraint will drop sets none) and of the ``settled`` scores (long form's
    finished beams, which stay in the running as they are). ``beams``: the prospects are the bounds of the beams
    long-form candidates would make (:func:`beam_bound`), and the notes say so."""
    counted = sorted([p for i, p in enumerate(prospects) if p is not None and (sets_bar is None or sets_bar[i])]
                     + list(settled), reverse=True)
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
