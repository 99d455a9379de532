"""Moved to :mod:`selfrag_langchain.corpus.indexing` (this module re-exports its public names for one release)."""

from selfrag_langchain.corpus.indexing import *  # noqa: F403
from selfrag_langchain.corpus.indexing import JSONL_SUFFIXES, TEXT_SUFFIXES  # noqa: F401  (public before the move)
from selfrag_langchain.corpus.indexing import __all__ as __all__
