"""``selfrag index``: turn the user's files into passages and add them to the store, resumably.

Every chunk gets an id derived from where it came from and what it says, so indexing the same
files twice adds nothing, and an interrupted run (Ctrl-C, a killed process) is finished by
running the same command again: batches already committed are skipped, the rest are added.
All input is read and checked before the store is touched, so a typo in a path never leaves a
half-created store behind. A file that cannot be read (not UTF-8, say) or a malformed line is
skipped and listed, and the rest is indexed; ``strict=True`` refuses the whole run instead.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import re
import shutil
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from selfrag_langchain.corpus.loaders import DocxLoader, HtmlLoader, PdfLoader
from selfrag_langchain.corpus.store import is_server, open_store, resolve_store_dir
from selfrag_langchain.corpus.text_files import UnreadableFileError, read_user_text
from selfrag_langchain.errors import ConfigurationError, InputError, StoreError
from selfrag_langchain.files.durable import json_lines
from selfrag_langchain.retrievers.passages import document_from_ctx

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

TEXT_SUFFIXES = frozenset({".txt", ".md"})
JSONL_SUFFIXES = frozenset({".jsonl"})
DOCUMENT_LOADERS: dict[str, type[BaseLoader]] = {".pdf": PdfLoader, ".html": HtmlLoader, ".htm": HtmlLoader,
                                                 ".docx": DocxLoader}
"""The loader of each document format (:mod:`selfrag_langchain.corpus.loaders`)."""
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | JSONL_SUFFIXES | frozenset(DOCUMENT_LOADERS)
"""File types ``index_paths`` reads; directories are searched for these."""

_ID_CHECK_BATCH = 500
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


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


@dataclass
class LoadedCorpus:
    """Files read and the chunks they yield, before anything is embedded."""

    files: list[Path]
    """Files read."""
    documents: list[Document]
    problems: list[str] = field(default_factory=list)
    """What was skipped: unreadable files and malformed lines, one message each."""
    files_skipped: list[Path] = field(default_factory=list)
    """Files that could not be read."""
    text_sources: list[str] = field(default_factory=list)
    """``source`` of every file read but .jsonl ones: their chunks are replaced on re-indexing."""


def chunk_id(source: str, text: str) -> str:
    """The store id of a chunk: a hash of where it comes from and of its text.

    Args:
        source: What identifies the origin (a file path, a passage id and title).
        text: The chunk text.

    Returns:
        A 64-character hex digest, stable across runs and machines.
    """
    return hashlib.sha256(f"{source}\x00{text}".encode()).hexdigest()


def _walk(root: Path) -> list[Path]:
    """Supported files under ``root``, sorted, without entering hidden directories."""
    files = []
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(names):
            path = Path(directory) / name
            if not name.startswith(".") and path.suffix.lower() in SUPPORTED_SUFFIXES:
                files.append(path)
    return files


def collect_files(paths: Sequence[Path | str]) -> list[Path]:
    """The files to index: given files, plus supported files found under given directories.

    Hidden files and directories (``.git``, ``.venv``) are not searched.

    Args:
        paths: Files and directories.

    Returns:
        Absolute paths, each once, in a stable order.

    Raises:
        InputError: If a path does not exist, a file has an unsupported extension, or
            nothing to index was found.
    """
    supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
    found: dict[Path, None] = {}
    for given in paths:
        path = Path(given).expanduser()
        if not path.exists():
            msg = f"No such file or directory: {given}"
            raise InputError(msg)
        path = path.resolve()
        if path.is_dir():
            for candidate in _walk(path):
                found.setdefault(candidate)
        elif path.suffix.lower() in SUPPORTED_SUFFIXES:
            found.setdefault(path)
        else:
            msg = f"Cannot index {given}: unsupported file type {path.suffix!r}; use {supported}"
            raise InputError(msg)
    if not found:
        msg = f"Nothing to index: no {supported} files under {', '.join(map(str, paths))}"
        raise InputError(msg)
    return list(found)


def _scalar_metadata(values: dict[str, Any]) -> dict[str, str | int | float | bool]:
    """Chroma stores only scalars: drop None, keep scalars, write the rest as JSON."""
    clean: dict[str, str | int | float | bool] = {}
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, str | int | float | bool):
            clean[str(key)] = value
        else:
            clean[str(key)] = json.dumps(value, ensure_ascii=False, default=str)
    return clean


def _text_file_documents(path: Path, chunk_size: int, chunk_overlap: int) -> list[Document]:
    """Split a .txt/.md file into overlapping chunks titled by its first heading or name."""
    from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

    text = read_user_text(path)
    source = str(path)
    title = path.stem
    if path.suffix.lower() == ".md":
        heading = _HEADING.search(text)
        if heading:
            title = heading.group(1).strip()
        splitter = RecursiveCharacterTextSplitter.from_language(
            Language.MARKDOWN, chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True
        )
    else:
        splitter = RecursiveCharacterTextSplitter(
            chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True
        )
    headings = [(m.start(), m.group(1).strip()) for m in _HEADING.finditer(text)] if path.suffix.lower() == ".md" \
        else []
    documents = []
    for index, piece in enumerate(p for p in splitter.create_documents([text]) if p.page_content.strip()):
        metadata: dict[str, Any] = {"source": source, "title": title, "chunk": index}
        start = piece.metadata.get("start_index", -1)
        section = next((h for at, h in reversed(headings) if at <= start), None) if start >= 0 else None
        if section:
            metadata["section"] = section
        documents.append(Document(id=chunk_id(f"file:{source}", piece.page_content), page_content=piece.page_content,
                                  metadata=metadata))
    return documents


def _loaded_file_documents(path: Path, loader: BaseLoader, chunk_size: int, chunk_overlap: int) -> list[Document]:
    """A PDF, HTML or Word file's units (pages, sections), each split into chunks on its own, so that no chunk
    spans two pages; each chunk keeps its unit's metadata (``page``, ``section``, ``title``)."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    documents = []
    for unit in loader.lazy_load():
        where = f"{unit.metadata.get('page', '')}\x00{unit.metadata.get('section', '')}"
        for chunk in splitter.split_text(unit.page_content):
            if chunk.strip():
                documents.append(Document(id=chunk_id(f"file:{path}\x00{where}", chunk), page_content=chunk,
                                          metadata={**unit.metadata, "chunk": len(documents)}))
    return documents


