"""OCR of scanned PDF pages (`selfrag index --ocr`) against reading the same pages' text layer: seconds a page,
pages per second, and the share of the known words OCR reads back.

Writes ``--pages`` pages of made-up records (names, numbers, places, ordinary words; 10-point print) as a PDF with
a text layer, then scans it: each page rendered in grey at ``--scan-dpi``, skewed by up to a degree, a little
blurred and speckled (``--clean``: none of these), and saved as an image-only PDF, as a scanner writes one.
``PdfLoader`` reads the text PDF (the baseline) and the scanned one with ``ocr=True`` (each page rendered again at
the loader's resolution, or at each ``--ocr-dpi``, and read by Tesseract). A known word counts as read as many
times as OCR gives it, up to its count in the text; words are compared lower-cased without punctuation, numbers
also on their own. Tesseract takes the threads OpenMP allows: OMP_THREAD_LIMIT=1 measures one core.

    OMP_THREAD_LIMIT=1 python benchmarks/ocr_pages.py --pages 20
"""

from __future__ import annotations

import argparse
import os
import random
import re
import tempfile
import time
from collections import Counter
from pathlib import Path

FIRST = ("Aldous", "Brenna", "Corvin", "Dagny", "Elspeth", "Fintan", "Greta", "Hollis", "Ingrid", "Jasper")
LAST = ("Quimby", "Marlowe", "Okonkwo", "Thistlewood", "Varga", "Lindqvist", "Pemberton", "Castellanos")
PLACES = ("Ashford", "Brightwater", "Cold Harbour", "Dunmore", "Eastleigh", "Fallowfield", "Greystone")
GOODS = ("copper wire", "oak barrels", "wool blankets", "glass jars", "maps", "lamp oil", "rope", "salt")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_WORD = re.compile(r"[a-z0-9]+")


def page_text(rng: random.Random, sentences: int = 24) -> str:
    """One page of made-up delivery records, about 300 words."""
    lines = []
    for _ in range(sentences):
        lines.append(f"On {rng.choice(DAYS)} {rng.choice(FIRST)} {rng.choice(LAST)} delivered {rng.randint(2, 9999)} "
                     f"units of {rng.choice(GOODS)} to {rng.choice(PLACES)}, invoice {rng.randint(10000, 99999)}.")
    return " ".join(lines)


def write_text_pdf(path: Path, texts: list[str]) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    style = getSampleStyleSheet()["BodyText"]
    story = []
    for text in texts:
        story += [Paragraph(text, style), PageBreak()]
    SimpleDocTemplate(str(path), pagesize=A4, title="Deliveries").build(story)


def scan(source: Path, path: Path, dpi: int, *, clean: bool = False) -> None:
    """``source``'s pages as grey images at ``dpi``, one a page, with no text layer; unless ``clean``, as a scanner
    leaves them: each page skewed by up to a degree, a little blurred, and speckled."""
    import pypdfium2
    from PIL import Image, ImageFilter

    rng = random.Random(1)
    document = pypdfium2.PdfDocument(source)
    images = [page.render(scale=dpi / 72, grayscale=True).to_pil() for page in document]
    document.close()
    if not clean:
        for index, image in enumerate(images):
            image = image.rotate(rng.uniform(-1, 1), resample=Image.Resampling.BICUBIC, fillcolor=255)
            image = image.filter(ImageFilter.GaussianBlur(dpi / 300))
            pixels = image.load()
            for _ in range(image.width * image.height // 2000):  # one pixel in 2,000 flipped to black or white
                pixels[rng.randrange(image.width), rng.randrange(image.height)] = rng.choice((0, 255))
            images[index] = image
    images[0].save(path, save_all=True, append_images=images[1:], resolution=dpi)


def words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text.lower()))


def recovered(known: Counter[str], read: Counter[str], *, numbers: bool = False) -> float:
    keep = [w for w in known if w.isdigit()] if numbers else list(known)
    total = sum(known[w] for w in keep)
    return sum(min(known[w], read[w]) for w in keep) / total


def measure(path: Path, known: Counter[str], pages: int, *, ocr: bool) -> dict[str, float]:
    from selfrag_langchain.corpus.loaders import PdfLoader

    started = time.perf_counter()
    documents = PdfLoader(path, ocr=ocr).load()
    seconds = time.perf_counter() - started
    read = words(" ".join(d.page_content for d in documents))
    return {"seconds": seconds, "per_page": seconds / pages, "pages_per_s": pages / seconds,
            "words": recovered(known, read), "numbers": recovered(known, read, numbers=True),
            "ocr_pages": sum(1 for d in documents if d.metadata.get("ocr"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--scan-dpi", type=int, default=300, help="the resolution the pages are scanned at")
    parser.add_argument("--clean", action="store_true", help="scan without skew, blur or speckles")
    parser.add_argument("--ocr-dpi", type=int, nargs="+", default=None,
                        help="resolutions to render pages at for OCR (default: the loader's own)")
    args = parser.parse_args()
    from selfrag_langchain.corpus import ocr
    from selfrag_langchain.corpus.ocr import check_ocr

    check_ocr()
    rng = random.Random(0)
    texts = [page_text(rng) for _ in range(args.pages)]
    known = words(" ".join(texts))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        text_pdf, scanned_pdf = Path(folder) / "deliveries.pdf", Path(folder) / "scanned.pdf"
        write_text_pdf(text_pdf, texts)
        scan(text_pdf, scanned_pdf, args.scan_dpi, clean=args.clean)
        import pypdf  # noqa: F401  (imported before the clock starts, as pypdfium2 and pytesseract are)
        rows.append(("text layer (baseline)", measure(text_pdf, known, args.pages, ocr=False)))
        for dpi in args.ocr_dpi or [ocr.OCR_DPI]:
            ocr.OCR_DPI = dpi
            rows.append((f"OCR at {dpi} DPI", measure(scanned_pdf, known, args.pages, ocr=True)))
    print(f"{args.pages} pages of {sum(known.values()) // args.pages} words (10-point print), scanned at "
          f"{args.scan_dpi} DPI{' (clean)' if args.clean else ' (skewed, blurred, speckled)'}; "
          f"OMP_THREAD_LIMIT={os.environ.get('OMP_THREAD_LIMIT', 'unset')}")
    print("| read | s | s/page | pages/s | known words read | numbers read | pages marked ocr | vs text layer |")
    print("|---|---|---|---|---|---|---|---|")
    base = rows[0][1]
    for name, r in rows:
        print(f"| {name} | {r['seconds']:.2f} | {r['per_page']:.3f} | {r['pages_per_s']:.1f} | {r['words']:.1%} | "
              f"{r['numbers']:.1%} | {r['ocr_pages']} | {r['seconds'] / base['seconds']:.0f}x |")


if __name__ == "__main__":
    main()
