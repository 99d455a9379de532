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

    from selfrag_langchain.chains.long_form import SelfRAGLongForm
    from selfrag_langchain.chains.short_form import SelfRAG
    from selfrag_langchain.reflection import Reflector


REFLECTORS = ("calibrated", "critic", "inline")
"""The judges ``--reflector`` chooses from (see :func:`build_reflector`)."""


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """Which models generate and judge, and on which backend."""
    model = parser.add_argument_group("models")
    model.add_argument("--model", default=DEFAULT_MODEL,
                       help="generator: hub id, local directory, .gguf file, or with --backend openai the served "
                            "model's name (default: %(default)s)")
    model.add_argument("--reflector", choices=list(REFLECTORS), default="calibrated",
                       help="calibrated: embedding and word-overlap signals calibrated on GPT-4 critic labels "
                            "(any generator, no extra model read); critic: a critic model judges (any generator); "
                            "inline: a Self-RAG model judges itself (default: %(default)s)")
    model.add_argument("--judge", type=Path, default=None,
                       help="calibrated reflector: a calibration written by `selfrag train judge` (default: the "
                            "one shipped with the package)")
    model.add_argument("--critic", default=None,
                       help="critic reflector: critic model (default: the generator's model)")
    model.add_argument("--critic-prompts", choices=sorted(CRITIC_PROMPT_SETS), default="zero_shot",
                       help="zero_shot for instruct models, paper for trained Self-RAG critics (default: %(default)s)")
    model.add_argument("--relevance", choices=["auto", "labels", "question_likelihood"], default="auto",
                       help="how the critic judges IsRel: its answer labels, or how much more likely the passage "
                            "makes the question (better for small instruct critics); auto: question_likelihood "
                            "with --critic-prompts zero_shot, labels with paper (default: %(default)s)")
    model.add_argument("--max-new-tokens", type=int, default=60, help="default: %(default)s")
    add_backend_options(parser)


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    """``--backend`` and the options of each backend (docs/backends.md lists their defaults)."""
    from selfrag_langchain.llms.factory import BACKENDS

    group = parser.add_argument_group("backend")
    group.add_argument("--backend", choices=list(BACKENDS), default="transformers",
                       help="where the models run: transformers (CPU/GPU, in process), vllm (GPU engine), openai "
                            "(any OpenAI-compatible completions server), llamacpp (GGUF in process) "
                            "(default: %(default)s)")
    group.add_argument("--critic-backend", choices=list(BACKENDS), default=None,
                       help="backend of the critic model (default: --backend)")
    group.add_argument("--device", default=None, help="transformers: torch device (default: cpu)")
    group.add_argument("--dtype", default=None, help="transformers, vllm: weight dtype (default: auto)")
    group.add_argument("--base-url", default=None,
                       help="openai: the server's base URL (default: http://127.0.0.1:8000/v1)")
    group.add_argument("--api-key", default=None, help="openai: API key (default: $OPENAI_API_KEY)")
    group.add_argument("--timeout", type=float, default=None, help="openai: seconds per request (default: 60)")
    group.add_argument("--max-retries", type=int, default=None,
                       help="openai: retries after a timeout, connection error or HTTP 429/5xx (default: 2)")
    group.add_argument("--concurrency", type=int, default=None, help="openai: requests in flight (default: 4)")
    group.add_argument("--tokenizer", default=None,
                       help="openai: local tokenizer of the served model, for token counts and its chat template "
                            "(default: the server's tokenize endpoint, no chat template)")
    group.add_argument("--extra-body", type=_json_object, default=None,
                       help='openai: JSON object of server-specific request fields, e.g. \'{"repeat_penalty": 1.0}\'')
    group.add_argument("--tensor-parallel-size", type=int, default=None, help="vllm: GPUs per model (default: 1)")
    group.add_argument("--gpu-memory-utilization", type=float, default=None,
                       help="vllm: fraction of GPU memory to use (default: 0.9)")
    group.add_argument("--max-model-len", type=int, default=None, help="vllm: context window (default: the model's)")
    group.add_argument("--enable-prefix-caching", action="store_const", const=True, default=None,
                       help="vllm: reuse the key/value cache of shared prompt prefixes (default: off)")
    group.add_argument("--n-ctx", type=int, default=None, help="llamacpp: context window (default: 2048)")
    group.add_argument("--n-threads", type=int, default=None, help="llamacpp: CPU threads (default: llama.cpp's)")
    group.add_argument("--n-gpu-layers", type=int, default=None, help="llamacpp: layers on the GPU (default: 0)")


_BACKEND_FLAGS = ("device", "dtype", "base_url", "api_key", "timeout", "max_retries", "concurrency", "tokenizer",
                  "extra_body", "tensor_parallel_size", "gpu_memory_utilization", "max_model_len",
                  "enable_prefix_caching", "n_ctx", "n_threads", "n_gpu_layers")


