"""`selfrag index` on the files a team keeps, then `selfrag ask` citing the page or the heading the answer is
under: real PDF, HTML and Word files, a real Chroma store, the embedded default model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain.cli import main
from selfrag_langchain.corpus.store import open_store
from tests.fakes.documents import HANDBOOK_PAGES, HTML_PAGE, write_docx, write_pdf, write_scanned_pdf

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("team") / "docs"
    folder.mkdir()
    write_pdf(folder / "handbook.pdf")
    (folder / "wiki.html").write_text(HTML_PAGE, encoding="utf-8")
    write_docx(folder / "guide.docx")
    write_scanned_pdf(folder / "scan.pdf")
    return folder


@pytest.fixture(scope="module")
def store(documents: Path) -> Path:
    store = documents.parent / "store"
    assert main(["index", str(documents), "--store", str(store)]) == 0
    return store


def _ask(question: str, store: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["ask", question, "--store", str(store), "--k", "2", "--mode", "always", "--max-new-tokens", "24",
                 "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_scanned_pdf_is_named_and_the_other_files_are_indexed(documents: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", str(documents), "--store", str(tmp_path / "store")]) == 0
    out = capsys.readouterr()
    assert "scan.pdf: no text layer" in out.out + out.err
    titles = {m["title"] for m in open_store(tmp_path / "store", create=False).get(include=["metadatas"])["metadatas"]}
    assert titles == {"Staff handbook", "Acme wiki: onboarding", "Security guide"}


def test_the_answer_on_page_three_cites_page_three(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = _ask("How many days of paid leave does an employee have?", store, capsys)
    cited = result["citations"][0]["metadata"]
    assert (Path(cited["source"]).name, cited["page"]) == ("handbook.pdf", 3)
    assert "27" in result["answer"]  # the page's own words: an echo of the question holds no number

    assert main(["ask", "How many days of paid leave does an employee have?", "--store", str(store), "--k", "2",
                 "--mode", "always", "--max-new-tokens", "24"]) == 0
    assert "(handbook.pdf, p. 3)" in capsys.readouterr().out


def test_the_answer_under_a_heading_cites_the_heading(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = _ask("How many characters must a password have?", store, capsys)
    cited = result["citations"][0]["metadata"]
    assert (Path(cited["source"]).name, cited["section"]) == ("guide.docx", "Passwords")
    assert "14" in result["answer"]


def test_a_changed_pdf_replaces_its_old_chunks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, store = tmp_path / "handbook.pdf", tmp_path / "store"
    write_pdf(path)
    assert main(["index", str(path), "--store", str(store)]) == 0
    changed = tuple(p.replace("27 days", "30 days") for p in HANDBOOK_PAGES)
    write_pdf(path, changed)
    assert main(["index", str(path), "--store", str(store)]) == 0
    stored = open_store(store, create=False).get(include=["documents", "metadatas"])
    texts = stored["documents"]
    assert any("30 days" in t for t in texts) and not any("27 days" in t for t in texts)
    assert sorted(m["page"] for m in stored["metadatas"]) == [1, 2, 3, 5]
