"""LangChain's standard retriever and embeddings suites, run on this project's components."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_tests.integration_tests import (
    EmbeddingsIntegrationTests,
    RetrieversIntegrationTests,
)

from selfrag_langchain.corpus.answering import default_retriever
from selfrag_langchain.corpus.demo import load_demo_documents
from selfrag_langchain.corpus.indexing import index_documents
from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.judging import CalibratedReflector
from selfrag_langchain.retrievers import EvalFileRetriever, PassageRetriever, SelfRAGRetriever, documents_from_ctxs

DATA = Path(__file__).parents[2].parent / "shared" / "data"
POPQA = DATA / "popqa_longtail_dev.jsonl"


def _first_popqa_record() -> dict[str, Any]:
    return json.loads(POPQA.read_text(encoding="utf-8").splitlines()[0])


class TestPassageRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[PassageRetriever]:
        return PassageRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        texts = ["Paris is in France.", "Rome is in Italy.", "Bern is in Switzerland.", "Oslo."]
        return {"passages": [Document(page_content=t) for t in texts], "k": 2}

    @property
    def retriever_query_example(self) -> str:
        return "Which city is in France?"


@pytest.mark.skipif(not POPQA.is_file(), reason=f"{POPQA} not present")
class TestEvalFileRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> Callable[..., EvalFileRetriever]:
        return EvalFileRetriever.from_jsonl

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"path": POPQA, "k": 5}

    @property
    def retriever_query_example(self) -> str:
        return _first_popqa_record()["question"]

    def test_popqa_passages_are_the_records_ctxs(self, retriever: BaseRetriever) -> None:
        record = _first_popqa_record()
        docs = retriever.invoke(record["question"])
        assert docs == documents_from_ctxs(record["ctxs"])[:5]


@pytest.mark.slow
class TestDefaultStoreRetrieverStandard(RetrieversIntegrationTests):
    store_dir: Path

    @pytest.fixture(scope="class", autouse=True)
    def _demo_store(
        self,
        request: pytest.FixtureRequest,
        tmp_path_factory: pytest.TempPathFactory,
        minilm: MiniLMEmbeddings,
    ) -> None:
        store_dir = tmp_path_factory.mktemp("standard-store")
        index_documents(load_demo_documents(limit=12), store_dir, progress=False)
        request.cls.store_dir = store_dir

    @property
    def retriever_constructor(self) -> Callable[..., BaseRetriever]:
        return default_retriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"path": self.store_dir, "k": 4}

    @property
    def retriever_query_example(self) -> str:
        return "Which painting is the most famous?"


EIFFEL_PASSAGES = [
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.",
    "The Eiffel Tower was designed by the engineers Maurice Koechlin and Emile Nouguier of Gustave Eiffel's company.",
    "The Eiffel Tower is 330 metres tall and was the tallest man-made structure in the world until 1930.",
    "The Eiffel Tower was built as the entrance arch to the 1889 World's Fair in Paris.",
]


@pytest.mark.slow
class TestSelfRAGRetrieverStandard(RetrieversIntegrationTests):
    """The relevance filter over LangChain's in-memory store with MiniLM and the default judge. The suite asks
    for exactly k documents, so four passages answer the query and two off-topic ones do not."""

    store: InMemoryVectorStore
    judge: CalibratedReflector

    @pytest.fixture(scope="class", autouse=True)
    def _store(self, request: pytest.FixtureRequest, minilm: MiniLMEmbeddings) -> None:
        docs = [Document(page_content=text, metadata={"title": "Eiffel Tower"}) for text in EIFFEL_PASSAGES]
        docs += [Document(page_content="Photosynthesis is the process by which plants make glucose from sunlight.",
                          metadata={"title": "Photosynthesis"}),
                 Document(page_content="Hamlet is a tragedy written by William Shakespeare.",
                          metadata={"title": "Hamlet"})]
        request.cls.store = InMemoryVectorStore.from_documents(docs, minilm)
        request.cls.judge = CalibratedReflector(embeddings=minilm)

    @property
    def retriever_constructor(self) -> type[SelfRAGRetriever]:
        return SelfRAGRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"retriever": self.store.as_retriever(), "judge": self.judge, "k": 4}

    @property
    def retriever_query_example(self) -> str:
        return "Who designed the Eiffel Tower?"

    def test_off_topic_passages_are_dropped(self) -> None:
        retriever = SelfRAGRetriever(retriever=self.store.as_retriever(), judge=self.judge, k=6)
        docs = retriever.invoke(self.retriever_query_example)
        assert [d.metadata["title"] for d in docs] == ["Eiffel Tower"] * 4
        assert "designed" in docs[0].page_content


@pytest.mark.slow
class TestMiniLMEmbeddingsStandard(EmbeddingsIntegrationTests):
    @property
    def embeddings_class(self) -> type[MiniLMEmbeddings]:
        return MiniLMEmbeddings

    @property
    def embedding_model_params(self) -> dict[str, Any]:
        return {"batch_size": 8}
