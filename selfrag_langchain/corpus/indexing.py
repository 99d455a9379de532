"""``selfrag index``: add what :mod:`~selfrag_langchain.corpus.reading` read to the store, resumably.

Every chunk's id says where it came from and what it says, so indexing the same files twice adds nothing, and
an interrupted run (Ctrl-C, a killed process) is finished by running the same command again: batches already
committed are skipped, the rest are added. All input is read and checked before the store is touched, so a
typo in a path never leaves a half-created store behind; a re-indexed file's chunks that are no longer in it
are removed.

Why not ``langchain_core.indexing.index()``: it learns what is stored from a record manager, a second database
(``SQLRecordManager``) to keep beside the store. Here the store itself is asked (``_existing_ids``,
``_remove_stale``), so nothing can disagree with it. With ``index()``, lost records leave a changed file's old
chunks for good, and a replaced store with its records kept gets nothing re-added (docs/architecture.md, "Indexing").
"""

from __future__ import annotations

import logging
import random
import shutil
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from selfrag_langchain.corpus.reading import (
    SUPPORTED_SUFFIXES,
    LoadedCorpus,
    chunk_id,
    collect_files,
    load_documents,
    scalar_metadata,
)
from selfrag_langchain.corpus.store import is_server, open_store, resolve_store_dir
from selfrag_langchain.errors import ConfigurationError, StoreError

if TYPE_CHECKING:
    from langchain_chroma import Chroma

__all__ = [
    "SUPPORTED_SUFFIXES",
    "IndexReport",
    "LoadedCorpus",
    "chunk_id",
    "collect_files",
    "index_documents",
    "index_paths",
    "load_documents",
]

logger = logging.getLogger(__name__)

_ID_CHECK_BATCH = 500


@dataclass
class IndexReport:
    """What one indexing run did."""

    files: int = 0
    """Files read."""
    files_skipped: int = 0
    """Files that could not be read (each is also in ``problems``)."""
    chunks_added: int = 0
    """Chunks embedded and written in this run."""
    chunks_skipped: int = 0
    """Chunks already in the store (from an earlier run) or repeated in the input."""
    chunks_removed: int = 0
    """Chunks of a re-indexed file (not .jsonl) that no longer occur in it."""
    problems: list[str] = field(default_factory=list)
    """Input that was skipped, one ``"path: why"`` (a file) or ``"path, line N: why"`` message each."""


def _ensure_ids(docs: Iterable[Document]) -> list[Document]:
    """Give documents without an id one derived from their ``source`` metadata and text."""
    out = []
    for doc in docs:
        if doc.id is None:
            source = str(doc.metadata.get("source", ""))
            doc = doc.model_copy(update={"id": chunk_id(f"document:{source}", doc.page_content)})
        out.append(doc)
    return out


def _existing_ids(store: Chroma, ids: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(ids), _ID_CHECK_BATCH):
        batch = ids[start : start + _ID_CHECK_BATCH]
        found.update(store.get(ids=batch, include=[])["ids"])
    return found


def _write_documents(
    store: Chroma, docs: Sequence[Document], *, batch_size: int, progress: bool
) -> tuple[int, int]:
    """Add the documents the store lacks, in committed batches. Returns (added, skipped)."""
    from tqdm.auto import tqdm

    unique: dict[str, Document] = {}
    for doc in _ensure_ids(docs):
        unique.setdefault(str(doc.id), doc)
    present = _existing_ids(store, list(unique))
    todo = sorted(
        (doc for doc_id, doc in unique.items() if doc_id not in present),
        key=lambda doc: len(doc.page_content),
    )
    # Batches of similar lengths waste less padding (about 1.5x faster on CPU); taking them in a
    # fixed shuffled order keeps the rate steady, so the bar's time estimate holds from the start.
    batches = [todo[start : start + batch_size] for start in range(0, len(todo), batch_size)]
    random.Random(0).shuffle(batches)
    skipped = len(docs) - len(todo)
    with tqdm(
        total=len(todo), desc="Indexing", unit="chunk", disable=not progress or not todo
    ) as bar:
        for batch in batches:
            store.add_texts(
                [doc.page_content for doc in batch],
                metadatas=[scalar_metadata(doc.metadata) for doc in batch],
                ids=[str(doc.id) for doc in batch],
            )
            bar.update(len(batch))
    return len(todo), skipped


def _remove_stale(store: Chroma, sources: list[str], docs: Sequence[Document]) -> int:
    """Delete chunks of re-indexed text files whose text is no longer in the file."""
    current = {str(doc.id) for doc in docs}
    removed = 0
    for source in sources:
        ids = store.get(where={"source": source}, include=[])["ids"]
        stale = [doc_id for doc_id in ids if doc_id not in current]
        if stale:
            store.delete(ids=stale)
            removed += len(stale)
    return removed


def _check_batch_size(batch_size: int) -> None:
    if batch_size < 1:
        msg = f"batch_size must be at least 1, got {batch_size}"
        raise ConfigurationError(msg)


