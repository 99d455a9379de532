"""The question lists already run, written as the rows `selfrag train answer-finder` reads with ``questions``.

The answer finder learned what answers a question from SQuAD, whose questions were written with the paragraph in
view and share its words; the lists' questions were written as a user asks, and their unanswerable ones ask of
entities and details the demo corpus lacks. Each answerable question (a row with ``answers`` and ``title``) is
written with its article's passage from the demo corpus; each unanswerable one (a list whose file name holds
"unanswerable") with the first ``--k`` passages the default retriever finds for it. Only lists whose role in
`benchmarks/data/README.md` is ``tuning`` or ``check`` are read: an ``untouched`` list is never trained on. A
question in several lists is written once.

    python benchmarks/finder_questions.py --out selfrag-train/finder_questions.jsonl
    python benchmarks/finder_questions.py --exclude forty_first --exclude fifty_ninth --out rows.jsonl
    python benchmarks/finder_questions.py my_questions.jsonl my_unanswerable.jsonl --out rows.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import LISTS, list_manifest, read_jsonl

from selfrag_langchain.files.durable import write_text_atomic

TRAINED_ROLES = frozenset(("tuning", "check"))
"""The roles of the lists a finder may train on: every list already run."""


def run_lists(data: Path = LISTS) -> list[Path]:
    """The question lists of the manifest whose role is one of :data:`TRAINED_ROLES`, in its order."""
    return [data / name for name, (_, role) in list_manifest(data).items() if role in TRAINED_ROLES]


def question_rows(lists: list[Path], k: int) -> list[dict[str, Any]]:
    """One row per question (its first list's), as ``finder.own_questions`` reads them."""
    from selfrag_langchain.corpus.answering import default_retriever
    from selfrag_langchain.corpus.demo import load_demo_documents

    articles = {doc.metadata["title"]: doc.page_content for doc in load_demo_documents()}
    retriever = None
    rows: dict[str, dict[str, Any]] = {}
    for path in lists:
        unanswerable = "unanswerable" in path.name
        for row in read_jsonl(path):
            question = row.get("question") if isinstance(row, dict) else None
            if not question or question in rows:
                continue
            if unanswerable:
                retriever = retriever or default_retriever(k=k)
                passages = [{"title": doc.metadata.get("title") or "", "text": doc.page_content}
                            for doc in retriever.invoke(question)]
                rows[question] = {"question": question, "answers": [], "passages": passages}
            elif row.get("answers") and row.get("title") in articles:
                rows[question] = {"question": question, "answers": list(row["answers"]),
                                  "passages": [{"title": row["title"], "text": articles[row["title"]]}]}
    return list(rows.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lists", nargs="*", type=Path,
                        help="question lists (default: every list of the manifest already run)")
    parser.add_argument("--out", type=Path, required=True, help="the rows to write (JSON Lines)")
    parser.add_argument("--k", type=int, default=3, help="passages written with an unanswerable question")
    parser.add_argument("--exclude", action="append", default=[], metavar="PREFIX",
                        help="leave out the lists whose file name starts with PREFIX (lists held out to measure on)")
    args = parser.parse_args()
    if args.k < 1:
        parser.error(f"--k must be at least 1, not {args.k}")
    excluded = tuple(args.exclude)
    chosen = args.lists or run_lists()
    lists = [path for path in chosen if not excluded or not path.name.startswith(excluded)]
    held = {row["question"] for path in chosen if excluded and path.name.startswith(excluded)
            for row in read_jsonl(path) if isinstance(row, dict) and row.get("question")}
    rows = [row for row in question_rows(lists, args.k) if row["question"] not in held]  # asked in a held list too
    write_text_atomic(args.out, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    answered = sum(bool(row["answers"]) for row in rows)
    print(f"{len(rows)} questions from {len(lists)} lists ({answered} answerable, {len(rows) - answered} not) "
          f"-> {args.out}")


if __name__ == "__main__":
    main()
