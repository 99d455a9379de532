"""The documents teams keep, read as LangChain loaders: PDF page by page, HTML's main text, Word's paragraphs.

Each loader is a :class:`~langchain_core.document_loaders.BaseLoader` yielding one ``Document`` per unit a
reader can open: a PDF page (``page``, from 1) or a section under its nearest heading (``section``; HTML,
Word). Every document carries ``source`` (the file), ``title`` (the document's own title, else the file's name)
and ``format``. Chunking comes after (:mod:`selfrag_langchain.corpus.reading`), a unit at a time, so a chunk
never spans two pages.

A file that cannot be read raises :class:`~selfrag_langchain.corpus.text_files.UnreadableFileError` with the
reason a user can act on: an encrypted PDF, a scanned one without a text layer, a corrupt file, a ``.docx``
that is something else. The libraries are pypdf (BSD), BeautifulSoup (MIT) and python-docx (MIT); with
``ocr=True`` a PDF's pages without a text layer are read by Tesseract (:mod:`~selfrag_langchain.corpus.ocr`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document

from selfrag_langchain.corpus.ocr import check_ocr, ocr_pages
from selfrag_langchain.corpus.text_files import UnreadableFileError, read_user_text

__all__ = ["DocxLoader", "HtmlLoader", "PdfLoader"]

_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANK_LINES = re.compile(r"\n{3,}")


def _tidy(text: str) -> str:
    """Runs of spaces made one, at most one blank line in a row, each line trimmed."""
    lines = (_SPACES.sub(" ", line).strip() for line in text.splitlines())
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def _unit(text: str, path: Path, title: str, fmt: str, **where: Any) -> Document:
    metadata = {"source": str(path), "title": title, "format": fmt, **{k: v for k, v in where.items() if v}}
    return Document(page_content=text, metadata=metadata)


class PdfLoader(BaseLoader):
    """A PDF's text layer, one document per page that has text (``page`` numbered from 1, as a viewer shows).

    With ``ocr=True`` each page without a text layer (a scan) is rendered and read by Tesseract, its document
    marked ``"ocr": True``; pages with a text layer keep it, and a page OCR finds no words on is left out like an
    empty page. OCR needs ``pip install "selfrag-langchain[ocr]"`` and ``sudo apt-get install tesseract-ocr
    tesseract-ocr-eng``, and takes about 2 s a page on one CPU core.

    Example:
        .. code-block:: python

            from selfrag_langchain.corpus.loaders import PdfLoader

            pages = PdfLoader("handbook.pdf").load()
            pages[0].metadata   # {'source': 'handbook.pdf', 'title': 'Staff handbook', 'format': 'pdf', 'page': 1}
            scanned = PdfLoader("signed-contract.pdf", ocr=True).load()
            scanned[0].metadata  # {..., 'format': 'pdf', 'page': 1, 'ocr': True}
    """

    def __init__(self, path: str | Path, *, ocr: bool = False, progress: bool = False) -> None:
        """Args:
            path: The PDF.
            ocr: Read the pages without a text layer with Tesseract.
            progress: Show a progress bar over the pages OCR reads (when that takes over 2 s)."""
        self.path = Path(path)
        self.ocr = ocr
        self.progress = progress

    def lazy_load(self) -> Iterator[Document]:
        """Raises:
            UnreadableFileError: for an encrypted, corrupt or unreadable file, or one without any text (without
                ``ocr``: without any text layer).
            ConfigurationError: with ``ocr``, when a page needs OCR and pypdfium2, pytesseract or Tesseract is
                missing (the message says what to install)."""
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError

        try:
            reader = PdfReader(self.path)
            if reader.is_encrypted and not reader.decrypt(""):
                raise UnreadableFileError(f"{self.path}: encrypted PDF", self.path,
                                          "encrypted PDF: decrypt it first (e.g. `qpdf --decrypt`)")
            title = _pdf_title(reader) or self.path.stem
            pages = [(number, _tidy(page.extract_text() or "")) for number, page in enumerate(reader.pages, 1)]
        except UnreadableFileError:
            raise
        except (PdfReadError, OSError, ValueError, KeyError, TypeError) as e:
            raise _unreadable(self.path, "not a readable PDF", e) from e
        scanned = [number for number, text in pages if not text]
        read = self._read_scans(scanned) if self.ocr and scanned else {}
        pages = [(number, read.get(number, text)) for number, text in pages]
        if not any(text for _, text in pages):
            reason = (f"no text in its {len(pages)} page(s), neither a text layer nor words OCR could read"
                      if self.ocr else
                      f"no text layer in its {len(pages)} page(s) (a scan?): index it with `--ocr` (Python: "
                      "`ocr=True`) to read its pages with OCR")
            raise UnreadableFileError(f"{self.path}: {reason}", self.path, reason)
        for number, text in pages:
            if text:
                yield _unit(text, self.path, title, "pdf", page=number, ocr=number in read)

    def _read_scans(self, numbers: list[int]) -> dict[int, str]:
        """The tidied text OCR reads on the pages ``numbers``."""
        check_ocr()
        from pypdfium2 import PdfiumError
        from pytesseract import TesseractError

        try:
            return {number: _tidy(text) for number, text in
                    ocr_pages(self.path, numbers, progress=self.progress).items()}
        except (PdfiumError, TesseractError, OSError) as e:
            raise _unreadable(self.path, "OCR failed", e) from e


def _unreadable(path: Path, what: str, error: Exception) -> UnreadableFileError:
    """``what`` went wrong with the file at ``path``, the library's own words in brackets."""
    reason = f"{what} ({type(error).__name__}: {error})".rstrip(": )") + ")"
    return UnreadableFileError(f"{path}: {reason}", path, reason)


