"""``selfrag ask``: answer one question with Self-RAG and show how it judged its evidence."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from typing import Any

from langchain_core.documents import Document

from selfrag_langchain.chains.citations import location
from selfrag_langchain.commands.options import add_long_form_options, add_run_options, run_settings
from selfrag_langchain.commands.output import emit
from selfrag_langchain.commands.status import StatusLine
from selfrag_langchain.errors import SelfRAGError
from selfrag_langchain.pipeline import PipelineSettings, build_long_form, build_selfrag
from selfrag_langchain.results import CitedSegment, SelfRAGResult


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("ask", help="answer a question with Self-RAG")
    parser.add_argument("question")
    parser.add_argument("--json", action="store_true", help="print the whole result, trace included, as JSON")
    parser.add_argument("--long", action="store_true",
                        help="long-form answer: written segment by segment, each retrieved for, judged and cited "
                             "(beam search; streamed as segments become final)")
    add_run_options(parser)
    add_long_form_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.question.strip():
        raise SelfRAGError("the question is empty: ask something")
    settings = run_settings(args)
    if args.long:
        return run_long(args, settings)
    with StatusLine(enabled=False if args.json else None) as status:
        result = build_selfrag(settings).invoke(args.question, config={"callbacks": [status]})
    if args.json:
        emit(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        print_result(result)
    return 0


def print_result(result: SelfRAGResult) -> None:
    emit(result.answer or "(no answer)")
    print_sources(result.citations)
    d = result.retrieve_decision
    p = f", p(Retrieve)={d.probability:.2f} vs threshold {d.threshold:.2f}" if d.probability is not None else ""
    retrieved = "yes" if result.retrieved else "no"
    emit(f"\nReflection ({result.reflector} judge; mode {d.mode}{p}; retrieved: {retrieved}):")
    for line in result.summary_lines():
        emit("  " + line)
    for note in result.notes:
        emit(f"  note: {note}")


def run_long(args: argparse.Namespace, settings: PipelineSettings) -> int:
    rag = build_long_form(settings)
    if args.json:
        result = rag.invoke(args.question)
        emit(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
        return 0
    with StatusLine() as status:
        result = stream_answer(rag.stream(args.question, config={"callbacks": [status]}), status=status)
    print_sources(result.citations)
    emit(f"\nSearch ({result.reflector} judge; mode {result.settings.get('mode')}; "
          f"{result.retrievals} retrieval{'s' if result.retrievals != 1 else ''}; "
          f"beam width {result.settings.get('beam_width')}):")
    for line in result.summary_lines():
        emit("  " + line)
    for note in result.notes:
        emit(f"  note: {note}")
    return 0


def stream_answer(items: Iterable[Any], status: StatusLine | None = None, prefix: str = "") -> Any:
    """Print segments as they arrive (each with its marker), or the answer of a result that comes whole;
    returns the last item, the result. The status line is cleared, and ``prefix`` printed, just before
    the first words of the answer."""
    result: Any = None
    started = False

    def start() -> None:
        if status is not None:
            status.clear()
        emit(prefix, end="", flush=True)

    for item in items:
        if isinstance(item, CitedSegment):
            marked = item.marked()
            if not started:
                start()
            gap = "" if not started or marked[:1] in ",.;:!?)" else " "
            emit(gap + marked, end="", flush=True)
            started = True
        else:
            result = item
    if not started:
        start()
        emit(getattr(result, "answer", "") or "(no answer)", end="")
    emit()
    return result


def print_sources(citations: list[Document]) -> None:
    """The numbered passages under an answer."""
    if not citations:
        return
    emit("\nSources:")
    for doc in citations:
        title = doc.metadata.get("title") or doc.metadata.get("source") or ""
        where = location(doc.metadata)
        snippet = " ".join(doc.page_content.split())[:120]
        emit(f"  [{doc.metadata.get('citation')}] {title}{f' ({where})' if where else ''}: {snippet}...")