def _passage_document(text: str, metadata: dict[str, Any]) -> Document:
    identity = f"passage:{metadata.get('id', '')}\x00{metadata.get('title', '')}"
    return Document(
        id=chunk_id(identity, text), page_content=text, metadata=_scalar_metadata(metadata)
    )


def _ctx_documents(ctxs: list[Any], origin: dict[str, Any], problems: list[str]) -> list[Document]:
    """Index each ctx of a Self-RAG eval record: empty ones are skipped, bad ones reported."""
    docs = []
    for index, ctx in enumerate(ctxs):
        if isinstance(ctx, dict) and isinstance(ctx.get("text"), str) and not ctx["text"].strip():
            continue  # web results without a snippet: nothing to index
        try:
            doc = document_from_ctx(ctx, index)
        except InputError as e:
            problems.append(f"{origin['source']}, line {origin['line']}: {e}")
            continue
        kept = {k: v for k, v in doc.metadata.items() if k in ("title", "id")}
        docs.append(_passage_document(doc.page_content, {**origin, **kept}))
    return docs


def _jsonl_line_documents(
    record: Any, path: Path, number: int, problems: list[str]
) -> list[Document]:
    """Passages of one JSONL line: a ``{"text", ...}`` passage or a Self-RAG ``ctxs`` record.

    Raises:
        InputError: If the line is neither.
    """
    if not isinstance(record, dict):
        msg = "expected a JSON object with 'text' (or Self-RAG 'ctxs')"
        raise InputError(msg)
    origin = {"source": str(path), "line": number}
    if "text" in record:
        text = record["text"]
        if not isinstance(text, str) or not text.strip():
            msg = "'text' must be a non-empty string"
            raise InputError(msg)
        extra = {key: value for key, value in record.items() if key != "text"}
        metadata = {**origin, **extra, "title": str(record.get("title") or "")}
        if record.get("id") is not None:
            metadata["id"] = str(record["id"])
        return [_passage_document(text, metadata)]
    if isinstance(record.get("ctxs"), list):
        return _ctx_documents(record["ctxs"], origin, problems)
    msg = "a line needs 'text' (one passage) or 'ctxs' (Self-RAG eval record)"
    raise InputError(msg)


def _jsonl_documents(path: Path, problems: list[str]) -> list[Document]:
    """All passages of a JSONL file; malformed lines are added to ``problems`` and skipped."""
    docs: list[Document] = []
    for line in json_lines(read_user_text(path).splitlines()):
        if line.error is not None:
            problems.append(f"{path}, line {line.number}: not valid JSON ({line.error.msg})")
            continue
        try:
            docs.extend(_jsonl_line_documents(line.value, path, line.number, problems))
        except InputError as e:
            problems.append(f"{path}, line {line.number}: {e}")
    return docs


