"""Which branches could win before a word of them is written: a quoted branch's best prospect.

A branch answered by its quote is scored as that quote (:func:`~selfrag_langchain.chains.selection.
quoted_critique`): its passage's IsRel, IsSup fully supported, and IsUse the sentence reader's probability that
the quote answers the question. Its generation only chooses which of its passage's sentences is quoted. So before
generating, the most a branch can score is known: its IsRel with the best reading of any sentence of its passage.
A branch whose best prospect falls more than :attr:`~selfrag_langchain.chains.controls.LoopSettings.
writing_margin` below the best branch's is left unwritten (the reader weighs three times the generation in the
choice of quote, so the best branch's quote is nearly always its best-read sentence, and scores near its
prospect).
"""

from __future__ import annotations

from collections.abc import Sequence

from selfrag_langchain.chains.selection import quoted_critique
from selfrag_langchain.judging import Critique
from selfrag_langchain.scoring import Distribution, ScoringWeights, score_branch


def prospect(relevance: Distribution, best_answering: float, weights: ScoringWeights) -> float:
    """The score of a branch quoting its passage's best-read sentence: the most a quoted branch can score."""
    scored = quoted_critique(Critique(relevance=dict(relevance)), best_answering)
    return score_branch(mean_logprob=None, relevance=scored.relevance, support=scored.support,
                        utility=scored.utility, weights=weights).total


def out_of_reach(prospects: Sequence[float | None], margin: float, sets_bar: Sequence[bool] | None = None
                 ) -> list[str | None]:
    """For each branch's prospect (None: unknown, and so written), why it need not be written, or None where it
    must: a prospect more than ``margin`` below the best of those that ``sets_bar`` (None: all; a branch a hard
    constraint will drop sets none)."""
    counted = [p for i, p in enumerate(prospects) if p is not None and (sets_bar is None or sets_bar[i])]
    if not counted:
        return [None] * len(prospects)
    best = max(counted)
    return [f"its best sentence could score {p:.2f}, more than {margin:g} below the best branch's {best:.2f}: "
            "not expected to be chosen (writing_margin)"
            if p is not None and p < best - margin else None for p in prospects]
