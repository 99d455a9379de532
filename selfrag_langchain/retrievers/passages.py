"""Passages that come with the question: Self-RAG's eval files ship their retrieved ``ctxs``.

Replaying those passages (instead of searching a store) is what makes a run comparable with
the paper's numbers, and it needs no embedding model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field

from selfrag_langchain.errors import ConfigurationError, InputError

__all__ = ["PassageRetriever", "document_from_ctx", "documents_from_ctxs", "top_k"]


def _ctx_score(value: Any, index: int) -> float:
    """Self-RAG files store scores as strings ("1.6985543"); turn them into floats."""
    try:
        return float(value)
    except (TypeError, ValueError) as e:
        msg = f"ctxs[{index}] has a score that is not a number: {value!r}"
        raise InputError(msg) from e


def document_from_ctx(ctx: Mapping[str, Any], index: int = 0) -> Document:
    """One Self-RAG ctx as a Document (see ``documents_from_ctxs``).

    Args:
        ctx: ``{"title", "text"}``, optionally with ``"id"`` and ``"score"``.
        index: The ctx's position in its record: becomes ``rank`` (``index + 1``) and is
            named in error messages.

    Returns:
        The Document.

    Raises:
        InputError: If ``ctx`` is not an object, has no ``text`` string, or has a
            non-numeric score.
    """
    if not isinstance(ctx, Mapping):
        kind = type(ctx).__name__
        msg = f"ctxs[{index}] must be an object with 'title' and 'text', got {kind}"
        raise InputError(msg)
    text = ctx.get("text")
    if not isinstance(text, str):
        msg = f"ctxs[{index}] has no 'text' string: every passage needs its text"
        raise InputError(msg)
    title = ctx.get("title")
    metadata: dict[str, Any] = {"title": "" if title is None else str(title)}
    ctx_id = ctx.get("id")
    if ctx_id is not None and ctx_id != "":
        metadata["id"] = str(ctx_id)
    if ctx.get("score") is not None:
        metadata["score"] = _ctx_score(ctx["score"], index)
    metadata["rank"] = index + 1
    return Document(page_content=text, metadata=metadata, id=metadata.get("id"))


def documents_from_ctxs(ctxs: Sequence[Mapping[str, Any]]) -> list[Document]:
    """Turn Self-RAG ``ctxs`` entries into Documents, keeping their order.

    Both shapes found in Self-RAG eval files are accepted: ``{id, title, text, score}`` from
    the Wikipedia retriever and ``{title, text}`` from web search (PopQA mixes them). An empty
    ``text`` is kept as an empty passage (PopQA has some: web results with no snippet), so
    positions and top-k match what the paper's scripts read.

    Args:
        ctxs: The passages of one record.

    Returns:
        One Document per ctx: ``page_content`` is the text; metadata holds ``title`` (``""``
        when absent), ``id`` and ``score`` (a float) when present, and ``rank`` (1 for the
        first passage). The Document ``id`` is the ctx id when there is one.

    Raises:
        InputError: If a ctx is not an object, has no ``text`` string, or has a non-numeric
            score; the message names the ctx's index.
    """
    return [document_from_ctx(ctx, index) for index, ctx in enumerate(ctxs)]


def top_k(docs: Sequence[Document], k: int | None) -> list[Document]:
    """The first ``k`` documents (all of them when ``k`` is None).

    Args:
        docs: Documents, best first.
        k: How many to keep.

    Returns:
        A new list of copies, so a caller that edits metadata cannot change the retriever.

    Raises:
        ConfigurationError: If ``k`` is below 1.
    """
    if k is not None and k < 1:
        msg = f"k must be at least 1, got {k}"
        raise ConfigurationError(msg)
    kept = docs if k is None else docs[:k]
    return [doc.model_copy(update={"metadata": dict(doc.metadata)}) for doc in kept]


class PassageRetriever(BaseRetriever):
    """Returns a fixed list of passages, in the given order, whatever the query.

    Use it when the passages come with the question (Self-RAG eval files, a user pasting
    sources); the Self-RAG chain then critiques exactly those.

    Construct and invoke:
        .. code-block:: python

            from selfrag_langchain.retrievers import PassageRetriever, documents_from_ctxs

            ctxs = [{"title": "Paris", "text": "Paris is the capital of France.", "score": "1.7"}]
            retriever = PassageRetriever(passages=documents_from_ctxs(ctxs), k=5)
            retriever.invoke("What is the capital of France?")
            # [Document(id=None, metadata={'title': 'Paris', 'score': 1.7, 'rank': 1},
            #           page_content='Paris is the capital of France.')]

    Fewer results for one call, and async:
        .. code-block:: python

            retriever.invoke("...", k=1)
            await retriever.ainvoke("...")
    """

    passages: list[Document] = Field(default_factory=list)
    """The passages to return, best first."""

    k: int | None = Field(default=None, ge=1)
    """How many passages to return; ``None`` returns all of them."""

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
    ) -> list[Document]:
        return top_k(self.passages, self.k if k is None else k)

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
    ) -> list[Document]:
        return top_k(self.passages, self.k if k is None else k)
