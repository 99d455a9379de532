"""``selfrag ask``: answer one question with Self-RAG and show how it judged its evidence."""

from __future__ import annotations

import argparse
import json
from typing import Any

from selfrag_langchain.commands.options import add_run_options, build_selfrag, validate_run_options
from selfrag_langchain.errors import SelfRAGError
from selfrag_langchain.results import SelfRAGResult


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("ask", help="answer a question with Self-RAG")
    parser.add_argument("question")
    parser.add_argument("--json", action="store_true", help="print the whole result, trace included, as JSON")
    add_run_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.question.strip():
        raise SelfRAGError("the question is empty: ask something")
    validate_run_options(args)
    result = build_selfrag(args).invoke(args.question)
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        print_result(result)
    return 0


def print_result(result: SelfRAGResult) -> None:
    print(result.answer or "(no answer)")
    if result.citations:
        print("\nSources:")
        for doc in result.citations:
            title = doc.metadata.get("title") or doc.metadata.get("source") or ""
            snippet = " ".join(doc.page_content.split())[:120]
            print(f"  [{doc.metadata.get('citation')}] {title}: {snippet}...")
    d = result.retrieve_decision
    p = f", p(Retrieve)={d.probability:.2f} vs threshold {d.threshold:.2f}" if d.probability is not None else ""
    retrieved = "yes" if result.retrieved else "no"
    print(f"\nReflection ({result.reflector} judge; mode {d.mode}{p}; retrieved: {retrieved}):")
    for line in result.summary_lines():
        print("  " + line)
    for note in result.notes:
        print(f"  note: {note}")
