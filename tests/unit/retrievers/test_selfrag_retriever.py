"""SelfRAGRetriever: the wrapped retriever's documents, judged by IsRel, the relevant ones best first."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    BaseCallbackHandler,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import ConfigurableField
from pydantic import Field, ValidationError

from selfrag_langchain import SelfRAGRetriever as TopLevelSelfRAGRetriever
from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.judging import Branch, CalibratedReflector, CriticQuery, Critique, Reflector
from selfrag_langchain.retrievers import PassageRetriever, SelfRAGRetriever
from selfrag_langchain.tokens import IRRELEVANT, RELEVANT
from tests.fakes.bag_of_words import BagOfWords
from tests.fakes.calibrated_judge import calibration

QUESTION = "Who designed the Eiffel Tower?"


def _doc(title: str, text: str | None = None) -> Document:
    return Document(page_content=text or f"What the encyclopedia says about {title}.", metadata={"title": title})


class ScriptedJudge(Reflector):
    """p([Relevant]) per passage title (the first line of the evidence); records how it was asked."""

    name = "scripted"

    def __init__(self, relevance: dict[str, float]) -> None:
        self.relevance = relevance
        self.asked: list[tuple[str, str, list[str]]] = []

    def relevance_distributions(self, instruction: str, evidence: Sequence[str]) -> list[dict[str, float]]:
        self.asked.append(("sync", instruction, list(evidence)))
        return [self._dist(e) for e in evidence]

    async def arelevance_distributions(self, instruction: str, evidence: Sequence[str]) -> list[dict[str, float]]:
        self.asked.append(("async", instruction, list(evidence)))
        return [self._dist(e) for e in evidence]

    def _dist(self, evidence: str) -> dict[str, float]:
        p = self.relevance[evidence.split("\n", 1)[0]]
        return {RELEVANT: p, IRRELEVANT: 1.0 - p}

    def retrieve_distribution(self, instruction: str, *, preceding: str | None = None) -> dict[str, float] | None:
        raise AssertionError("a relevance filter never asks whether to retrieve")

    def critique(self, instruction: str, branches: Sequence[Branch], *, preceding: str | None = None
                 ) -> list[Critique]:
        raise AssertionError("a relevance filter never critiques answers")

    def judge(self, queries: Sequence[CriticQuery]) -> list[dict[str, float]]:
        raise AssertionError("a relevance filter asks through relevance_distributions")


class TwoPathRetriever(BaseRetriever):
    """Returns ``docs`` and records which path served each call, with the ``k`` it was given."""

    docs: list[Document]
    calls: list[tuple[str, int | None]] = Field(default_factory=list)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                k: int | None = None) -> list[Document]:
        self.calls.append(("sync", k))
        return self.docs[:k]

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
                                       k: int | None = None) -> list[Document]:
        self.calls.append(("async", k))
        return self.docs[:k]


class NoKwargsRetriever(BaseRetriever):
    """A retriever that takes no keyword arguments: LangChain never hands it ``k``."""

    docs: list[Document]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return list(self.docs)


DOCS = [_doc("Paris"), _doc("Eiffel Tower"), _doc("Hamlet"), _doc("Gustave Eiffel")]
JUDGED = {"Paris": 0.6, "Eiffel Tower": 0.95, "Hamlet": 0.1, "Gustave Eiffel": 0.8}


def _retriever(**kwargs: Any) -> SelfRAGRetriever:
    return SelfRAGRetriever(retriever=kwargs.pop("retriever", TwoPathRetriever(docs=DOCS)),
                            judge=kwargs.pop("judge", ScriptedJudge(JUDGED)), **kwargs)


def _titles(docs: list[Document]) -> list[str]:
    return [d.metadata["title"] for d in docs]


def test_relevant_documents_best_first_with_the_judgement_in_their_metadata() -> None:
    docs = _retriever().invoke(QUESTION)
    assert _titles(docs) == ["Eiffel Tower", "Gustave Eiffel", "Paris"]  # Hamlet (0.1) is dropped
    assert [d.metadata["selfrag"] for d in docs] == [
        {"relevance": pytest.approx(0.95), "relevant": True, "retrieved_rank": 2, "judge": "scripted"},
        {"relevance": pytest.approx(0.8), "relevant": True, "retrieved_rank": 4, "judge": "scripted"},
        {"relevance": pytest.approx(0.6), "relevant": True, "retrieved_rank": 1, "judge": "scripted"},
    ]
    assert [d.page_content for d in docs] == [DOCS[1].page_content, DOCS[3].page_content, DOCS[0].page_content]
    assert "selfrag" not in DOCS[1].metadata  # the wrapped retriever's documents are not changed


def test_the_judge_reads_the_query_and_each_passage_as_a_branch_would() -> None:
    judge = ScriptedJudge(JUDGED)
    _retriever(judge=judge).invoke(QUESTION)
    assert judge.asked == [("sync", QUESTION, [f"{d.metadata['title']}\n{d.page_content}" for d in DOCS])]


@pytest.mark.parametrize(("threshold", "expected"), [
    (0.0, ["Eiffel Tower", "Gustave Eiffel", "Paris", "Hamlet"]),
    (0.6, ["Eiffel Tower", "Gustave Eiffel", "Paris"]),  # a passage at the threshold is kept
    (0.9, ["Eiffel Tower"]),
    (1.0, []),
])
def test_threshold(threshold: float, expected: list[str]) -> None:
    assert _titles(_retriever(threshold=threshold).invoke(QUESTION)) == expected


def test_equally_relevant_passages_keep_the_wrapped_retrievers_order() -> None:
    judge = ScriptedJudge(dict.fromkeys(JUDGED, 0.7))
    assert _titles(_retriever(judge=judge).invoke(QUESTION)) == _titles(DOCS)


def test_nothing_relevant_returns_nothing_unless_keep_best() -> None:
    judge = ScriptedJudge({"Paris": 0.3, "Eiffel Tower": 0.4, "Hamlet": 0.1, "Gustave Eiffel": 0.2})
    assert _retriever(judge=judge).invoke(QUESTION) == []
    (best,) = _retriever(judge=judge, keep_best=True).invoke(QUESTION)
    assert best.metadata["title"] == "Eiffel Tower"
    assert best.metadata["selfrag"]["relevant"] is False and best.metadata["selfrag"]["relevance"] == 0.4


def test_keep_best_does_not_add_a_document_when_some_pass() -> None:
    assert _titles(_retriever(keep_best=True, threshold=0.9).invoke(QUESTION)) == ["Eiffel Tower"]


@pytest.mark.parametrize("keep_best", [False, True])
async def test_an_empty_retrieval_is_not_judged(keep_best: bool) -> None:
    judge = ScriptedJudge(JUDGED)
    retriever = _retriever(retriever=TwoPathRetriever(docs=[]), judge=judge, keep_best=keep_best)
    assert retriever.invoke(QUESTION) == []
    assert await retriever.ainvoke(QUESTION) == []
    assert judge.asked == []


def test_k_is_passed_to_the_wrapped_retriever_and_bounds_what_is_judged() -> None:
    inner, judge = TwoPathRetriever(docs=DOCS), ScriptedJudge(JUDGED)
    retriever = _retriever(retriever=inner, judge=judge, k=2)
    assert _titles(retriever.invoke(QUESTION)) == ["Eiffel Tower", "Paris"]
    assert _titles(retriever.invoke(QUESTION, k=3)) == ["Eiffel Tower", "Paris"]  # Hamlet judged, dropped
    assert inner.calls == [("sync", 2), ("sync", 3)]
    assert [len(evidence) for _, _, evidence in judge.asked] == [2, 3]


def test_without_k_the_wrapped_retriever_decides_how_many() -> None:
    inner = TwoPathRetriever(docs=DOCS)
    assert len(_retriever(retriever=inner, threshold=0.0).invoke(QUESTION)) == 4
    assert inner.calls == [("sync", None)]


def test_k_cuts_the_results_of_a_retriever_that_ignores_it() -> None:
    retriever = _retriever(retriever=NoKwargsRetriever(docs=DOCS), k=1, threshold=0.0)
    assert _titles(retriever.invoke(QUESTION)) == ["Paris"]


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"k": 0}, ValidationError, "greater than or equal to 1"),
    ({"threshold": 1.5}, ValidationError, "less than or equal to 1"),
    ({"threshold": -0.1}, ValidationError, "greater than or equal to 0"),
])
def test_invalid_settings_are_refused(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        _retriever(**kwargs)


def test_an_invalid_k_for_one_call_is_refused_before_retrieval() -> None:
    inner = TwoPathRetriever(docs=DOCS)
    with pytest.raises(ConfigurationError, match="k must be at least 1, got 0"):
        _retriever(retriever=inner).invoke(QUESTION, k=0)
    assert inner.calls == []


async def test_async_uses_the_wrapped_retrievers_ainvoke_and_the_judges_async_method() -> None:
    inner, judge = TwoPathRetriever(docs=DOCS), ScriptedJudge(JUDGED)
    retriever = _retriever(retriever=inner, judge=judge, k=3)
    docs = await retriever.ainvoke(QUESTION)
    assert docs == retriever.invoke(QUESTION)
    assert inner.calls == [("async", 3), ("sync", 3)]
    assert [path for path, _, _ in judge.asked] == ["async", "sync"]


class RetrieverRuns(BaseCallbackHandler):
    """Records (name, run_id, parent_run_id) of every retriever run."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, UUID, UUID | None]] = []

    def on_retriever_start(self, serialized: Any, query: str, *, run_id: UUID, parent_run_id: UUID | None = None,
                           **kwargs: Any) -> None:
        self.runs.append((kwargs.get("name", ""), run_id, parent_run_id))


