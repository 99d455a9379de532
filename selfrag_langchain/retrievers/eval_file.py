"""Replay the passages a Self-RAG eval file retrieved for each of its questions.

With it, a chain that takes only a question (``selfrag ask``, a LangChain app) can run on
PopQA, ARC or any file in Self-RAG's ``{"question", "ctxs"}`` format without a vector store.
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field

from selfrag_langchain.corpus.text_files import read_user_text
from selfrag_langchain.errors import InputError
from selfrag_langchain.files.durable import json_lines
from selfrag_langchain.retrievers.passages import documents_from_ctxs, top_k

__all__ = ["EvalFileRetriever", "normalize_question"]


def normalize_question(question: str) -> str:
    """The lookup key of a question: whitespace collapsed, case folded."""
    return " ".join(question.split()).casefold()


def _read_records(path: Path) -> dict[str, list[Document]]:
    """Map each question of a Self-RAG eval file to its passages; the first record wins."""
    lines = read_user_text(path, "Eval file").splitlines()
    records: dict[str, list[Document]] = {}
    for number, record, error in json_lines(lines):
        where = f"{path}, line {number}"
        if error is not None:
            msg = f"{where}: not valid JSON ({error.msg}); each line must be one JSON object"
            raise InputError(msg) from error
        if not isinstance(record, dict):
            msg = f"{where}: expected a JSON object with 'question' and 'ctxs'"
            raise InputError(msg)
        question = record.get("question")
        ctxs = record.get("ctxs")
        if not isinstance(question, str) or not question.strip():
            msg = f"{where}: missing 'question' (a non-empty string)"
            raise InputError(msg)
        if not isinstance(ctxs, list):
            msg = f"{where}: missing 'ctxs' (the list of retrieved passages)"
            raise InputError(msg)
        try:
            docs = documents_from_ctxs(ctxs)
        except InputError as e:
            msg = f"{where}: {e}"
            raise InputError(msg) from e
        records.setdefault(normalize_question(question), docs)
    return records


class EvalFileRetriever(BaseRetriever):
    """Returns the ``ctxs`` a Self-RAG eval file stores for the question asked.

    The query must equal a ``question`` of the file, up to whitespace and case; any other
    query returns ``[]`` (the chain then answers without evidence, as Self-RAG would when
    retrieval finds nothing). When a question appears twice, the first record is used.

    Construct and invoke:
        .. code-block:: python

            from selfrag_langchain.retrievers import EvalFileRetriever

            retriever = EvalFileRetriever.from_jsonl("popqa_longtail_dev.jsonl", k=5)
            docs = retriever.invoke("What is Henry Feilden's occupation?")
            docs[0].metadata
            # {'title': 'Henry Feilden (Conservative politician)', 'id': '11341299',
            #  'score': 1.6985543, 'rank': 1}

    Fewer results for one call, and async:
        .. code-block:: python

            retriever.invoke("what is henry feilden's occupation?", k=1)
            await retriever.ainvoke("What is Henry Feilden's occupation?")
    """

    passages_by_question: dict[str, list[Document]] = Field(default_factory=dict)
    """Passages per question, keyed by ``normalize_question(question)``."""

    k: int | None = Field(default=5, ge=1)
    """How many passages to return, best first; ``None`` returns all of them."""

    @classmethod
    def from_jsonl(cls, path: str | Path, k: int | None = 5) -> EvalFileRetriever:
        """Read a Self-RAG eval file (one ``{"question", "ctxs", ...}`` object per line).

        Args:
            path: The JSONL file.
            k: How many passages to return per question; ``None`` for all.

        Returns:
            The retriever.

        Raises:
            InputError: If the file is missing or unreadable, or a line is malformed (the
                message names the line number).
        """
        return cls(passages_by_question=_read_records(Path(path)), k=k)

    def _lookup(self, query: str, k: int | None) -> list[Document]:
        docs = self.passages_by_question.get(normalize_question(query), [])
        return top_k(docs, self.k if k is None else k)

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
    ) -> list[Document]:
        return self._lookup(query, k)

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
    ) -> list[Document]:
        return self._lookup(query, k)
