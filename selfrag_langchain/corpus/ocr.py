"""Reading the words of a scanned PDF page with OCR: the page rendered by pypdfium2, read by Tesseract.

Optional, for ``selfrag index --ocr`` and ``PdfLoader(path, ocr=True)``: the Python packages pypdfium2
(Apache-2.0/BSD) and pytesseract (Apache-2.0), ``pip install "selfrag-langchain[ocr]"``, and the Tesseract program
(Apache-2.0) with its English data, ``sudo apt-get install tesseract-ocr tesseract-ocr-eng`` on Debian and Ubuntu.
:func:`check_ocr` says in one line which of them is missing.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from selfrag_langchain.errors import ConfigurationError

__all__ = ["OCR_DPI", "OCR_LANGUAGE", "check_ocr", "ocr_pages"]

OCR_DPI = 200
"""The resolution pages are rendered at for Tesseract: 10-point print is then about 28 pixels high."""
OCR_LANGUAGE = "eng"
"""Tesseract's language data: English."""
PROGRAM_INSTALL = "sudo apt-get install tesseract-ocr tesseract-ocr-eng"
PACKAGES_INSTALL = 'pip install "selfrag-langchain[ocr]"'


def check_ocr() -> None:
    """Nothing, when OCR can run; else what to install, in one line.

    Raises:
        ConfigurationError: If pypdfium2 or pytesseract is not installed, or the Tesseract program (the
            command ``pytesseract.pytesseract.tesseract_cmd`` names) or its English data is missing.
    """
    try:
        import pypdfium2  # noqa: F401
        import pytesseract
    except ImportError as e:
        msg = f"OCR needs the Python packages pypdfium2 and pytesseract ({e.name} is missing): {PACKAGES_INSTALL}"
        raise ConfigurationError(msg) from e
    command = str(pytesseract.pytesseract.tesseract_cmd)
    try:
        listed = subprocess.run([command, "--list-langs"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        reason = "not found" if isinstance(e, FileNotFoundError) else f"cannot be run: {e}"
        msg = f"OCR needs the Tesseract program, and `{command}` {reason}: {PROGRAM_INSTALL}"
        raise ConfigurationError(msg) from e
    if listed.returncode != 0:
        said = (listed.stderr or listed.stdout).strip().splitlines()
        msg = f"`{command} --list-langs` failed ({said[-1] if said else f'status {listed.returncode}'}): " \
              f"reinstall Tesseract: {PROGRAM_INSTALL}"
        raise ConfigurationError(msg)
    # Tesseract 4 and 5 list on stdout, 3 on stderr, after a first line naming the folder.
    languages = {line.strip() for line in (listed.stdout + listed.stderr).splitlines()[1:]}
    if OCR_LANGUAGE not in languages:
        msg = f"Tesseract has no English data ({OCR_LANGUAGE}.traineddata): sudo apt-get install tesseract-ocr-eng"
        raise ConfigurationError(msg)


def ocr_pages(path: Path, numbers: Sequence[int], *, progress: bool = False) -> dict[int, str]:
    """What Tesseract reads on the pages ``numbers`` (from 1) of the PDF at ``path``, each rendered in grey at
    :data:`OCR_DPI`; call :func:`check_ocr` first.

    Args:
        path: The PDF.
        numbers: The pages to read.
        progress: Show a progress bar over the pages (when reading them takes over 2 s).

    Returns:
        Each page's text as Tesseract gives it (an empty string for a page without words).

    Raises:
        pypdfium2.PdfiumError: If pdfium cannot open the file or render a page.
        pytesseract.TesseractError: If Tesseract fails on a page.
    """
    import pypdfium2
    import pytesseract
    from tqdm.auto import tqdm

    texts = {}
    document = pypdfium2.PdfDocument(path)
    try:
        for number in tqdm(numbers, desc=f"OCR {path.name}", unit="page", delay=2, leave=False,
                           disable=not progress or len(numbers) < 2):
            page = document[number - 1]
            try:
                image = page.render(scale=OCR_DPI / 72, grayscale=True).to_pil()
            finally:
                page.close()
            texts[number] = pytesseract.image_to_string(image, lang=OCR_LANGUAGE)
    finally:
        document.close()
    return texts
