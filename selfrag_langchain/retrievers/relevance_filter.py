"""Self-RAG's relevance filter (IsRel) in front of any retriever, as a LangChain retriever of its own.

An existing RAG chain gets the filter by changing the one line that builds its retriever; the judge's
reading of each passage travels in the documents' metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.judging import Reflector
from selfrag_langchain.prompts import format_passage
from selfrag_langchain.scoring import relevance_score
from selfrag_langchain.text.boundary import Boundary, boundary_for

__all__ = ["METADATA_KEY", "SelfRAGRetriever"]

METADATA_KEY = "selfrag"
"""The metadata key under which each returned document carries its judgement."""


def _default_judge() -> Reflector:
    """The package's default judge; imported here so that importing the retrievers loads no model code."""
    from selfrag_langchain.judging import CalibratedReflector

    return CalibratedReflector()


def _resolve_k(field_k: int | None, call_k: int | None) -> int | None:
    """The ``k`` of one call: the call's own, else the field's; None keeps the wrapped retriever's count."""
    k = field_k if call_k is None else call_k
    if k is not None and k < 1:
        msg = f"k must be at least 1, got {k}"
        raise ConfigurationError(msg)
    return k


def _evidence(docs: Sequence[Document], boundary: Boundary) -> list[str]:
    """Each passage as the models read it in a Self-RAG branch (title line, neutralised text)."""
    return [format_passage(doc.metadata.get("title"), doc.page_content, boundary) for doc in docs]


def filter_by_relevance(
    docs: Sequence[Document],
    distributions: Sequence[dict[str, float]],
    *,
    threshold: float,
    keep_best: bool,
    judge: str,
) -> list[Document]:
    """The documents whose s_rel = p([Relevant]) / (p([Relevant]) + p([Irrelevant])) reaches ``threshold``,
    best first (ties keep the wrapped retriever's order), each a copy with its judgement under
    ``metadata["selfrag"]``. With ``keep_best``, an empty result becomes the best-judged document,
    marked ``relevant: False``.

    Args:
        docs: The wrapped retriever's documents, in its order.
        distributions: The judge's IsRel distribution of each document.
        threshold: The least s_rel a document needs to be returned.
        keep_best: Return the best-judged document when none reaches ``threshold``.
        judge: The judge's name, recorded in the metadata.

    Returns:
        The kept documents, best first.
    """
    judged = []
    for rank, (doc, dist) in enumerate(zip(docs, distributions, strict=True), start=1):
        relevance = relevance_score(dist)
        verdict = {"relevance": relevance, "relevant": relevance >= threshold, "retrieved_rank": rank,
                   "judge": judge}
        judged.append(doc.model_copy(update={"metadata": {**doc.metadata, METADATA_KEY: verdict}}))
    judged.sort(key=lambda d: -d.metadata[METADATA_KEY]["relevance"])  # stable: ties keep the retriever's order
    kept = [d for d in judged if d.metadata[METADATA_KEY]["relevant"]]
    return kept or (judged[:1] if keep_best else [])


