"""A branch whose quote its passage's readings settle before writing is not generated: ``settle_quotes``."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest
from langchain_core.documents import Document

from selfrag_langchain.chains.quotes import PassageQuoter, settled
from selfrag_langchain.chains.short_form import QUOTE_SETTLED, SelfRAG
from selfrag_langchain.judging import CalibratedReflector
from tests.fakes.bag_of_words import BagOfWords
from tests.fakes.prompt_llm import PromptLLM
from tests.fakes.table_reader import TableReader

KANT = Document(page_content="Immanuel Kant was a German philosopher. Königsberg was the city where he taught all his "
                             "life. He wrote the Critique of Pure Reason.", metadata={"title": "Immanuel Kant"})
FICHTE = Document(page_content="Johann Gottlieb Fichte was a German philosopher who studied the writings of "
                               "Immanuel Kant.", metadata={"title": "Johann Gottlieb Fichte"})
QUESTION = "In which city did the philosopher Immanuel Kant teach?"


def _unit(*xs: float) -> list[float]:
    norm = math.sqrt(sum(x * x for x in xs))
    return [x / norm for x in xs]


def test_the_best_read_sentence_is_settled_only_when_no_generation_can_move_the_choice() -> None:
    near, far = _unit(1.0, 0.0), _unit(0.0, 1.0)
    assert settled([0.95, 0.05], [near, far], 3.0)  # 3 * 0.9 = 2.7 > |near - far| (1.41) + 1
    assert not settled([0.95, 0.4], [near, far], 3.0)  # 1.65 < 2.41: a generation close to the other could win
    assert settled([0.95, 0.4], [near, _unit(1.0, 0.1)], 3.0)  # the other sentence's vector is nearly the same
    assert not settled([0.95, 0.05], [near, far], 1.0)  # the reader weighs too little against the generation
    assert settled([0.3], [near], 3.0)  # one sentence: the quote whatever is generated
    assert not settled([], [], 3.0)
    assert not settled([0.95, 0.05], [[2.0, 0.0], [0.0, 2.0]], 3.0)  # not unit length: no cosine to bound


def _reader(fichte_reads: float = 0.05) -> TableReader:
    return TableReader(answering=lambda q, s: 0.95 if "Königsberg" in s else fichte_reads if "Fichte" in s
                       else 0.05)


def test_a_settled_quote_is_the_quote_every_generation_gets() -> None:
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=_reader())
    body, title = KANT.page_content, KANT.metadata["title"]
    (quote,) = quoter.settled_quotes(QUESTION, [(body, title)])
    assert quote is not None and "Königsberg" in quote.text and quote.answering == pytest.approx(0.95)
    for generation in ("He wrote the Critique of Pure Reason.", "Kant was a German philosopher.", "Berlin.",
                       "Pure Reason Critique wrote he, a German philosopher of the critique."):
        (found,) = quoter.find(QUESTION, [(generation, body)], titles=[title])
        assert found == quote
    # Readings close together settle nothing; nor does a quoter without a reader.
    close = PassageQuoter(embeddings=BagOfWords(), reader=TableReader(answering=lambda q, s: 0.5))
    assert close.settled_quotes(QUESTION, [(body, title)]) == [None]
    assert PassageQuoter(embeddings=BagOfWords()).settled_quotes(QUESTION, [(body, title)]) == [None]


def _run(*, settle: bool, fichte_reads: float = 0.05, asynchronous: bool = False) -> tuple[Any, PromptLLM]:
    llm = PromptLLM(responses=["He taught in Königsberg.", "Fichte studied Kant."])
    rag = SelfRAG(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always", k=2,
                  quoter=PassageQuoter(embeddings=BagOfWords(), reader=_reader(fichte_reads)), decline=False,
                  min_name_coverage=0.0, writing_margin=None, settle_quotes=settle)
    request = {"question": QUESTION, "passages": [KANT, FICHTE]}
    return (asyncio.run(rag.ainvoke(request)) if asynchronous else rag.invoke(request)), llm


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_settled_branch_is_not_generated_and_answers_and_scores_as_written(asynchronous: bool) -> None:
    result, llm = _run(settle=True, asynchronous=asynchronous)
    written, all_llm = _run(settle=False, asynchronous=asynchronous)
    assert len(all_llm.prompts) == 2 and len(llm.prompts) < 2  # Kant's branch (and Fichte's one sentence) settled
    assert result.answer == written.answer and "Königsberg" in result.answer and result.selected == 0
    kant = result.branches[0]
    assert kant.raw_generation == "" and kant.written and f"not written: {QUOTE_SETTLED}" in kant.notes
    assert kant.quote == written.branches[0].quote
    assert kant.scores.total == pytest.approx(written.branches[0].scores.total)
    assert result.settings["settle_quotes"] is True and written.settings["settle_quotes"] is False


def test_a_branch_whose_readings_leave_the_quote_open_is_generated() -> None:
    wide = Document(page_content="Königsberg lies on the Baltic. Kant taught in Königsberg all his life.",
                    metadata={"title": "Königsberg"})
    llm = PromptLLM(responses=["He taught there."])
    rag = SelfRAG(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always", k=1,
                  quoter=PassageQuoter(embeddings=BagOfWords(), reader=_reader()), decline=False,
                  min_name_coverage=0.0)
    result = rag.invoke({"question": QUESTION, "passages": [wide]})
    assert len(llm.prompts) == 1 and result.branches[0].raw_generation == "He taught there."
    assert not any("settle_quotes" in note for note in result.branches[0].notes)


def test_a_question_with_answer_choices_generates_every_branch() -> None:
    llm = PromptLLM(responses=["Königsberg", "Berlin"])
    rag = SelfRAG(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always", k=2,
                  quoter=PassageQuoter(embeddings=BagOfWords(), reader=_reader()), decline=False,
                  min_name_coverage=0.0, writing_margin=None)
    rag.invoke({"question": QUESTION, "passages": [KANT, FICHTE], "choices": {"A": "Königsberg", "B": "Berlin"}})
    assert len(llm.prompts) == 2