def index_documents(
    docs: Sequence[Document],
    store_dir: Path | str | None = None,
    *,
    batch_size: int = 256,
    progress: bool = True,
    embeddings: Embeddings | None = None,
) -> IndexReport:
    """Add documents to the store, skipping those already there; resumable after interruption.

    Documents are stored as given (no splitting). A document without ``id`` gets one from its
    ``source`` metadata and text, so re-running adds nothing twice.

    Args:
        docs: The passages.
        store_dir: The store directory or a Chroma server's URL; ``None`` uses the default store.
        batch_size: Chunks embedded and committed together; an interrupted run loses at most
            one batch of work.
        progress: Show a progress bar (on stderr).
        embeddings: The embedding model; ``None`` uses ``MiniLMEmbeddings()``.

    Returns:
        The counts of added and skipped documents.

    Raises:
        ConfigurationError: If ``batch_size`` is below 1.
        StoreError: If the store cannot be created, read or written.
    """
    _check_batch_size(batch_size)
    store = open_store(store_dir, create=True, embeddings=embeddings)
    added, skipped = _guarded_write(store, docs, directory=_local(store_dir), batch_size=batch_size,
                                    progress=progress)
    return IndexReport(chunks_added=added, chunks_skipped=skipped)


def _guarded_write(
    store: Chroma, docs: Sequence[Document], *, directory: Path | None, batch_size: int, progress: bool
) -> tuple[int, int]:
    """``_write_documents`` with Chroma's write failures (disk full, read-only) as StoreError."""
    from chromadb.errors import ChromaError

    try:
        return _write_documents(store, docs, batch_size=batch_size, progress=progress)
    except (OSError, ChromaError, sqlite3.Error) as e:
        msg = (
            f"Writing to the store failed ({type(e).__name__}: {e}){_disk_note(directory)}. Fix the cause and run "
            "the same command again: the batches already written are kept."
        )
        raise StoreError(msg) from e


def _local(store_dir: Path | str | None) -> Path | None:
    """The store's directory; None for a Chroma server (its disk is not this machine's)."""
    return None if is_server(store_dir) else resolve_store_dir(store_dir)


def _disk_note(directory: Path | None) -> str:
    """How much room is left where the store lives, when that is likely the cause (under 64 MiB)."""
    if directory is None:
        return ""
    try:
        free = shutil.disk_usage(directory).free
    except OSError:
        return ""
    return f"; the disk holding the store has {free / 2**20:.1f} MiB free" if free < 64 * 2**20 else ""


def index_paths(
    paths: Sequence[Path | str],
    store_dir: Path | str | None = None,
    *,
    chunk_size: int = 1000,
    chunk_overlap: int = 150,
    batch_size: int = 256,
    progress: bool = True,
    embeddings: Embeddings | None = None,
    strict: bool = False,
    ocr: bool = False,
) -> IndexReport:
    """Index .pdf, .html, .docx, .txt, .md and .jsonl files (or directories of them) into the store.

    .txt/.md files are split into overlapping chunks (metadata ``source`` = absolute path,
    ``title`` = first Markdown heading or file stem, ``section`` = a Markdown chunk's nearest heading,
    ``chunk``); a PDF's pages and an HTML or Word file's sections are chunked one at a time
    (:mod:`~selfrag_langchain.corpus.loaders`: ``page``, ``section``, the document's ``title``). Re-indexing a
    changed file replaces its old chunks (a moved file counts as a new one). Each .jsonl line is one
    passage (``text`` required; ``title``, ``id`` and other fields kept as metadata, a
    ``source`` field of the record wins over the file path) or a Self-RAG eval record whose
    non-empty ``ctxs`` are each indexed. Files that cannot be read and malformed lines are
    skipped, the rest is indexed, and what was skipped is listed in ``IndexReport.problems``;
    with ``strict``, anything skipped stops the run before the store is touched. A PDF without any text
    layer (a scan) is skipped unless ``ocr`` reads it.

    Args:
        paths: Files and directories.
        store_dir: The store directory or a Chroma server's URL; ``None`` uses the default store.
        chunk_size: Maximum characters per chunk of a .txt, .md, .pdf, .html or .docx file.
        chunk_overlap: Characters shared by consecutive chunks.
        batch_size: Chunks embedded and committed together.
        progress: Show a progress bar (on stderr).
        embeddings: The embedding model; ``None`` uses ``MiniLMEmbeddings()``.
        strict: Index nothing when any file or line would be skipped.
        ocr: Read a PDF's pages without a text layer with Tesseract, about 2 s a page; their chunks
            are marked ``"ocr": True`` (see ``load_documents``).

    Returns:
        Files read and skipped, chunks added, skipped and removed, and what was skipped.

    Raises:
        InputError: If a path is missing or has an unsupported type, if nothing given could be
            used, or (``strict``) if anything would be skipped; raised before the store is
            created or changed.
        ConfigurationError: If a size parameter is unusable; with ``ocr``, if what OCR needs is not
            installed (the message says what to install); raised before the store is created or changed.
        StoreError: If the store cannot be created, read or written.
    """
    _check_batch_size(batch_size)
    corpus = load_documents(
        paths, chunk_size=chunk_size, chunk_overlap=chunk_overlap, strict=strict, progress=progress, ocr=ocr
    )
    store = open_store(store_dir, create=True, embeddings=embeddings)
    logger.info("Indexing %d files into %s", len(corpus.files), _local(store_dir) or store_dir)
    added, skipped = _guarded_write(
        store, corpus.documents, directory=_local(store_dir), batch_size=batch_size, progress=progress
    )
    removed = _remove_stale(store, corpus.text_sources, corpus.documents)
    return IndexReport(
        files=len(corpus.files),
        files_skipped=len(corpus.files_skipped),
        chunks_added=added,
        chunks_skipped=skipped,
        chunks_removed=removed,
        problems=corpus.problems,
    )
