"""Retrievers: passages given with the question, Self-RAG eval files, and Self-RAG's relevance filter in
front of any retriever.

The embedded Chroma store lives in ``selfrag_langchain.corpus.store`` (it loads an embedding model).
"""

from selfrag_langchain.retrievers.eval_file import EvalFileRetriever, normalize_question
from selfrag_langchain.retrievers.passages import PassageRetriever, documents_from_ctxs
from selfrag_langchain.retrievers.relevance_filter import SelfRAGRetriever

__all__ = ["EvalFileRetriever", "PassageRetriever", "SelfRAGRetriever", "documents_from_ctxs", "normalize_question"]