@pytest.mark.parametrize("path", ["sync", "async"])
async def test_callbacks_reach_the_wrapped_retriever_as_a_child_run(path: str) -> None:
    handler = RetrieverRuns()
    retriever = _retriever(tags=["outer"])
    config = {"callbacks": [handler]}
    if path == "sync":
        retriever.invoke(QUESTION, config)
    else:
        await retriever.ainvoke(QUESTION, config)
    (outer_name, outer_id, outer_parent), (inner_name, _, inner_parent) = handler.runs
    assert (outer_name, inner_name) == ("SelfRAGRetriever", "TwoPathRetriever")
    assert outer_parent is None and inner_parent == outer_id


def test_k_and_threshold_are_configurable_fields() -> None:
    inner = TwoPathRetriever(docs=DOCS)
    tunable = _retriever(retriever=inner).configurable_fields(
        k=ConfigurableField(id="k"), threshold=ConfigurableField(id="threshold"))
    assert _titles(tunable.invoke(QUESTION)) == ["Eiffel Tower", "Gustave Eiffel", "Paris"]
    tuned = tunable.with_config(configurable={"k": 3, "threshold": 0.7})
    assert _titles(tuned.invoke(QUESTION)) == ["Eiffel Tower"]
    assert inner.calls == [("sync", None), ("sync", 3)]


