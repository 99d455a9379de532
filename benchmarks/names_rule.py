"""What the names rule declines, list by list, on the passages Self-RAG reads: no model writes anything.

The names rule (``chains/names.py``) declines an open question when the passages found together hold too few of
its names or leave out a rare term of it, and it decides from the passages alone. So replaying it on the
passages a question gets is exact for what it declines (and for which passages selection drops for their
names: a question whose every passage holding one of its ``answers`` is dropped is listed), and takes seconds
where answering takes minutes: a change to the rule can be chosen on every list already run before any is
answered again. A row that carries
``ctxs`` (Self-RAG's evaluation format, ``benchmarks/squad_passages.py``) is read against its first ``--k``
of them; any other is retrieved for with the default retriever (the demo corpus unless a store is indexed).
A list whose file name holds "unanswerable" counts as unanswerable: there a decline is right. Each question is
read as Self-RAG reads it once its passages are found, a word typed wrong as theirs (``chains/typos.py``).

    python benchmarks/names_rule.py benchmarks/data/*_questions.jsonl benchmarks/data/*_unanswerable.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_k, read_jsonl, wilson

from selfrag_langchain.chains.controls import LoopSettings
from selfrag_langchain.chains.names import name_coverages, names_found
from selfrag_langchain.chains.typos import read_typos
from selfrag_langchain.prompts import format_passage


def passages_of(row: dict[str, Any], k: int, retriever: Any) -> list[str]:
    """The passages the row's question is judged against, as the models read them (title, then text)."""
    if row.get("ctxs"):
        return [format_passage(c.get("title"), c.get("text", "")) for c in row["ctxs"][:k]]
    return [format_passage(d.metadata.get("title"), d.page_content) for d in retriever.invoke(row["question"])]


def answer_dropped(row: dict[str, Any], question: str, passages: list[str], minimum: float) -> bool:
    """Whether selection's side of the rule, reading ``question``, drops every passage that holds one of the
    row's ``answers`` (as written, in any case), though one of them was found: no branch from them could be
    chosen."""
    answers = [a.lower() for a in row.get("answers") or [] if isinstance(a, str) and a.strip()]
    holding = [i for i, passage in enumerate(passages) if any(a in passage.lower() for a in answers)]
    shares = name_coverages(question, passages, minimum)
    return bool(holding) and shares is not None and all(shares[i] < minimum for i in holding)  # type: ignore[operator]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lists", nargs="+", type=Path, help="question lists (JSON Lines with `question`)")
    add_k(parser, help="passages read per question")
    parser.add_argument("--min-name-coverage", type=float, default=LoopSettings().min_name_coverage,
                        help="the rule's share (default: %(default)s, the library's)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    args = parser.parse_args()
    if not 0.0 <= args.min_name_coverage <= 1.0:
        parser.error(f"--min-name-coverage must be between 0 and 1, not {args.min_name_coverage}")
    retriever = None
    figures: dict[str, Any] = {"k": args.k, "lists": {}, "answerable": [0, 0], "unanswerable": [0, 0]}
    for path in args.lists:
        rows = [row for row in read_jsonl(path) if isinstance(row, dict) and row.get("question")]
        if not rows:
            raise SystemExit(f"{path}: no row with a `question`")
        if retriever is None and not all(row.get("ctxs") for row in rows):
            from selfrag_langchain.corpus.answering import default_retriever

            retriever = default_retriever(k=args.k)
        read = []
        for row in rows:
            passages = passages_of(row, args.k, retriever)
            read.append((row, read_typos(row["question"], passages)[0], passages))  # as Self-RAG reads it
        declined = [row["question"] for row, question, passages in read
                    if not names_found(question, passages, args.min_name_coverage)]
        dropped = [row["question"] for row, question, passages in read
                   if answer_dropped(row, question, passages, args.min_name_coverage)]
        kind = "unanswerable" if "unanswerable" in path.name else "answerable"
        figures["lists"][path.name] = {"kind": kind, "questions": len(rows), "declined": len(declined),
                                       "declined_questions": declined, "answer_dropped": dropped}
        figures[kind][0] += len(rows)
        figures[kind][1] += len(declined)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"| list | questions | declined by the names rule (k = {args.k}) | every answer's passage dropped |\n"
          "|---|---|---|---|")
    for name, row in figures["lists"].items():
        print(f"| {name} | {row['questions']} | {row['declined']} | {len(row['answer_dropped'])} |")
    for kind in ("answerable", "unanswerable"):
        n, hits = figures[kind]
        if n:
            low, high = wilson(hits, n)
            print(f"{kind}: {hits}/{n} = {hits / n:.1%} [{low:.0%}, {high:.0%}] declined by the names rule")
    for name, row in figures["lists"].items():
        if row["kind"] == "answerable":
            for question in row["declined_questions"]:
                print(f"  declined, answerable: {question}  ({name})")
            for question in row["answer_dropped"]:
                print(f"  every passage holding an answer dropped by selection: {question}  ({name})")


if __name__ == "__main__":
    main()
