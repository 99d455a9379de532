"""Reading the files ``selfrag index`` is given: found, read, chunked and checked, before any store is touched.

Every chunk gets an id derived from where it came from and what it says (:func:`chunk_id`), so indexing the same
files twice adds nothing. A ``.txt`` or ``.md`` file is split into overlapping chunks; a PDF's pages and an HTML
or Word file's sections (:mod:`~selfrag_langchain.corpus.loaders`) are chunked one at a time; a ``.jsonl`` line is
one passage or a Self-RAG evaluation record. A file that cannot be read (not UTF-8, a scanned PDF) or a malformed
line is skipped and listed, and the rest is read; ``strict=True`` refuses the whole input instead. ``ocr=True``
reads a PDF's pages without a text layer with Tesseract (:mod:`~selfrag_langchain.corpus.ocr`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document

from selfrag_langchain.corpus.loaders import DocxLoader, HtmlLoader, PdfLoader
from selfrag_langchain.corpus.ocr import check_ocr
from selfrag_langchain.corpus.text_files import UnreadableFileError, read_user_text
from selfrag_langchain.errors import ConfigurationError, InputError
from selfrag_langchain.files.durable import json_lines
from selfrag_langchain.retrievers.passages import document_from_ctx

__all__ = [
    "DOCUMENT_LOADERS",
    "SUPPORTED_SUFFIXES",
    "LoadedCorpus",
    "chunk_id",
    "collect_files",
    "load_documents",
]

TEXT_SUFFIXES = frozenset({".txt", ".md"})
JSONL_SUFFIXES = frozenset({".jsonl"})
DOCUMENT_LOADERS: dict[str, type[BaseLoader]] = {".pdf": PdfLoader, ".html": HtmlLoader, ".htm": HtmlLoader,
                                                 ".docx": DocxLoader}
"""The loader of each document format (:mod:`selfrag_langchain.corpus.loaders`)."""
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | JSONL_SUFFIXES | frozenset(DOCUMENT_LOADERS)
"""File types ``index_paths`` reads; directories are searched for these."""

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


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


def scalar_metadata(values: dict[str, Any]) -> dict[str, str | int | float | bool]:
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
        id=chunk_id(identity, text), page_content=text, metadata=scalar_metadata(metadata)
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
    progress: bool = False,
    ocr: bool = False,
) -> LoadedCorpus:
    """Read and chunk files without touching any store or model.

    A file that cannot be read (not UTF-8, unreadable) and a malformed .jsonl line are skipped
    and listed in ``problems``, so one bad file does not keep the others out.

    Args:
        paths: Files and directories (see ``collect_files``).
        chunk_size: Maximum characters per chunk of a .txt, .md, .pdf, .html or .docx file.
        chunk_overlap: Characters shared by consecutive chunks.
        strict: Refuse the whole input when anything in it would be skipped.
        progress: Show a progress bar over the files (when there are several and reading takes over 2 s), and
            over a PDF's pages OCR reads.
        ocr: Read the pages of a PDF that have no text layer (scans) with Tesseract, about 2 s a page
            (:class:`~selfrag_langchain.corpus.loaders.PdfLoader`); the chunks of those pages are marked
            ``"ocr": True``.

    Returns:
        The files read, their chunks (each with its deterministic ``id``) and what was skipped.

    Raises:
        InputError: If a path is missing or unsupported; if everything given was skipped; with
            ``strict``, if anything was. The message lists what was skipped, one line each.
        ConfigurationError: If the chunk sizes are unusable; with ``ocr``, if Tesseract or the Python packages
            OCR needs are missing (checked before any file is read).
    """
    _check_chunking(chunk_size, chunk_overlap)
    corpus = LoadedCorpus(files=[], documents=[])
    from tqdm.auto import tqdm

    files = collect_files(paths)
    if ocr:
        check_ocr()
    # Shown only once reading takes a while: a quick read (or a refused one) prints no bar.
    for path in tqdm(files, desc="Reading", unit="file", delay=2, disable=not progress or len(files) < 2):
        try:
            suffix = path.suffix.lower()
            if suffix in JSONL_SUFFIXES:
                corpus.documents.extend(_jsonl_documents(path, corpus.problems))
            elif suffix in DOCUMENT_LOADERS:
                loader = PdfLoader(path, ocr=True, progress=progress) if ocr and suffix == ".pdf" \
                    else DOCUMENT_LOADERS[suffix](path)
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
