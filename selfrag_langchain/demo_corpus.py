"""Moved to :mod:`selfrag_langchain.corpus.demo` (this module re-exports its public names for one release)."""

from selfrag_langchain.corpus.demo import *  # noqa: F403
from selfrag_langchain.corpus.demo import DEMO_COMPLETE_KEY, DEMO_SOURCE  # noqa: F401  (public before the move)
from selfrag_langchain.corpus.demo import __all__ as __all__
