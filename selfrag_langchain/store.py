"""Moved to :mod:`selfrag_langchain.corpus` (this module re-exports its names for one release)."""

from selfrag_langchain.corpus.answering import answering_store, default_retriever
from selfrag_langchain.corpus.store import *  # noqa: F403
from selfrag_langchain.corpus.store import EMBEDDING_MODEL_NAME  # noqa: F401  (public before the move)
from selfrag_langchain.corpus.store import __all__ as _store_names

__all__ = [*_store_names, "answering_store", "default_retriever"]