class SelfRAGRetriever(BaseRetriever):
    """Any retriever with Self-RAG's relevance judgement (IsRel) in front: it fetches ``k`` documents,
    asks the judge whether each passage is relevant to the query, and returns the relevant ones, best
    first.

    This is the paper's IsRel critique of (x, d) on its own, before any answer is written, so a RAG chain
    that never generates with Self-RAG still stops reading passages its judge calls irrelevant. The
    judge is any :class:`~selfrag_langchain.judging.base.Reflector` (all of them implement
    ``relevance_distributions``); the default, :class:`~selfrag_langchain.judging.CalibratedReflector`,
    needs no language model, only one batch of MiniLM embeddings per query.

    Each returned document is a copy with the judgement in its metadata::

        doc.metadata["selfrag"]
        # {'relevance': 0.91, 'relevant': True, 'retrieved_rank': 2, 'judge': 'calibrated'}

    ``relevance`` is s_rel = p([Relevant]) / (p([Relevant]) + p([Irrelevant])), ``retrieved_rank`` the
    document's 1-based position in the wrapped retriever's results.

    Set up (swap one line of an existing chain):
        .. code-block:: python

            from langchain_core.vectorstores import InMemoryVectorStore
            from selfrag_langchain.embeddings import MiniLMEmbeddings
            from selfrag_langchain.retrievers import SelfRAGRetriever

            store = InMemoryVectorStore.from_documents(docs, MiniLMEmbeddings())
            # retriever = store.as_retriever()
            retriever = SelfRAGRetriever(retriever=store.as_retriever(), k=4)

    Invoke:
        .. code-block:: python

            retriever.invoke("Who designed the Eiffel Tower?")
            # [Document(metadata={'title': 'Eiffel Tower', 'selfrag': {'relevance': 0.97, ...}}, ...)]
            retriever.invoke("...", k=8)         # judge more candidates for one call

    Async (the wrapped retriever's ``ainvoke`` and the judge's async method):
        .. code-block:: python

            docs = await retriever.ainvoke("Who designed the Eiffel Tower?")

    Knobs at run time:
        .. code-block:: python

            from langchain_core.runnables import ConfigurableField

            tunable = retriever.configurable_fields(
                k=ConfigurableField(id="k"), threshold=ConfigurableField(id="threshold"))
            tunable.with_config(configurable={"k": 8, "threshold": 0.7}).invoke("...")

    In a chain:
        .. code-block:: python

            chain = {"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt | llm
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    retriever: BaseRetriever
    """The retriever whose results are judged: any LangChain retriever (``store.as_retriever()``)."""
    judge: Reflector = Field(default_factory=_default_judge)
    """Judges IsRel: :class:`CalibratedReflector` (default, no language model), :class:`CriticReflector`
    (a critic model) or :class:`InlineReflector` (a Self-RAG checkpoint)."""
    k: int | None = Field(default=None, ge=1)
    """How many documents to fetch and judge (passed to the wrapped retriever as ``k`` and cut to it), and
    so the most returned; None keeps the wrapped retriever's own count (its ``search_kwargs``)."""
    threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    """The least s_rel a document needs. 0.5 keeps a passage when the judge finds ``[Relevant]`` at least as
    likely as ``[Irrelevant]``: the judge's own verdict, the rule of SelfRAG's ``drop_irrelevant`` hard
    constraint. The default judge's IsRel is fitted to GPT-4's labels with balanced class weights, so at 0.5
    it errs as rarely on relevant as on irrelevant passages (80% balanced accuracy on held-out labels).
    Raise it to keep fewer, surer passages; lower it to miss fewer."""
    keep_best: bool = False
    """When no document reaches ``threshold``, return the best-judged one (marked ``relevant: False``)
    instead of nothing. Off by default: a filter that hands back a passage its judge calls irrelevant
    misleads a chain that only reads ``page_content``; an empty context lets it answer without evidence
    or decline, as Self-RAG's no-retrieval branch does. Turn it on for chains that need some context."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        k = _resolve_k(self.k, k)
        docs = self.retriever.invoke(query, {"callbacks": run_manager.get_child()}, **_inner_kwargs(k))[:k]
        clean = boundary_for(self.judge)
        distributions = self.judge.relevance_distributions(clean(query), _evidence(docs, clean)) if docs else []
        return self._filter(docs, distributions)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        k = _resolve_k(self.k, k)
        docs = (await self.retriever.ainvoke(query, {"callbacks": run_manager.get_child()},
                                             **_inner_kwargs(k)))[:k]
        clean = boundary_for(self.judge)
        distributions = await self.judge.arelevance_distributions(clean(query), _evidence(docs, clean)) if docs else []
        return self._filter(docs, distributions)

    def _filter(self, docs: Sequence[Document], distributions: Sequence[dict[str, float]]) -> list[Document]:
        return filter_by_relevance(docs, distributions, threshold=self.threshold, keep_best=self.keep_best,
                                   judge=self.judge.name)


def _inner_kwargs(k: int | None) -> dict[str, Any]:
    """``k`` for the wrapped retriever: vector-store retrievers read it, retrievers that take no keyword
    arguments are never handed it (LangChain drops it), and the result is cut to ``k`` anyway."""
    return {} if k is None else {"k": k}
