"""``selfrag``: index documents and ask questions from the terminal.

Examples:
    selfrag ask "Who painted the Mona Lisa?"          # embedded model, demo corpus (prepared on first run)
    selfrag ask "..." --json                          # the whole result with its trace
    selfrag index notes/ papers.jsonl --store ./store
    selfrag ask "..." --store ./store --mode always --k 3
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from selfrag_langchain.errors import SelfRAGError
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL
from selfrag_langchain.prompts import CRITIC_PROMPT_SETS
from selfrag_langchain.results import SelfRAGResult
from selfrag_langchain.scoring import RetrieveMode

if TYPE_CHECKING:
    from langchain_core.retrievers import BaseRetriever

    from selfrag_langchain.chains.short_form import SelfRAG


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that runs Self-RAG."""
    model = parser.add_argument_group("models")
    model.add_argument("--model", default=DEFAULT_MODEL,
                       help="generator: hub id, local directory or .gguf file (default: %(default)s)")
    model.add_argument("--reflector", choices=["critic", "inline"], default="critic",
                       help="critic: a critic model judges (any generator); inline: a Self-RAG model judges "
                            "itself (default: %(default)s)")
    model.add_argument("--critic", default=None,
                       help="critic model (default: the generator's model)")
    model.add_argument("--critic-prompts", choices=sorted(CRITIC_PROMPT_SETS), default="zero_shot",
                       help="zero_shot for instruct models, paper for trained Self-RAG critics (default: %(default)s)")
    model.add_argument("--relevance", choices=["labels", "question_likelihood"], default="labels",
                       help="how the critic judges IsRel: its answer labels, or how much more likely the passage "
                            "makes the question (better for small critics) (default: %(default)s)")
    model.add_argument("--device", default="cpu", help="torch device (default: %(default)s)")
    model.add_argument("--max-new-tokens", type=int, default=60, help="default: %(default)s")
    knobs = parser.add_argument_group("Self-RAG")
    knobs.add_argument("--mode", choices=[m.value for m in RetrieveMode], default="adaptive",
                       help="retrieve decision (default: %(default)s)")
    knobs.add_argument("--threshold", type=float, default=0.2,
                       help="adaptive mode retrieves when p(Retrieve) > threshold (default: %(default)s)")
    knobs.add_argument("--k", type=int, default=5, help="passages, one branch each (default: %(default)s)")
    knobs.add_argument("--w-rel", type=float, default=1.0, help="IsRel weight (default: %(default)s)")
    knobs.add_argument("--w-sup", type=float, default=1.0, help="IsSup weight (default: %(default)s)")
    knobs.add_argument("--w-use", type=float, default=0.5, help="IsUse weight (default: %(default)s)")
    knobs.add_argument("--no-sequence-probability", action="store_true",
                       help="leave the sequence probability out of the branch score")
    knobs.add_argument("--drop-unsupported", action="store_true",
                       help="hard constraint: drop branches judged [No support / Contradictory]")
    knobs.add_argument("--drop-irrelevant", action="store_true",
                       help="hard constraint: drop branches judged [Irrelevant]")
    parser.add_argument("--store", type=Path, default=None,
                        help="Chroma store directory (default: the store `selfrag index` fills, or the demo "
                             "corpus until you index something)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="selfrag", description="Self-RAG: retrieve on demand, critique, cite.")
    sub = parser.add_subparsers(dest="command", required=True)

    index = sub.add_parser("index", help="add .txt, .md and .jsonl files to a store (re-runs add nothing twice)")
    index.add_argument("paths", nargs="+", type=Path, help="files or directories")
    index.add_argument("--store", type=Path, default=None, help="store directory (default: the default store)")

    ask = sub.add_parser("ask", help="answer a question with Self-RAG")
    ask.add_argument("question")
    ask.add_argument("--json", action="store_true", help="print the whole result, trace included, as JSON")
    _add_run_options(ask)
    return parser


def build_selfrag(args: argparse.Namespace) -> SelfRAG:
    """The SelfRAG Runnable the flags describe (models load at first use)."""
    from selfrag_langchain.chains.short_form import SelfRAG
    from selfrag_langchain.llms.transformers import TransformersLLM
    from selfrag_langchain.reflection import CriticReflector, InlineReflector

    generator = TransformersLLM(model=args.model, device=args.device, max_new_tokens=args.max_new_tokens)
    if args.reflector == "inline":
        reflector = InlineReflector(generator)
    else:
        critic = generator if args.critic in (None, args.model) else TransformersLLM(model=args.critic,
                                                                                      device=args.device)
        reflector = CriticReflector(critic, prompts=args.critic_prompts, relevance=args.relevance)
    return SelfRAG(
        generator=generator,
        reflector=reflector,
        retriever=_retriever(args),
        mode=args.mode,
        threshold=args.threshold,
        k=args.k,
        w_rel=args.w_rel,
        w_sup=args.w_sup,
        w_use=args.w_use,
        use_sequence_probability=not args.no_sequence_probability,
        drop_unsupported=args.drop_unsupported,
        drop_irrelevant=args.drop_irrelevant,
        max_new_tokens=args.max_new_tokens,
    )


def _retriever(args: argparse.Namespace) -> BaseRetriever | None:
    """The store named by ``--store``; else the default store if ``selfrag index`` filled it; else the
    demo corpus (indexed on first use into a store of its own)."""
    from selfrag_langchain.paths import default_store_dir
    from selfrag_langchain.store import open_store

    if args.mode == RetrieveMode.NEVER.value:
        return None
    if args.store is not None:
        store = open_store(args.store, create=False)
    elif (default_store_dir() / "chroma.sqlite3").exists():
        store = open_store(default_store_dir(), create=False)
    else:
        from selfrag_langchain.demo_corpus import ensure_demo_store

        print("selfrag: answering from the demo corpus (index your own files with `selfrag index PATH`)",
              file=sys.stderr)
        store = ensure_demo_store()
    return store.as_retriever(search_kwargs={"k": args.k})


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


def _validate(args: argparse.Namespace) -> None:
    if args.command != "ask":
        return
    if not args.question.strip():
        raise SelfRAGError("the question is empty: ask something")
    if not 0.0 <= args.threshold <= 1.0:
        raise SelfRAGError(f"--threshold must be in [0, 1], got {args.threshold}")
    if args.k < 1:
        raise SelfRAGError(f"--k must be >= 1, got {args.k}")
    if args.max_new_tokens < 1:
        raise SelfRAGError(f"--max-new-tokens must be >= 1, got {args.max_new_tokens}")


def run(args: argparse.Namespace) -> int:
    _validate(args)
    if args.command == "index":
        from selfrag_langchain.indexing import index_paths

        report = index_paths(args.paths, args.store)
        print(f"indexed {report.files} file(s): {report.chunks_added} chunk(s) added, "
              f"{report.chunks_skipped} already present, {report.chunks_removed} removed")
        for problem in report.problems:
            print(f"  skipped: {problem}")
        return 0
    selfrag = build_selfrag(args)
    result = selfrag.invoke(args.question)
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        print_result(result)
    return 0


def _quiet_libraries() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    import warnings

    warnings.filterwarnings("ignore")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
    except ImportError:
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: user errors print one line and exit 2; an interrupt exits 130."""
    args = build_parser().parse_args(argv)
    _quiet_libraries()
    try:
        return run(args)
    except SelfRAGError as e:
        print(f"selfrag: error: {e}", file=sys.stderr)
        return 2
    except ValidationError as e:
        reasons = "; ".join(err["msg"].removeprefix("Value error, ") for err in e.errors())
        print(f"selfrag: error: {reasons}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("selfrag: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
