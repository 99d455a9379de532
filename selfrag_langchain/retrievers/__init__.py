"""Retrievers that need no vector store: passages given with the question, Self-RAG eval files.

The embedded Chroma store lives in ``selfrag_langchain.store`` (it loads an embedding model).
"""

from selfrag_langchain.retrievers.eval_file import EvalFileRetriever, normalize_question
from selfrag_langchain.retrievers.passages import PassageRetriever, documents_from_ctxs

__all__ = ["EvalFileRetriever", "PassageRetriever", "documents_from_ctxs", "normalize_question"]
