"""A branch whose best prospect is out of reach is left unwritten: ``writing_margin``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from pydantic import Field, ValidationError

from selfrag_langchain.chains.inputs import to_question
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


def _rag(fichte_reads: float, *, reader: bool = True, k: int = 2, **knobs: Any
         ) -> tuple[SelfRAG, PromptLLM, TableReader]:
    readings = TableReader(answering=lambda q, s: 0.9 if "Königsberg" in s else fichte_reads if "Fichte" in s
                           else 0.05)
    llm = PromptLLM(responses=["Kant was born in Königsberg.", "Fichte studied Kant.", "Kant was German."])
    knobs = {"min_name_coverage": 0.0, **knobs}
    rag = SelfRAG(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always", k=k,
                  quoter=PassageQuoter(embeddings=BagOfWords(), reader=readings if reader else None),
                  decline=False, **knobs)
    return rag, llm, readings


def _run(fichte_reads: float, *, asynchronous: bool = False, reader: bool = True,
         passages: list[Document] | None = None, **knobs: Any) -> tuple[SelfRAGResult, PromptLLM]:
    rag, llm, _ = _rag(fichte_reads, reader=reader, **knobs)
    request: dict[str, Any] = {"question": QUESTION, "passages": passages or [KANT, FICHTE]}
    if "choices" in knobs:
        request["choices"] = knobs.pop("choices")
    result = asyncio.run(rag.ainvoke(request)) if asynchronous else rag.invoke(request)
    return result, llm


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_branch_whose_best_sentence_cannot_bring_it_near_the_best_is_not_written(asynchronous: bool) -> None:
    result, llm = _run(0.05, asynchronous=asynchronous)
    assert len(llm.prompts) == 1 and "Königsberg" in llm.prompts[0] and "Fichte" not in llm.prompts[0]
    assert result.selected == 0 and "Königsberg" in result.answer
    kant, fichte = result.branches
    assert kant.written and not fichte.written and fichte.raw_generation == ""
    assert any("more than 0.2 below the best branch's" in note and "(writing_margin)" in note
               for note in fichte.notes)
    assert fichte.distributions["IsRel"] is not None  # still read, as a declined answer's closest passages are
    assert result.settings["writing_margin"] == 0.2


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_branch_within_the_margin_or_with_a_wide_margin_or_none_is_written(asynchronous: bool) -> None:
    result, llm = _run(0.95, asynchronous=asynchronous)  # its best sentence reads as answering
    kant, fichte = (b.scores.total for b in result.branches)
    assert 0.0 < kant - fichte < 0.2  # its prospect, its score as quoted, is within the margin
    assert len(llm.prompts) == 2 and all(b.written for b in result.branches)
    for margin in (2.0, None):
        result, llm = _run(0.05, asynchronous=asynchronous, writing_margin=margin)
        assert len(llm.prompts) == 2 and all(b.written for b in result.branches)
        assert result.settings["writing_margin"] == margin


def test_the_margin_is_never_narrower_than_the_near_ties_margin() -> None:
    # Fichte's passage first: its prospect is 0.25 below Kant's, out of a 0.2 margin but within near ties of 0.3,
    # where the retriever's first passage would win.
    result, llm = _run(0.84, passages=[FICHTE, KANT])
    assert len(llm.prompts) == 1 and not result.branches[0].written
    result, llm = _run(0.84, passages=[FICHTE, KANT], retrieval_order_margin=0.3)
    assert len(llm.prompts) == 2 and result.selected == 0


def test_a_question_with_answer_choices_writes_every_branch() -> None:
    result, llm = _run(0.05, choices={"A": "Königsberg", "B": "Berlin"})
    assert len(llm.prompts) == 2 and all(b.written for b in result.branches)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_unwritten_branches_keep_their_own_isrel_whichever_rule_left_them(asynchronous: bool) -> None:
    bakery = Document(page_content="The bakery sells bread every morning.", metadata={"title": "Bakery"})
    rag, llm, readings = _rag(0.05, k=3, min_name_coverage=0.6)
    request = {"question": QUESTION, "passages": [KANT, FICHTE, bakery]}
    result = asyncio.run(rag.ainvoke(request)) if asynchronous else rag.invoke(request)
    kant, fichte, bread = result.branches
    assert kant.written and not fichte.written and not bread.written and len(llm.prompts) == 1
    assert any("names" in note for note in bread.notes) and any("writing_margin" in note for note in fichte.notes)
    judge = CalibratedReflector(embeddings=BagOfWords())
    expected = judge.relevance_distributions(QUESTION, [rag._prepare(to_question(request), [d])[0].evidence
                                                        for d in (KANT, FICHTE, bakery)])
    for branch, dist in zip(result.branches, expected, strict=True):  # the three IsRel differ, each its own
        assert branch.distributions["IsRel"] == pytest.approx(dist)
    assert len({round(d["[Relevant]"], 3) for d in expected}) == 3
    # Quoting read no sentence the prospects had not: the reader's cache serves it.
    asked = {(question, sentence) for _, question, sentence in readings.asked}
    assert len(asked) == 3 and all("Bakery" not in sentence for _, sentence in asked)


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


def test_a_branch_a_constraint_will_drop_sets_no_bar() -> None:
    assert out_of_reach([2.0, 1.7], 0.2, [False, True]) == [None, None]
    assert out_of_reach([2.0, 1.7], 0.2)[1] is not None
    assert out_of_reach([2.0, 1.7], 0.2, [False, False]) == [None, None]


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
