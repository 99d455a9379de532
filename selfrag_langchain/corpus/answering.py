"""Which store answers a question: the named store, else the default store once ``selfrag index`` has filled
it, else the demo corpus. The policy sits above both the store and the demo corpus, which know nothing of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from langchain_core.retrievers import BaseRetriever

from selfrag_langchain.corpus.demo import ensure_demo_store
from selfrag_langchain.corpus.store import has_store, open_store
from selfrag_langchain.errors import ConfigurationError

if TYPE_CHECKING:
    from langchain_chroma import Chroma

__all__ = ["answering_store", "answers_from_demo", "default_retriever"]


def answers_from_demo(path: Path | str | None = None) -> bool:
    """Whether :func:`answering_store` answers from the demo corpus: no store named and none indexed yet."""
    return path is None and not has_store()


def answering_store(path: Path | str | None = None) -> Chroma:
    """The store questions are answered from, chosen as ``selfrag ask`` chooses it.

    A given ``path`` must hold a store. Without one, the default store is used once ``selfrag index``
    has filled it; until then the demo corpus, indexed into a store of its own on first use (minutes,
    with a progress bar; later calls open it at once).

    Raises:
        StoreError: If ``path`` holds no store, or a store cannot be read.
    """
    if answers_from_demo(path):
        return ensure_demo_store()
    return open_store(path, create=False)


def default_retriever(path: Path | str | None = None, k: int = 10) -> BaseRetriever:
    """A similarity retriever over the store ``selfrag ask`` would answer from (:func:`answering_store`):
    ``path``, else the default store once ``selfrag index`` filled it, else the demo corpus.

    Args:
        path: The store directory; ``None`` chooses as the command line does.
        k: How many passages to return (a call may override it with ``invoke(q, k=...)``); by default as many as
            Self-RAG judges (``LoopSettings.k``).

    Returns:
        ``store.as_retriever(search_kwargs={"k": k})``.

    Raises:
        ConfigurationError: If ``k`` is below 1.
        StoreError: If ``path`` holds no store, or a store cannot be read.
    """
    if k < 1:
        msg = f"k must be at least 1, got {k}"
        raise ConfigurationError(msg)
    return answering_store(path).as_retriever(search_kwargs={"k": k})