def _check_chunking(chunk_size: int, chunk_overlap: int) -> None:
    if chunk_size < 50:
        msg = f"chunk_size must be at least 50 characters, got {chunk_size}"
        raise ConfigurationError(msg)
    if not 0 <= chunk_overlap < chunk_size:
        msg = f"chunk_overlap must be in [0, chunk_size={chunk_size}), got {chunk_overlap}"
        raise ConfigurationError(msg)


def load_documents(
    paths: Sequence[Path | str],
    *,
    chunk_size: int = 1000,
    chunk_overlap: int = 150,
    strict: bool = False,
) -> LoadedCorpus:
    """Read and chunk files without touching any store or model.

    A file that cannot be read (not UTF-8, unreadable) and a malformed .jsonl line are skipped
    and listed in ``problems``, so one bad file does not keep the others out.

    Args:
        paths: Files and directories (see ``collect_files``).
        chunk_size: Maximum characters per chunk of a .txt, .md, .pdf, .html or .docx file.
        chunk_overlap: Characters shared by consecutive chunks.
        strict: Refuse the whole input when anything in it would be skipped.

    Returns:
        The files read, their chunks (each with its deterministic ``id``) and what was skipped.

    Raises:
        InputError: If a path is missing or unsupported; if everything given was skipped; with
            ``strict``, if anything was. The message lists what was skipped, one line each.
        ConfigurationError: If the chunk sizes are unusable.
    """
    _check_chunking(chunk_size, chunk_overlap)
    corpus = LoadedCorpus(files=[], documents=[])
    for path in collect_files(paths):
        try:
            suffix = path.suffix.lower()
            if suffix in JSONL_SUFFIXES:
                corpus.documents.extend(_jsonl_documents(path, corpus.problems))
            elif suffix in DOCUMENT_LOADERS:
                loader = DOCUMENT_LOADERS[suffix](path)
                corpus.documents.extend(_loaded_file_documents(path, loader, chunk_size, chunk_overlap))
                corpus.text_sources.append(str(path))
            else:
                corpus.documents.extend(_text_file_documents(path, chunk_size, chunk_overlap))
                corpus.text_sources.append(str(path))
        except UnreadableFileError as e:
            corpus.problems.append(f"{e.path}: {e.reason}")
            corpus.files_skipped.append(path)
            continue
        corpus.files.append(path)
    _refuse_unusable(corpus, strict=strict)
    return corpus


def _refuse_unusable(corpus: LoadedCorpus, *, strict: bool) -> None:
    """Raise when nothing usable is left, or (strict) when anything was skipped.

    An empty but readable file is not a problem: re-indexing it removes its old chunks.
    """
    if not corpus.problems or ((corpus.documents or corpus.text_sources) and not strict):
        return
    if strict:
        head = f"nothing indexed (strict): {_count(len(corpus.problems), 'problem')} in the input"
    else:
        head = "nothing to index: everything given was skipped"
    msg = "\n  ".join([f"{head}:", *corpus.problems])
    raise InputError(msg)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


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
                metadatas=[_scalar_metadata(doc.metadata) for doc in batch],
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
    with ``strict``, anything skipped stops the run before the store is touched.

    Args:
        paths: Files and directories.
        store_dir: The store directory or a Chroma server's URL; ``None`` uses the default store.
        chunk_size: Maximum characters per chunk of a .txt, .md, .pdf, .html or .docx file.
        chunk_overlap: Characters shared by consecutive chunks.
        batch_size: Chunks embedded and committed together.
        progress: Show a progress bar (on stderr).
        embeddings: The embedding model; ``None`` uses ``MiniLMEmbeddings()``.
        strict: Index nothing when any file or line would be skipped.

    Returns:
        Files read and skipped, chunks added, skipped and removed, and what was skipped.

    Raises:
        InputError: If a path is missing or has an unsupported type, if nothing given could be
            used, or (``strict``) if anything would be skipped; raised before the store is
            created or changed.
        ConfigurationError: If a size parameter is unusable.
        StoreError: If the store cannot be created, read or written.
    """
    _check_batch_size(batch_size)
    corpus = load_documents(
        paths, chunk_size=chunk_size, chunk_overlap=chunk_overlap, strict=strict
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
