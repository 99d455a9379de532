"""A branch whose best prospect is out of reach is left unwritten: ``writing_margin``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from pydantic import Field, ValidationError

from selfrag_langchain.chains.prospects import out_of_reach, prospect
from selfrag_langchain.chains.quotes import PassageQuoter, Quote
from selfrag_langchain.chains.selection import select
from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.judging import Branch, CalibratedReflector, Critique
from selfrag_langchain.pipeline import PipelineSettings
from selfrag_langchain.results import SelfRAGResult
from selfrag_langchain.scoring import HardConstraints, ScoringWeights
from selfrag_langchain.tokens import IRRELEVANT, RELEVANT, ParsedGeneration
from tests.fakes.bag_of_words import BagOfWords
from tests.fakes.table_reader import TableReader

KANT = Document(page_content="Immanuel Kant was a German philosopher. Born in Königsberg, he taught there all his "
                             "life.", metadata={"title": "Immanuel Kant"})
FICHTE = Document(page_content="Johann Gottlieb Fichte was a German philosopher who studied the writings of "
                               "Immanuel Kant.", metadata={"title": "Johann Gottlieb Fichte"})
QUESTION = "In which city was the philosopher Immanuel Kant born?"


class PromptLLM(FakeListLLM):
    """Answers from its list and keeps every prompt it was asked to write from."""

    prompts: list[str] = Field(default_factory=list)

    def _call(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        self.prompts.append(prompt)
        return super()._call(prompt, *args, **kwargs)

    async def _acall(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        return self._call(prompt, *args, **kwargs)


def _run(fichte_reads: float, *, asynchronous: bool = False, reader: bool = True,
         **knobs: Any) -> tuple[SelfRAGResult, PromptLLM]:
    readings = TableReader(answering=lambda q, s: 0.9 if "Königsberg" in s else fichte_reads if "Fichte" in s
                           else 0.05)
    llm = PromptLLM(responses=["Kant was born in Königsberg.", "Fichte studied Kant."])
    rag = SelfRAG(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always", k=2,
                  quoter=PassageQuoter(embeddings=BagOfWords(), reader=readings if reader else None),
                  min_name_coverage=0.0, decline=False, **knobs)
    request = {"question": QUESTION, "passages": [KANT, FICHTE]}
    result = asyncio.run(rag.ainvoke(request)) if asynchronous else rag.invoke(request)
    return result, llm


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_branch_whose_best_sentence_cannot_bring_it_near_the_best_is_not_written(asynchronous: bool) -> None:
    result, llm = _run(0.05, asynchronous=asynchronous)
    assert len(llm.prompts) == 1 and "Königsberg" in llm.prompts[0] and "Fichte" not in llm.prompts[0]
    assert result.selected == 0 and "Königsberg" in result.answer
    kant, fichte = result.branches
    assert kant.written and not fichte.written and fichte.raw_generation == ""
    assert any("writing_margin 0.2 below the best passage's" in note for note in fichte.notes)
    assert fichte.distributions["IsRel"] is not None  # still read, as a declined answer's closest passages are
    assert result.settings["writing_margin"] == 0.2


def test_a_branch_within_the_margin_or_with_a_wide_margin_is_written() -> None:
    result, llm = _run(0.95)  # its best sentence reads as answering: its prospect is 0.14 below the best one
    assert len(llm.prompts) == 2 and all(b.written for b in result.branches)
    result, llm = _run(0.05, writing_margin=2.0)
    assert len(llm.prompts) == 2 and all(b.written for b in result.branches)


def test_without_a_reader_no_prospect_is_known_and_every_branch_is_written() -> None:
    result, llm = _run(0.05, reader=False)
    assert len(llm.prompts) == 2 and all(b.written for b in result.branches)


def test_a_prospect_is_the_score_of_the_branch_quoting_its_best_sentence() -> None:
    relevance = {RELEVANT: 0.7, IRRELEVANT: 0.3}
    weights = ScoringWeights(w_rel=2.0, w_use=1.5)
    branch = Branch(passage=KANT, evidence=KANT.page_content, raw="Kant was born in Königsberg.",
                    answer="Kant was born in Königsberg.", parsed=ParsedGeneration())
    chosen = select([branch], [Critique(relevance=relevance)], weights=weights, constraints=HardConstraints(),
                    quotes=[Quote("Born in Königsberg, he taught there all his life.", 0.9)])
    assert prospect(relevance, 0.9, weights) == pytest.approx(chosen.traces[0].scores.total)
    assert prospect(relevance, 0.9, weights) > prospect(relevance, 0.5, weights)


def test_out_of_reach_leaves_the_best_and_those_within_the_margin_and_unknown_prospects() -> None:
    reasons = out_of_reach([1.9, None, 1.75, 1.6], 0.2)
    assert reasons[:3] == [None, None, None]
    assert reasons[3] is not None and "1.60" in reasons[3] and "1.90" in reasons[3]
    assert out_of_reach([None, None], 0.0) == [None, None]
    assert out_of_reach([1.0, 1.0], 0.0) == [None, None]  # ties are both written


def test_a_negative_margin_is_refused() -> None:
    with pytest.raises(ValidationError, match=r"writing_margin must be >= 0, got -0\.1"):
        PipelineSettings(writing_margin=-0.1)
    with pytest.raises(ValidationError, match="writing_margin must be >= 0"):
        _run(0.05, writing_margin=-1.0)
