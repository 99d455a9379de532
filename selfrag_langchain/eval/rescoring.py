"""Re-deciding and re-selecting from a recorded trace, without generating again.

A Self-RAG trace keeps, for every branch, its answer, its sequence probability, the judge's IsRel, IsSup and
IsUse distributions, and its quote with the reader's reading of it. Nothing else enters the selection, so
another weight, constraint or option set gives its answer by running the same pure
:func:`~selfrag_langchain.chains.selection.select` on the trace: this is how sweeps reuse generations and how
PubHealth sums branch scores per label.
"""

from __future__ import annotations

import math

from selfrag_langchain.chains.declining import DECLINED, branch_subject_checks, declines, shown_answer
from selfrag_langchain.chains.inputs import Question
from selfrag_langchain.chains.names import name_coverages
from selfrag_langchain.chains.quotes import Quote
from selfrag_langchain.chains.selection import select
from selfrag_langchain.chains.typos import read_question
from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.tasks import Task
from selfrag_langchain.judging import Branch, Critique
from selfrag_langchain.llms.base import GenerationStats
from selfrag_langchain.prompts import format_passage
from selfrag_langchain.results import BranchTrace, SelfRAGResult
from selfrag_langchain.scoring import HardConstraints, ScoringWeights
from selfrag_langchain.tokens import Group, ParsedGeneration


def _stats(trace: BranchTrace) -> GenerationStats | None:
    """Stats whose mean log-probability gives back the recorded sequence probability."""
    seq = trace.scores.sequence_probability
    if seq is None:
        return None
    return GenerationStats(num_tokens=1, sum_logprob=math.log(seq) if seq > 0 else -math.inf)


def _branch(trace: BranchTrace, task: Task) -> tuple[Branch, Critique]:
    branch = Branch(passage=trace.passage, evidence=None, raw=trace.raw_generation,
                    answer=task.option_answer(trace.answer), parsed=ParsedGeneration(), stats=_stats(trace))
    dists = trace.distributions
    critique = Critique(relevance=dists.get(str(Group.ISREL)), support=dists.get(str(Group.ISSUP)),
                        utility=dists.get(str(Group.ISUSE)))
    return branch, critique


def reselect(
    result: SelfRAGResult,
    task: Task,
    example: EvalExample,
    *,
    weights: ScoringWeights,
    constraints: HardConstraints,
) -> str:
    """The answer ``result``'s branches give under ``weights`` and ``constraints``.

    Closed-set tasks sum the branch scores per answer option (ARC's choices, PubHealth's true / false)
    and return the winning option's label; other tasks return the best branch's answer (its quote when the run
    quoted), as the short-form Runnable does, or :data:`DECLINED` when the run declined unfounded answers and
    this one is.
    """
    if not result.branches:
        return result.answer
    pairs = [_branch(t, task) for t in result.branches]
    choices = task.options(example)
    evidence = [format_passage(t.passage.metadata.get("title") or None, t.passage.page_content)
                if t.passage is not None else None for t in result.branches]  # as the models read them
    question = result.question if choices else read_question(  # as the run's rules read it
        Question(result.question), [t.passage for t in result.branches if t.passage is not None], []).question
    coverage = None if choices else name_coverages(question, evidence, constraints.min_name_coverage)
    quotes = None if choices else [Quote(t.quote, t.quote_answering, t.quote_holds_answer)
                                   if t.quote is not None else None for t in result.branches]
    selection = select([b for b, _ in pairs], [c for _, c in pairs], weights=weights, constraints=constraints,
                       choices=choices, name_coverage=coverage, quotes=quotes,
                       speaks_of_asked=None if choices else branch_subject_checks(
                           question, [t.quote for t in result.branches], [t.passage for t in result.branches],
                           evidence, constraints.min_name_coverage),
                       retrieval_order_margin=result.settings.get("retrieval_order_margin", 0.0),
                       written=[t.written for t in result.branches])
    if selection.option:
        return selection.option
    chosen = selection.traces[selection.selected] if selection.selected is not None else None
    if result.settings.get("decline") and not task.options(example) and declines(
            question, chosen, evidence, constraints.min_name_coverage,
            result.settings.get("min_quote_answering", 0.0), result.settings.get("min_quote_holds_answer", 0.0)):
        return DECLINED  # as the run itself would have, scored without the closest passages' titles
    if selection.selected is None:
        return ""
    picked = result.branches[selection.selected]
    return shown_answer(picked)  # quoted, as the run answers when it quotes