def _json_object(text: str) -> dict[str, object]:
    import json

    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"not JSON: {e}") from e
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def _backend_options(args: argparse.Namespace, backend: str) -> dict[str, object]:
    """The backend flags the user gave that ``backend`` takes."""
    from selfrag_langchain.llms.factory import backend_options

    accepted = backend_options(backend)
    given = {name: getattr(args, name, None) for name in _BACKEND_FLAGS}
    return {name: value for name, value in given.items() if value is not None and name in accepted}


def _check_backend_flags(args: argparse.Namespace) -> None:
    """A backend flag that neither the generator's nor the critic's backend takes is a mistake."""
    from selfrag_langchain.llms.factory import backend_options

    backends = {args.backend, args.critic_backend or args.backend}
    accepted = set().union(*(backend_options(b) for b in backends))
    for name in _BACKEND_FLAGS:
        if getattr(args, name, None) is not None and name not in accepted:
            flag = "--" + name.replace("_", "-")
            raise SelfRAGError(f"{flag} does not apply to --backend {' or '.join(sorted(backends))}")


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
    _check_backend_flags(args)
    args.relevance = relevance_mode(args.relevance, args.critic_prompts)


def relevance_mode(relevance: str, critic_prompts: str) -> str:
    """The IsRel judgement ``--relevance`` names, ``auto`` resolved for ``--critic-prompts``."""
    from selfrag_langchain.reflection import resolve_relevance

    return resolve_relevance(relevance, CRITIC_PROMPT_SETS[critic_prompts])


def build_generator(args: argparse.Namespace) -> BaseLLM:
    """The generator LLM the flags describe, on ``--backend`` (it loads at first use)."""
    from selfrag_langchain.llms.factory import build_llm

    _check_backend_flags(args)
    return build_llm(args.backend, args.model, max_new_tokens=args.max_new_tokens,
                     **_backend_options(args, args.backend))


def build_reflector(args: argparse.Namespace, generator: BaseLLM) -> Reflector:
    """The judge the flags describe. The calibrated judge needs no model of its own; the critic runs on
    ``--critic-backend`` (default: ``--backend``) and shares the generator when it is the same model on the
    same backend."""
    from selfrag_langchain.llms.factory import build_llm
    from selfrag_langchain.reflection import CriticReflector, InlineReflector

    if args.reflector == "inline":
        return InlineReflector(generator)
    if args.reflector == "calibrated":
        from selfrag_langchain.judging import CalibratedReflector

        return CalibratedReflector(getattr(args, "judge", None))
    backend = args.critic_backend or args.backend
    if backend == args.backend and args.critic in (None, args.model):
        critic = generator
    else:
        model = args.critic if args.critic is not None else args.model
        critic = build_llm(backend, model, **_backend_options(args, backend))
    relevance = relevance_mode(args.relevance, args.critic_prompts)
    return CriticReflector(critic, prompts=args.critic_prompts, relevance=relevance)


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


def add_long_form_options(parser: argparse.ArgumentParser) -> None:
    """The beam search of long-form answers (``ask --long``, ``chat``)."""
    group = parser.add_argument_group("long form")
    group.add_argument("--beam-width", type=int, default=2, help="beams kept after each segment (default: %(default)s)")
    group.add_argument("--max-depth", type=int, default=6, help="most segments in an answer (default: %(default)s)")
    group.add_argument("--max-segment-tokens", type=int, default=48,
                       help="generation budget of one segment; --max-new-tokens caps the whole answer "
                            "(default: %(default)s)")
    group.add_argument("--beam-score", choices=["sum", "mean"], default="mean",
                       help="rank beams by the mean of their segment scores (length-neutral), or by the sum "
                            "(longer answers win) (default: %(default)s)")


def build_long_form(args: argparse.Namespace, retriever: BaseRetriever | None = None) -> SelfRAGLongForm:
    """The long-form SelfRAGLongForm Runnable the flags describe (models load at first use).

    ``retriever`` overrides the store the flags name (the eval harness passes each question's passages).
    Commands without the long-form flags get their defaults.
    """
    from selfrag_langchain.chains.long_form import SelfRAGLongForm

    for flag in ("beam_width", "max_depth", "max_segment_tokens"):
        value = getattr(args, flag, None)
        if value is not None and value < 1:
            raise SelfRAGError(f"--{flag.replace('_', '-')} must be >= 1, got {value}")
    generator = build_generator(args)
    return SelfRAGLongForm(
        generator=generator,
        reflector=build_reflector(args, generator),
        retriever=retriever if retriever is not None else build_retriever(args),
        **selfrag_settings(args),
        beam_width=getattr(args, "beam_width", None) or 2,
        max_depth=getattr(args, "max_depth", None) or 6,
        max_segment_tokens=getattr(args, "max_segment_tokens", None) or 48,
        beam_score=getattr(args, "beam_score", None) or "mean",
    )
