"""Moved to :mod:`selfrag_langchain.corpus.demo` (this module re-exports its names for one release)."""

from selfrag_langchain.corpus.demo import *  # noqa: F403
from selfrag_langchain.corpus.demo import __all__ as __all__
