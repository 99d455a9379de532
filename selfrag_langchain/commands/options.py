"""Options shared by the commands that run Self-RAG, and the objects they describe."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from selfrag_langchain.errors import SelfRAGError
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL
from selfrag_langchain.prompts import CRITIC_PROMPT_SETS
from selfrag_langchain.scoring import RetrieveMode

if TYPE_CHECKING:
    from langchain_core.language_models import BaseLLM
    from langchain_core.retrievers import BaseRetriever

    from selfrag_langchain.chains.short_form import SelfRAG
    from selfrag_langchain.reflection import Reflector


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """Which models generate and judge."""
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


def add_selfrag_options(parser: argparse.ArgumentParser) -> None:
    """The knobs of the control loop (PAPER.md §3)."""
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


def add_store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=Path, default=None,
                        help="Chroma store directory (default: the store `selfrag index` fills, or the demo "
                             "corpus until you index something)")


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Everything a command that runs Self-RAG over a store accepts."""
    add_model_options(parser)
    add_selfrag_options(parser)
    add_store_option(parser)


def validate_run_options(args: argparse.Namespace) -> None:
    """Reject values the parser accepts but the loop cannot use, with one clear line."""
    if not 0.0 <= args.threshold <= 1.0:
        raise SelfRAGError(f"--threshold must be in [0, 1], got {args.threshold}")
    if args.k < 1:
        raise SelfRAGError(f"--k must be >= 1, got {args.k}")
    if args.max_new_tokens < 1:
        raise SelfRAGError(f"--max-new-tokens must be >= 1, got {args.max_new_tokens}")


def build_generator(args: argparse.Namespace) -> BaseLLM:
    """The generator LLM the flags describe (it loads at first use)."""
    from selfrag_langchain.llms.transformers import TransformersLLM

    return TransformersLLM(model=args.model, device=args.device, max_new_tokens=args.max_new_tokens)


def build_reflector(args: argparse.Namespace, generator: BaseLLM) -> Reflector:
    """The judge the flags describe; the critic shares the generator when it is the same model."""
    from selfrag_langchain.llms.transformers import TransformersLLM
    from selfrag_langchain.reflection import CriticReflector, InlineReflector

    if args.reflector == "inline":
        return InlineReflector(generator)
    critic = generator if args.critic in (None, args.model) else TransformersLLM(model=args.critic,
                                                                                  device=args.device)
    return CriticReflector(critic, prompts=args.critic_prompts, relevance=args.relevance)


def selfrag_settings(args: argparse.Namespace) -> dict[str, object]:
    """The control-loop fields of the Runnables, from the flags."""
    return {
        "mode": args.mode,
        "threshold": args.threshold,
        "k": args.k,
        "w_rel": args.w_rel,
        "w_sup": args.w_sup,
        "w_use": args.w_use,
        "use_sequence_probability": not args.no_sequence_probability,
        "drop_unsupported": args.drop_unsupported,
        "drop_irrelevant": args.drop_irrelevant,
        "max_new_tokens": args.max_new_tokens,
    }


def build_selfrag(args: argparse.Namespace, retriever: BaseRetriever | None = None) -> SelfRAG:
    """The short-form SelfRAG Runnable the flags describe (models load at first use).

    ``retriever`` overrides the store the flags name (the eval harness passes each question's passages).
    """
    from selfrag_langchain.chains.short_form import SelfRAG

    generator = build_generator(args)
    return SelfRAG(
        generator=generator,
        reflector=build_reflector(args, generator),
        retriever=retriever if retriever is not None else build_retriever(args),
        **selfrag_settings(args),
    )


def build_retriever(args: argparse.Namespace) -> BaseRetriever | None:
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
