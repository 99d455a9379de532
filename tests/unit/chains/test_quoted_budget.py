"""A branch answered by its quote is written only as far as it points: ``max_quoted_branch_tokens``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.outputs import Generation, LLMResult
from pydantic import Field, ValidationError

from selfrag_langchain.chains.branches import PreparedPassage, branch_budget, to_branches
from selfrag_langchain.chains.quotes import PassageQuoter
from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.judging import CalibratedReflector
from selfrag_langchain.llms.base import INFO_KEY, GenerationStats
from selfrag_langchain.pipeline import PipelineSettings
from tests.fakes.bag_of_words import BagOfWords

BLACKBEARD = Document(
    page_content="Blackbeard was a pirate of the West Indies. Edward Teach, better known as Blackbeard, was an "
                 "English pirate. His flagship was Queen Anne's Revenge.",
    metadata={"title": "Blackbeard"})
QUESTION = "What was the real name of the pirate Blackbeard?"
GENERATED = "The real name of the pirate Blackbeard was Edward Teach."
TEACH = "Edward Teach, better known as Blackbeard, was an English pirate."


class BudgetLLM(FakeListLLM):
    """Answers from its list and keeps the token budget of every call (a backend that takes ``max_new_tokens``)."""

    max_new_tokens: int = 60
    budgets: list[int] = Field(default_factory=list)

    def _call(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        self.budgets.append(kwargs["max_new_tokens"])
        return super()._call(prompt, *args, **kwargs)

    async def _acall(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        return self._call(prompt, *args, **kwargs)


def _rag(quoter: PassageQuoter | None, **knobs: Any) -> tuple[SelfRAG, BudgetLLM]:
    llm = BudgetLLM(responses=[GENERATED])
    rag = SelfRAG(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always", k=1,
                  quoter=quoter, min_name_coverage=0.0, decline=False, **knobs)
    return rag, llm


def test_a_quoted_branch_is_written_with_the_quoted_budget_and_still_quotes_its_sentence() -> None:
    rag, llm = _rag(PassageQuoter(embeddings=BagOfWords()))
    result = rag.invoke({"question": QUESTION, "passages": [BLACKBEARD]})
    assert llm.budgets == [16]
    assert result.answer == TEACH and result.settings["max_quoted_branch_tokens"] == 16

    rag, llm = _rag(PassageQuoter(embeddings=BagOfWords()), max_quoted_branch_tokens=5)
    asyncio.run(rag.ainvoke({"question": QUESTION, "passages": [BLACKBEARD]}))
    assert llm.budgets == [5]


def test_a_generation_that_is_the_answer_keeps_the_whole_budget() -> None:
    rag, llm = _rag(None)
    assert rag.invoke({"question": QUESTION, "passages": [BLACKBEARD]}).answer == GENERATED
    assert llm.budgets == [60]

    rag, llm = _rag(PassageQuoter(embeddings=BagOfWords()))
    rag.invoke({"question": "Blackbeard was a", "choices": {"A": "pirate", "B": "king"}, "passages": [BLACKBEARD]})
    assert llm.budgets == [60]  # an answer among options is the option, not a quote

    rag, llm = _rag(PassageQuoter(embeddings=BagOfWords()), max_new_tokens=10)
    rag.invoke({"question": QUESTION, "passages": [BLACKBEARD]})
    assert llm.budgets == [10]  # never more than max_new_tokens


def test_the_budget_follows_the_quote_and_the_prompt_format() -> None:
    assert branch_budget(60, 16, quoted=True, prompt_format="rag") == (16, "max_quoted_branch_tokens")
    assert branch_budget(60, 16, quoted=False, prompt_format="rag") == (60, "max_new_tokens")
    # The released generator's format writes its judgement after the answer: it is not cut.
    assert branch_budget(60, 16, quoted=True, prompt_format="selfrag") == (60, "max_new_tokens")
    assert branch_budget(12, 16, quoted=True, prompt_format="rag") == (12, "max_new_tokens")


def test_a_generation_that_reaches_its_budget_names_the_setting() -> None:
    stats = GenerationStats(num_tokens=16, sum_logprob=-4.0, finish_reason="length")
    result = LLMResult(generations=[[Generation(text=GENERATED, generation_info={INFO_KEY: stats})]])
    passage = PreparedPassage(document=BLACKBEARD, evidence=f"Blackbeard\n{BLACKBEARD.page_content}")
    (branch,) = to_branches(result, [passage], budget="max_quoted_branch_tokens")
    assert branch.notes == ["generation reached max_quoted_branch_tokens"]
    (branch,) = to_branches(result, [passage])
    assert branch.notes == ["generation reached max_new_tokens"]


def test_a_quoted_budget_below_one_is_refused() -> None:
    with pytest.raises(ValidationError, match="max_quoted_branch_tokens must be >= 1, got 0"):
        _rag(PassageQuoter(embeddings=BagOfWords()), max_quoted_branch_tokens=0)
    with pytest.raises(ValidationError, match="max_quoted_branch_tokens must be >= 1, got 0"):
        PipelineSettings(max_quoted_branch_tokens=0)


def test_the_quoted_top1_baseline_writes_with_the_same_budget_and_plain_top1_with_the_whole() -> None:
    from selfrag_langchain.eval.examples import EvalExample
    from selfrag_langchain.eval.methods import BaselineMethod
    from selfrag_langchain.eval.tasks import TASKS

    example = EvalExample(key="q", line=1, question=QUESTION, answers=("Edward Teach",), passages=[BLACKBEARD])
    quoted = BaselineMethod(name="rag_top1_quoted", generator=BudgetLLM(responses=[GENERATED]),
                            quoter=PassageQuoter(embeddings=BagOfWords()))
    assert quoted.answer(example, TASKS["popqa"]).prediction == TEACH
    assert quoted.generator.budgets == [16] and quoted.settings()["max_quoted_branch_tokens"] == 16
    plain = BaselineMethod(name="rag_top1", generator=BudgetLLM(responses=[GENERATED]))
    assert plain.answer(example, TASKS["popqa"]).prediction == GENERATED
    assert plain.generator.budgets == [60] and plain.settings()["max_quoted_branch_tokens"] is None
