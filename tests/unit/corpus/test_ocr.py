"""Scanned PDF pages read with OCR (``selfrag index --ocr``, ``PdfLoader(path, ocr=True)``): a real PDF whose
page 2 is an image of known sentences, read by the real Tesseract; and, when what OCR needs is missing, one line
saying what to install, before any store is touched."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from selfrag_langchain.cli import main
from selfrag_langchain.corpus import store as store_module
from selfrag_langchain.corpus.indexing import index_paths, load_documents
from selfrag_langchain.corpus.loaders import PdfLoader
from selfrag_langchain.corpus.store import open_store
from selfrag_langchain.corpus.text_files import UnreadableFileError
from selfrag_langchain.errors import ConfigurationError
from tests.fakes.bag_of_words import BagOfWords
from tests.fakes.documents import HANDBOOK_PAGES, write_half_scanned_pdf, write_scanned_pdf

_PACKAGES = all(importlib.util.find_spec(module) for module in ("pypdfium2", "pytesseract"))
needs_packages = pytest.mark.skipif(not _PACKAGES, reason='OCR needs its Python packages: pip install '
                                    '"selfrag-langchain[ocr]" (bash scripts/setup.sh dev installs them)')
needs_ocr = pytest.mark.skipif(
    shutil.which("tesseract") is None or not _PACKAGES,
    reason="OCR needs Tesseract and its Python packages: sudo apt-get install tesseract-ocr tesseract-ocr-eng; "
           'pip install "selfrag-langchain[ocr]" (bash scripts/setup.sh dev installs both)')


def _read_back(text: str) -> bool:
    """Whether OCR read the scanned page's made-up name and number (its other words may carry OCR noise)."""
    return all(word in text.lower() for word in ("zorvath", "quimby", "4817"))


@needs_ocr
def test_without_ocr_the_scanned_page_is_left_out_and_with_it_the_page_is_read(tmp_path: Path) -> None:
    path = write_half_scanned_pdf(tmp_path / "minutes.pdf")
    (first,) = PdfLoader(path).load()
    assert first.metadata["page"] == 1 and "ocr" not in first.metadata

    pages = PdfLoader(path, ocr=True).load()
    assert [d.metadata["page"] for d in pages] == [1, 2]
    assert pages[0].page_content == HANDBOOK_PAGES[0] and "ocr" not in pages[0].metadata  # its text layer kept
    assert _read_back(pages[1].page_content), pages[1].page_content
    assert pages[1].metadata == {"source": str(path), "title": "minutes", "format": "pdf", "page": 2, "ocr": True}


@needs_ocr
def test_selfrag_index_ocr_stores_the_scanned_page_by_its_pdf_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(store_module, "MiniLMEmbeddings", BagOfWords)  # the store's default embedder: no model
    path = write_half_scanned_pdf(tmp_path / "minutes.pdf")
    assert main(["index", str(path), "--store", str(tmp_path / "store"), "--ocr"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("indexed 1 file(s): 2 chunk(s) added") and "skipped" not in out.err
    stored = open_store(tmp_path / "store", create=False, embeddings=BagOfWords()).get(
        include=["documents", "metadatas"])
    pages = sorted(zip(stored["metadatas"], stored["documents"], strict=True), key=lambda pair: pair[0]["page"])
    assert [(meta["page"], meta.get("ocr", False)) for meta, _ in pages] == [(1, False), (2, True)]
    assert _read_back(pages[1][1]), pages[1][1]

    assert main(["index", str(path), "--store", str(tmp_path / "store")]) == 0  # again, without OCR: as a change
    assert capsys.readouterr().out.startswith("indexed 1 file(s): 0 chunk(s) added, 1 already present, 1 removed")


@needs_ocr
def test_a_page_ocr_finds_no_words_on_is_an_empty_page(tmp_path: Path) -> None:
    path = write_scanned_pdf(tmp_path / "drawing.pdf")  # shapes only: neither a text layer nor words
    with pytest.raises(UnreadableFileError, match=r"no text in its 1 page\(s\), neither a text layer nor words OCR"):
        PdfLoader(path, ocr=True).load()


def test_without_ocr_a_scanned_pdf_is_skipped_with_the_flag_that_reads_it(tmp_path: Path) -> None:
    path = write_scanned_pdf(tmp_path / "scan.pdf")
    with pytest.raises(UnreadableFileError) as caught:
        PdfLoader(path).load()
    assert caught.value.reason == ("no text layer in its 1 page(s) (a scan?): index it with `--ocr` (Python: "
                                   "`ocr=True`) to read its pages with OCR")


@needs_packages
def test_without_tesseract_ocr_is_one_line_naming_the_install_and_the_store_is_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import pytesseract

    notes = tmp_path / "notes.txt"
    notes.write_text("The boiler room is on the lower ground floor, behind the loading bay.")
    store = tmp_path / "store"
    index_paths([notes], store, progress=False, embeddings=BagOfWords())
    before = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    scan = write_half_scanned_pdf(tmp_path / "minutes.pdf")
    monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", str(tmp_path / "no-tesseract"))

    capsys.readouterr()
    assert main(["index", str(scan), str(notes), "--store", str(store), "--ocr"]) == 2
    err = capsys.readouterr().err
    assert err == (f"selfrag: error: OCR needs the Tesseract program, and `{tmp_path / 'no-tesseract'}` not found: "
                   "sudo apt-get install tesseract-ocr tesseract-ocr-eng\n")
    assert {p: p.read_bytes() for p in store.rglob("*") if p.is_file()} == before
    with pytest.raises(ConfigurationError, match="sudo apt-get install tesseract-ocr"):
        PdfLoader(scan, ocr=True).load()
    assert len(PdfLoader(scan).load()) == 1  # without OCR the file reads as before


@needs_packages
def test_tesseract_without_english_data_names_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pytesseract

    fake = tmp_path / "tesseract"  # a Tesseract with only the script-detection data
    fake.write_text('#!/bin/sh\necho \'List of available languages in "/usr/share/tessdata/" (1):\'\necho osd\n')
    fake.chmod(0o755)
    monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", str(fake))
    with pytest.raises(ConfigurationError, match=r"^Tesseract has no English data \(eng\.traineddata\): "
                                                 r"sudo apt-get install tesseract-ocr-eng$"):
        load_documents([write_half_scanned_pdf(tmp_path / "minutes.pdf")], ocr=True)


def test_without_the_python_packages_ocr_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypdfium2", None)  # as if not installed: importing it fails
    path = write_scanned_pdf(tmp_path / "scan.pdf")
    with pytest.raises(ConfigurationError, match=r'\(pypdfium2 is missing\): pip install "selfrag-langchain\[ocr\]"$'):
        load_documents([path], ocr=True)