_NO_TITLE = re.compile(r"^(untitled\b.*|document\d*|microsoft word - .*|\S+\.(docx?|pdf|odt|rtf))$", re.IGNORECASE)
"""What tools write as a PDF's title when its author gave none ("untitled", "Microsoft Word - draft.docx")."""


def _pdf_title(reader: Any) -> str | None:
    """The PDF's own title, unless it is a placeholder a tool wrote (then the file's name serves better)."""
    try:
        title = str(reader.metadata.title or "").strip() if reader.metadata else ""
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    return title if title and not _NO_TITLE.match(title) else None


_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = ("p", "li", "pre", "blockquote", "td", "th", "dd", "dt", "figcaption", "caption", "div", "section")
_CHROME = ("script", "style", "noscript", "nav", "header", "footer", "aside", "form", "template", "svg", "iframe",
           "button")


class HtmlLoader(BaseLoader):
    """An HTML page's main text (its ``<main>`` or ``<article>``, else its body), without navigation, scripts
    and styles, one document per section under its nearest heading; ``title`` is the page's ``<title>``."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def lazy_load(self) -> Iterator[Document]:
        """Raises:
            UnreadableFileError: for a file that is not text (see :func:`read_user_text`)."""
        from bs4 import BeautifulSoup

        soup = BeautifulSoup(read_user_text(self.path), "html.parser")
        title_tag = soup.find("title")
        title = _tidy(title_tag.get_text(" ")) if title_tag else ""
        for tag in soup.find_all(_CHROME):
            tag.decompose()
        main = soup.find("main") or soup.find("article") or soup.find("body") or soup
        section: str | None = None
        parts: list[str] = []
        for element in main.find_all([*_HEADINGS, *_BLOCKS]):
            if element.name in _HEADINGS:
                if parts:
                    yield _unit("\n\n".join(parts), self.path, title or self.path.stem, "html", section=section)
                section, parts = _tidy(element.get_text(" ")) or section, []
                title = title or (section or "")
            elif not element.find([*_HEADINGS, *_BLOCKS]):  # the innermost block: its text once
                text = _tidy(element.get_text(" "))
                if text:
                    parts.append(text)
        if parts:
            yield _unit("\n\n".join(parts), self.path, title or self.path.stem, "html", section=section)


class DocxLoader(BaseLoader):
    """A Word ``.docx`` file's paragraphs (and table cells), one document per section under its nearest heading
    (a paragraph styled "Heading N" or "Title"); ``title`` is the document's title property, else its first
    "Title" paragraph, else the file's name."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def lazy_load(self) -> Iterator[Document]:
        """Raises:
            UnreadableFileError: for a file that is not a Word document (an old ``.doc``, a renamed file)."""
        import zipfile

        import docx
        from docx.opc.exceptions import PackageNotFoundError

        try:
            document = docx.Document(str(self.path))
        except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, OSError) as e:
            reason = "not a Word .docx file (an old .doc or another format renamed? save it as .docx)"
            raise UnreadableFileError(f"{self.path}: {reason}", self.path, reason) from e
        title = (document.core_properties.title or "").strip()
        section: str | None = None
        parts: list[str] = []
        for paragraph in _docx_paragraphs(document):
            text = _tidy(paragraph.text)
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            if not text:
                continue
            if style == "Title" or style.startswith("Heading"):
                if parts:
                    yield _unit("\n\n".join(parts), self.path, title or self.path.stem, "docx", section=section)
                    parts = []
                title = title or (text if style == "Title" else "")
                section = text
            else:
                parts.append(text)
        if parts:
            yield _unit("\n\n".join(parts), self.path, title or self.path.stem, "docx", section=section)


def _docx_paragraphs(document: Any) -> Iterator[Any]:
    """The body's paragraphs in order, those of its tables' cells where the tables stand."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            yield item
        elif isinstance(item, Table):
            for row in item.rows:
                for cell in row.cells:
                    yield from cell.paragraphs
