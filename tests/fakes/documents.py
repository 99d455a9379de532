"""Real PDF, HTML and Word files with known facts on known pages and under known headings, and the bad files
teams have: an encrypted PDF, a scanned one (no text layer), a corrupt one, a ``.docx`` that is not one; and a PDF
whose second page is a scan of known sentences, for OCR."""

from __future__ import annotations

from pathlib import Path

HANDBOOK_PAGES = (
    "Welcome to Acme Tools. This handbook explains how the company works.",
    "Working hours are from nine to five, Monday to Friday.",
    "Every employee has 27 days of paid leave a year, booked through the leave portal.",
    "",  # an empty page: nothing to index, and the page numbers after it stay right
    "The travel allowance is 40 euros a day, paid with the monthly salary.",
)
"""The handbook's pages, in order (page 3 holds the leave, page 5 the allowance)."""


def write_pdf(path: Path, pages: tuple[str, ...] = HANDBOOK_PAGES, title: str | None = "Staff handbook") -> Path:
    """A PDF with one line of text per page (an empty string: an empty page)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    page = canvas.Canvas(str(path), pagesize=A4)
    if title:
        page.setTitle(title)
    for text in pages:
        if text:
            page.drawString(60, 760, text)
        page.showPage()
    page.save()
    return path


def write_scanned_pdf(path: Path) -> Path:
    """A PDF of drawn shapes only, as a scanner's image-only pages have no text layer."""
    from reportlab.pdfgen import canvas

    page = canvas.Canvas(str(path))
    page.rect(50, 50, 300, 400, fill=1)
    page.showPage()
    page.save()
    return path


SCANNED_PAGE = (
    "The archivist Zorvath Quimby counted 4817 boxes",
    "in the cellar of the old mill on a wet Tuesday.",
)
"""The lines of :func:`write_half_scanned_pdf`'s page 2, an image only; "Zorvath", "Quimby" and "4817" are the
words OCR must read back (a made-up name and a number, which no guess completes)."""


def write_half_scanned_pdf(path: Path, dpi: int = 200) -> Path:
    """A two-page PDF: page 1 with a text layer (``HANDBOOK_PAGES[0]``), page 2 an image of
    :data:`SCANNED_PAGE` drawn at ``dpi`` and no text, as a scanner makes it."""
    from PIL import Image, ImageDraw, ImageFont
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    width_in, height_in = 7, 2
    image = Image.new("L", (width_in * dpi, height_in * dpi), 255)
    font = ImageFont.load_default(size=dpi * 14 // 72)  # 14-point print
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(SCANNED_PAGE):
        draw.text((dpi // 4, dpi // 4 + row * dpi * 20 // 72), line, fill=0, font=font)
    page = canvas.Canvas(str(path), pagesize=A4)
    page.drawString(60, 760, HANDBOOK_PAGES[0])
    page.showPage()
    page.drawImage(ImageReader(image), 40, 600, width=width_in * 72, height=height_in * 72)
    page.showPage()
    page.save()
    return path


def write_encrypted_pdf(path: Path, source: Path) -> Path:
    """``source`` encrypted with a user password."""
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=str(source))
    writer.encrypt("secret", algorithm="RC4-128")
    with path.open("wb") as out:
        writer.write(out)
    return path


HTML_PAGE = """<!doctype html>
<html><head><title>Acme wiki: onboarding</title><style>p { color: red }</style>
<script>var tracking = "the cafeteria closes at noon";</script></head>
<body><nav><a href="/">Home</a> | <a href="/jobs">Jobs</a></nav>
<main><h1>Onboarding</h1><p>New staff receive a laptop on their first day.</p>
<h2>Parking</h2><p>The car park opens at 7 am.</p><ul><li>Bicycles are kept in the basement.</li></ul>
</main><footer>Copyright Acme Tools</footer></body></html>
"""
"""An HTML page: navigation, a script and a footer around the main text of two sections."""


def write_docx(path: Path) -> Path:
    """A Word document: a title, two headed sections, a table under the second."""
    import docx

    document = docx.Document()
    document.add_heading("Security guide", 0)
    document.add_heading("Passwords", 1)
    document.add_paragraph("Passwords must have at least 14 characters.")
    document.add_heading("Badges", 1)
    document.add_paragraph("A lost badge is replaced at the reception desk.")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Reception floor"
    table.cell(0, 1).text = "Third"
    document.save(str(path))
    return path
