"""``selfrag index``: add files to a store."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from selfrag_langchain.commands.output import emit
from selfrag_langchain.files.paths import store_location


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "index", help="add .pdf, .html, .docx, .txt, .md and .jsonl files to a store (re-runs add nothing twice)"
    )
    parser.add_argument("paths", nargs="+", type=Path, help="files or directories")
    parser.add_argument("--store", type=store_location, default=None,
                        help="store directory, or a Chroma server's URL (http://HOST:PORT) (default: the default "
                             "store)")
    parser.add_argument("--strict", action="store_true",
                        help="index nothing if a file cannot be read or a line is malformed (default: skip "
                             "those, index the rest and list what was skipped)")
    parser.add_argument("--ocr", action="store_true",
                        help="read the PDF pages that have no text layer (scans) with Tesseract OCR, about 2 s a "
                             "page on one CPU core; needs `sudo apt-get install tesseract-ocr tesseract-ocr-eng` "
                             "and `pip install \"selfrag-langchain[ocr]\"` (default: such pages are left out, and "
                             "a PDF with no text layer at all is skipped and named)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Index, print the counts, then name each skipped file or line on stderr with what to do."""
    from selfrag_langchain.corpus.indexing import index_paths

    report = index_paths(args.paths, args.store, strict=args.strict, ocr=args.ocr)
    emit(f"indexed {report.files} file(s): {report.chunks_added} chunk(s) added, "
          f"{report.chunks_skipped} already present, {report.chunks_removed} removed")
    for problem in report.problems:
        print(f"skipped {problem}", file=sys.stderr)
    if report.problems:
        print("fix or remove what was skipped and run the same command again (nothing is added twice); "
              "--strict indexes nothing while anything would be skipped", file=sys.stderr)
    return 0