def test_with_the_calibrated_judge_the_passage_naming_the_subject_comes_first() -> None:
    docs = [_doc("Hamlet", "Hamlet is a tragedy written by William Shakespeare."),
            _doc("Eiffel Tower", "The Eiffel Tower was designed by the engineering company of Gustave Eiffel.")]
    # The test calibration reads IsRel as sigmoid(4 x the share of the question's content words in the passage).
    judge = CalibratedReflector(calibration(), embeddings=BagOfWords())
    retriever = _retriever(retriever=TwoPathRetriever(docs=docs), judge=judge, threshold=0.75)
    (kept,) = retriever.invoke(QUESTION)
    assert kept.metadata["title"] == "Eiffel Tower"
    assert kept.metadata["selfrag"] == {"relevance": pytest.approx(1 / (1 + math.exp(-4))), "relevant": True,
                                        "retrieved_rank": 2, "judge": "calibrated"}
    assert retriever.invoke(QUESTION, k=1) == []  # only Hamlet is judged: 0.5 < 0.75


def test_the_package_default_judge_is_the_calibrated_one() -> None:
    retriever = TopLevelSelfRAGRetriever(retriever=PassageRetriever(passages=DOCS))
    assert isinstance(retriever.judge, CalibratedReflector)
    assert (retriever.k, retriever.threshold, retriever.keep_best) == (None, 0.5, False)
