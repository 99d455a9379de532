"""PDF, HTML and Word files read as a reader would cite them: pages and headings kept, chrome left out, and
every bad file skipped with a reason a user can act on."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.documents import Document

from selfrag_langchain.chains.citations import location
from selfrag_langchain.commands.ask import print_sources
from selfrag_langchain.corpus.loaders import DocxLoader, HtmlLoader, PdfLoader
from selfrag_langchain.corpus.reading import load_documents
from selfrag_langchain.corpus.text_files import UnreadableFileError
from selfrag_langchain.errors import InputError
from tests.fakes.documents import (
    HANDBOOK_PAGES,
    HTML_PAGE,
    write_docx,
    write_encrypted_pdf,
    write_pdf,
    write_scanned_pdf,
)


def test_a_pdf_is_read_page_by_page_with_its_title_and_empty_pages_left_out(tmp_path: Path) -> None:
    pages = PdfLoader(write_pdf(tmp_path / "handbook.pdf")).load()
    assert [d.metadata["page"] for d in pages] == [1, 2, 3, 5]  # page 4 is empty
    assert [d.page_content for d in pages] == [p for p in HANDBOOK_PAGES if p]
    assert {d.metadata["title"] for d in pages} == {"Staff handbook"}


def test_a_pdf_without_a_title_is_titled_by_its_file_name(tmp_path: Path) -> None:
    (page,) = PdfLoader(write_pdf(tmp_path / "leave-policy.pdf", ("One page.",), title=None)).load()
    assert page.metadata["title"] == "leave-policy"


def test_html_keeps_the_main_text_by_section_and_leaves_out_navigation_scripts_and_styles(tmp_path: Path) -> None:
    path = tmp_path / "wiki.html"
    path.write_text(HTML_PAGE, encoding="utf-8")
    sections = HtmlLoader(path).load()
    assert [(d.metadata["section"], d.page_content) for d in sections] == [
        ("Onboarding", "New staff receive a laptop on their first day."),
        ("Parking", "The car park opens at 7 am.\n\nBicycles are kept in the basement.")]
    text = " ".join(d.page_content for d in sections)
    assert "cafeteria" not in text and "Jobs" not in text and "Copyright" not in text and "color" not in text
    assert {d.metadata["title"] for d in sections} == {"Acme wiki: onboarding"}


def test_word_paragraphs_and_tables_are_read_under_their_headings(tmp_path: Path) -> None:
    sections = DocxLoader(write_docx(tmp_path / "guide.docx")).load()
    assert [(d.metadata["section"], d.page_content) for d in sections] == [
        ("Passwords", "Passwords must have at least 14 characters."),
        ("Badges", "A lost badge is replaced at the reception desk.\n\nReception floor\n\nThird")]
    assert {d.metadata["title"] for d in sections} == {"Security guide"}


@pytest.mark.parametrize(("name", "make", "reason"), [
    ("locked.pdf", lambda p: write_encrypted_pdf(p, write_pdf(p.with_name("plain.pdf"))), "encrypted PDF"),
    ("scan.pdf", write_scanned_pdf, "no text layer in its 1 page"),
    ("broken.pdf", lambda p: p.write_bytes(b"%PDF-1.4\n1 0 obj <<"), "not a readable PDF"),
    ("notes.docx", lambda p: p.write_text("plain text saved as .docx"), "not a Word .docx file"),
])
def test_a_bad_file_raises_the_reason_a_user_can_act_on(tmp_path: Path, name: str, make, reason: str) -> None:
    path = tmp_path / name
    make(path)
    loader = DocxLoader(path) if name.endswith(".docx") else PdfLoader(path)
    with pytest.raises(UnreadableFileError, match=reason):
        loader.load()


def test_indexing_input_keeps_pages_and_sections_and_skips_bad_files_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    write_pdf(folder / "handbook.pdf")
    write_scanned_pdf(folder / "scan.pdf")
    (folder / "wiki.html").write_text(HTML_PAGE, encoding="utf-8")
    write_docx(folder / "guide.docx")
    (folder / "faq.md").write_text("# FAQ\n\nAnswers to the questions new staff ask in their first week.\n\n"
                                   "## Printing\n\nThe printer is on floor two.\n")
    corpus = load_documents([folder], chunk_size=60, chunk_overlap=0)
    assert corpus.problems == [f"{folder / 'scan.pdf'}: no text layer in its 1 page(s) (a scan?): index it with "
                               "`--ocr` (Python: `ocr=True`) to read its pages with OCR"]
    leave = next(d for d in corpus.documents if "27 days" in d.page_content)
    assert location(leave.metadata) == "handbook.pdf, p. 3"
    pdf_chunks = [d for d in corpus.documents if d.metadata["source"].endswith(".pdf")]
    for chunk in pdf_chunks:  # a chunk never spans two pages: its text is all on the page it names
        assert chunk.page_content in HANDBOOK_PAGES[chunk.metadata["page"] - 1]
    printing = next(d for d in corpus.documents if "printer" in d.page_content)
    assert location(printing.metadata) == "faq.md, Printing"
    assert {location(d.metadata) for d in corpus.documents if d.metadata["source"].endswith(".docx")} == {
        "guide.docx, Passwords", "guide.docx, Badges"}
    assert len({d.id for d in corpus.documents}) == len(corpus.documents)
    assert set(corpus.text_sources) == {str(folder / n) for n in ("handbook.pdf", "wiki.html", "guide.docx", "faq.md")}


def test_strict_stops_on_a_bad_document_before_anything_is_written(tmp_path: Path) -> None:
    write_pdf(tmp_path / "handbook.pdf")
    (tmp_path / "old.docx").write_text("a .doc renamed")
    with pytest.raises(InputError, match=r"old\.docx: not a Word \.docx file"):
        load_documents([tmp_path], strict=True)


def test_answers_cite_the_page_or_section(capsys: pytest.CaptureFixture[str]) -> None:
    cited = [Document("Every employee has 27 days of paid leave a year.",
                      metadata={"citation": 1, "title": "Staff handbook", "source": "/srv/handbook.pdf", "page": 3}),
             Document("Passwords must have at least 14 characters.",
                      metadata={"citation": 2, "title": "Security guide", "source": "guide.docx",
                                "section": "Passwords"}),
             Document("A volcano is a rupture in the crust.", metadata={"citation": 3, "title": "Volcano"})]
    print_sources(cited)
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("  [1] Staff handbook (handbook.pdf, p. 3): Every employee")
    assert lines[3].startswith("  [2] Security guide (guide.docx, Passwords): Passwords must")
    assert lines[4].startswith("  [3] Volcano: A volcano")
    assert location({"source": "https://example.org/a.pdf", "page": 2}) is None  # a URL is cited as a link
