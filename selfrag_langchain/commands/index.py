"""``selfrag index``: add files to a store."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "index", help="add .txt, .md and .jsonl files to a store (re-runs add nothing twice)"
    )
    parser.add_argument("paths", nargs="+", type=Path, help="files or directories")
    parser.add_argument("--store", type=Path, default=None, help="store directory (default: the default store)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from selfrag_langchain.indexing import index_paths

    report = index_paths(args.paths, args.store)
    print(f"indexed {report.files} file(s): {report.chunks_added} chunk(s) added, "
          f"{report.chunks_skipped} already present, {report.chunks_removed} removed")
    for problem in report.problems:
        print(f"  skipped: {problem}")
    return 0
