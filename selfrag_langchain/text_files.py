"""Moved to :mod:`selfrag_langchain.corpus.text_files` (this module re-exports its public names for one release)."""

from selfrag_langchain.corpus.text_files import *  # noqa: F403
from selfrag_langchain.corpus.text_files import __all__ as __all__
