"""The calibrated judge: signals in one embedding batch, distributions through the calibration, the same
reading for branches (SelfRAG) and single queries (critic evaluation)."""

from __future__ import annotations

import math

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM

from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.judging import CalibratedReflector, CriticQuery
from selfrag_langchain.judging.features import SignalReader
from selfrag_langchain.tokens import (
    FULLY_SUPPORTED,
    GROUP_TOKENS,
    NO_RETRIEVAL,
    RELEVANT,
    RETRIEVAL,
    UTILITY,
    Group,
)
from tests.fakes.bag_of_words import BagOfWords
from tests.fakes.calibrated_judge import MATISSE, MONA, QUESTION, branch, calibration


def test_critique_reads_each_group_from_its_signals_in_one_embedding_batch() -> None:
    embeddings = BagOfWords()
    judge = CalibratedReflector(calibration(), embeddings=embeddings)
    branches = [branch(MONA, "Leonardo da Vinci painted the Mona Lisa."),
                branch(MATISSE, "Henri Matisse painted the Mona Lisa."),
                branch(None, "Mona Lisa.")]
    right, wrong, bare = judge.critique(QUESTION, branches)

    assert len(embeddings.calls) == 1  # every text of the question in one call, each once
    assert len(embeddings.calls[0]) == len(set(embeddings.calls[0]))
    # IsRel: sigmoid(4 x question coverage); "painted" is not in either passage, "mona" "lisa" only in one.
    assert right.relevance[RELEVANT] == pytest.approx(1 / (1 + math.exp(-4 * 2 / 3)))
    assert wrong.relevance[RELEVANT] == pytest.approx(0.5)
    # IsSup: p(Fully) = sigmoid(4 x answer coverage - 2); 5 of 6 answer words are in the Mona Lisa passage
    # ("painted" is not), 2 of 5 in the Matisse one.
    assert right.support[FULLY_SUPPORTED] == pytest.approx(1 / (1 + math.exp(-(4 * 5 / 6 - 2))))
    assert wrong.support[FULLY_SUPPORTED] == pytest.approx(1 / (1 + math.exp(-(4 * 2 / 5 - 2))))
    # IsUse: sigmoid(4 x novelty); "Mona Lisa." adds nothing to the question.
    assert bare.utility[UTILITY[4]] == pytest.approx(0.5)
    assert right.utility[UTILITY[4]] == pytest.approx(1 / (1 + math.exp(-4 * 3 / 6)))  # leonardo da vinci: new
    assert bare.relevance is None and bare.support is None
    for critique in (right, wrong):
        for group, dist in ((Group.ISREL, critique.relevance), (Group.ISSUP, critique.support)):
            assert set(dist) == set(GROUP_TOKENS[group]) and sum(dist.values()) == pytest.approx(1.0)


def test_judge_reads_single_queries_exactly_as_critique_reads_branches() -> None:
    judge = CalibratedReflector(calibration(), embeddings=BagOfWords())
    answer = "Henri Matisse painted the Mona Lisa."
    (critique,) = judge.critique(QUESTION, [branch(MATISSE, answer)])
    rel, sup, use = judge.judge([CriticQuery(Group.ISREL, QUESTION, evidence=MATISSE),
                                 CriticQuery(Group.ISSUP, QUESTION, evidence=MATISSE, output=answer),
                                 CriticQuery(Group.ISUSE, QUESTION, output=answer)])
    assert (rel, sup, use) == (critique.relevance, critique.support, critique.utility)


def test_retrieve_reads_the_instruction_embedding() -> None:
    judge = CalibratedReflector(calibration(), embeddings=BagOfWords())
    dist = judge.retrieve_distribution(QUESTION, preceding="Leonardo painted it.")
    assert dist[RETRIEVAL] == pytest.approx(1 / (1 + math.exp(-1.0)))  # intercept only
    assert dist[NO_RETRIEVAL] == pytest.approx(1 - dist[RETRIEVAL])


def test_empty_texts_have_no_similarity() -> None:
    (signals,) = SignalReader(BagOfWords()).read([CriticQuery(Group.ISSUP, QUESTION, evidence=MONA, output="")])
    assert signals["similarity"] == 0.0 and signals["answer_coverage"] == 0.0


def test_selfrag_with_the_calibrated_judge_picks_the_supported_branch() -> None:
    # Generations in prompt order: the wrong passage's answer first, as the retriever ranked it.
    llm = FakeListLLM(responses=["Henri Matisse painted the Mona Lisa.", "Leonardo da Vinci painted the Mona Lisa."])
    # The names rule off: it would leave the Henri Matisse branch unwritten, and this is the judge's choice.
    rag = SelfRAG(generator=llm, reflector=CalibratedReflector(calibration(), embeddings=BagOfWords()),
                  mode="always", k=2, min_name_coverage=0.0)
    docs = [Document(page_content=text.split("\n", 1)[1], metadata={"title": text.split("\n", 1)[0]})
            for text in (MATISSE, MONA)]
    result = rag.invoke({"question": QUESTION, "passages": docs})
    assert result.answer == "Leonardo da Vinci painted the Mona Lisa."
    assert result.citations[0].metadata["title"] == "Mona Lisa"
    assert result.reflector == "calibrated"
