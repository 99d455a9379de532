"""Options shared by the commands that run Self-RAG, parsed once into
:class:`~selfrag_langchain.pipeline.PipelineSettings`; :mod:`selfrag_langchain.pipeline` builds from them."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Collection
from enum import Enum
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import AliasChoices, BaseModel, ValidationError

from selfrag_langchain.chains.controls import BeamSettings, LoopSettings
from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.files.paths import store_location
from selfrag_langchain.pipeline import PipelineSettings, uses_demo_corpus
from selfrag_langchain.scoring import RetrieveMode

MODEL_SETTINGS = ("model", "reflector", "calibration", "judge_encoder", "reader", "answer_finder", "critic",
                  "critic_prompts", "relevance")
"""The :class:`PipelineSettings` fields that choose the models and the judge, each a flag."""


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """Which models generate and judge, and on which backend, with the settings' defaults and docstrings."""
    model = parser.add_argument_group("models")
    add_setting_flags(model, PipelineSettings, only=MODEL_SETTINGS)
    add_setting_flags(model, LoopSettings, only={"max_new_tokens"})
    add_backend_options(parser)


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    """``--backend`` and the options of each backend (docs/backends.md lists their defaults)."""
    from selfrag_langchain.llms.factory import BACKENDS, backend_class

    def fallback(backend: str, name: str) -> Any:
        """What the backend uses when the flag is not given: its class's own default, declared there once."""
        value = backend_class(backend).model_fields[name].default
        return f"{value:g}" if isinstance(value, float) else value

    group = parser.add_argument_group("backend")
    add_setting_flags(group, PipelineSettings, only=("backend", "critic_backend"), choices=list(BACKENDS))
    group.add_argument("--device", default=None,
                       help=f"transformers: torch device (default: {fallback('transformers', 'device')})")
    group.add_argument("--dtype", default=None,
                       help="transformers, vllm: weight dtype; transformers on the CPU also takes int8 "
                            f"(default: {fallback('transformers', 'dtype')})")
    group.add_argument("--base-url", default=None,
                       help=f"openai: the server's base URL (default: {fallback('openai', 'base_url')})")
    group.add_argument("--api-key", default=None, help="openai: API key (default: $OPENAI_API_KEY)")
    group.add_argument("--timeout", type=float, default=None,
                       help=f"openai: seconds per request (default: {fallback('openai', 'timeout')})")
    group.add_argument("--max-retries", type=int, default=None,
                       help="openai: retries after a timeout, connection error or HTTP 429/5xx "
                            f"(default: {fallback('openai', 'max_retries')})")
    group.add_argument("--concurrency", type=int, default=None,
                       help=f"openai: requests in flight (default: {fallback('openai', 'concurrency')})")
    group.add_argument("--no-repeat-ngram-size", type=int, default=None, metavar="N",
                       help="transformers: never write the same N tokens twice in one generation, the prompt "
                            "aside; for a small trained generator that loops "
                            f"(default: {fallback('transformers', 'no_repeat_ngram_size')}, off)")
    group.add_argument("--tokenizer", default=None,
                       help="openai: local tokenizer of the served model, for token counts and its chat template "
                            "(default: the server's tokenize endpoint, no chat template)")
    group.add_argument("--extra-body", type=_json_object, default=None,
                       help='openai: JSON object of server-specific request fields, e.g. \'{"repeat_penalty": 1.0}\'')
    group.add_argument("--tensor-parallel-size", type=int, default=None,
                       help=f"vllm: GPUs per model (default: {fallback('vllm', 'tensor_parallel_size')})")
    group.add_argument("--gpu-memory-utilization", type=float, default=None,
                       help="vllm: fraction of GPU memory to use "
                            f"(default: {fallback('vllm', 'gpu_memory_utilization')})")
    group.add_argument("--max-model-len", type=int, default=None, help="vllm: context window (default: the model's)")
    group.add_argument("--enable-prefix-caching", action=argparse.BooleanOptionalAction, default=None,
                       help="vllm: reuse the key/value cache of shared prompt prefixes; judging reads each "
                            "passage once with it (default: "
                            f"{'on' if fallback('vllm', 'enable_prefix_caching') else 'off'})")
    group.add_argument("--n-ctx", type=int, default=None,
                       help=f"llamacpp: context window (default: {fallback('llamacpp', 'n_ctx')})")
    group.add_argument("--n-threads", type=int, default=None, help="llamacpp: CPU threads (default: llama.cpp's)")
    group.add_argument("--n-gpu-layers", type=int, default=None, help="llamacpp: layers on the GPU "
                       f"(default: {fallback('llamacpp', 'n_gpu_layers')})")


_BACKEND_FLAGS = ("device", "dtype", "base_url", "api_key", "timeout", "max_retries", "concurrency", "tokenizer",
                  "extra_body", "tensor_parallel_size", "gpu_memory_utilization", "max_model_len",
                  "enable_prefix_caching", "n_ctx", "n_threads", "n_gpu_layers", "no_repeat_ngram_size")


def _json_object(text: str) -> dict[str, object]:
    import json

    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"not JSON: {e}") from e
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def add_selfrag_options(parser: argparse.ArgumentParser) -> None:
    """The knobs of the control loop (PAPER.md §3), one flag per :class:`LoopSettings` field, the passage
    window's two and the quote switch, generated from the settings so that a flag's default is the library's."""
    knobs = parser.add_argument_group("Self-RAG")
    add_setting_flags(knobs, LoopSettings, exclude={"max_new_tokens"})
    add_setting_flags(knobs, PipelineSettings, only={"window_sentences", "keep_whole", "quote", "quote_reader",
                                                      "quote_read_alone"})


def add_setting_flags(group: Any, settings: type[BaseModel], *, only: Collection[str] | None = None,
                      exclude: Collection[str] = (), choices: list[str] | None = None) -> None:
    """A flag for each field of ``settings`` (or of ``only``): ``--name-with-dashes`` with the field's type,
    choices (or ``choices``, for a field the settings check themselves) and default, and its former names
    (a validation alias) as aliases; a switch pair for a bool (``--decline`` / ``--no-decline``, a ``use_``
    dropped); the field's docstring as the help. The flag's destination is the field's name, so
    :func:`settings_from_args` reads it back unchanged."""
    for name, field in settings.model_fields.items():
        if name in exclude or (only is not None and name not in only):
            continue
        text = _help_text(field.description or "")
        default = field.get_default(call_default_factory=True)
        if field.annotation is bool:
            group.add_argument("--" + name.removeprefix("use_").replace("_", "-"), dest=name, default=default,
                               action=argparse.BooleanOptionalAction, help=f"{text} (default: {_switch(default)})")
            continue
        annotation = _given(field.annotation)
        allowed = _choices(annotation) or choices
        value = default.value if isinstance(default, Enum) else default
        former = field.validation_alias.choices if isinstance(field.validation_alias, AliasChoices) else []
        reader = None if allowed else annotation
        if reader is not None and value is not None and _takes_none(field.annotation):
            reader, text = _or_none(reader), f"{text} Give 'none' for None."
        group.add_argument(_flag(name), *(_flag(str(a)) for a in former if a != name), dest=name,
                           type=reader, choices=allowed, default=value,
                           help=f"{text} (default: {'none' if value is None else '%(default)s'})")


class _ExplicitNone:
    def __repr__(self) -> str:
        return "none"


EXPLICIT_NONE = _ExplicitNone()
"""What a flag reads ``none`` as for a setting that takes None but defaults to a value (``--later-k none``:
all passages at every segment), told apart from a flag not given, which :func:`settings_from_args` leaves to
the settings' default."""


def _takes_none(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, UnionType) and type(None) in get_args(annotation)


def _or_none(read: Any) -> Any:
    """``read`` that also takes ``none`` (in any case) as :data:`EXPLICIT_NONE`."""
    def reading(text: str) -> Any:
        return EXPLICIT_NONE if text.strip().lower() == "none" else read(text)

    reading.__name__ = getattr(read, "__name__", "value")  # argparse names the type in its error
    return reading


def _given(annotation: Any) -> Any:
    """The type a flag's value is read as: ``X`` for ``X | None``."""
    if get_origin(annotation) in (Union, UnionType):
        kept = [a for a in get_args(annotation) if a is not type(None)]
        return kept[0] if len(kept) == 1 else str
    return annotation


def _switch(on: bool) -> str:
    return "on" if on else "off"


def _choices(annotation: Any) -> list[str] | None:
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return [member.value for member in annotation]
    if get_origin(annotation) is Literal:
        return list(get_args(annotation))
    return None


_ROLE = re.compile(r":[a-z]+:`~?(?:[\w.]+\.)?([^`]+)`")


def _help_text(docstring: str) -> str:
    """A field's docstring as one line of ``--help``: reST roles and literals reduced to their words."""
    text = _ROLE.sub(r"\1", " ".join(docstring.split())).replace("``", "")
    return text.replace("%", "%%")


def add_store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=store_location, default=None,
                        help="Chroma store directory, or a Chroma server's URL (http://HOST:PORT, `chroma run`) "
                             "(default: the store `selfrag index` fills, or the demo corpus until you index "
                             "something)")


def add_conversation_options(parser: argparse.ArgumentParser, *, history_of: str) -> None:
    """What the commands that keep conversations share (``chat``, ``serve``): where the conversations are
    kept, and short answers instead of long ones."""
    from selfrag_langchain.history import default_history_path

    parser.add_argument("--history", default=None, metavar="FILE_OR_URL",
                        help=f"SQLite file or database URL (postgresql://USER:PASSWORD@HOST/DB, for several "
                             f"processes) of {history_of} (default: {default_history_path()})")
    parser.add_argument("--short", action="store_true",
                        help="short-form answers (one passage, one branch) instead of long-form ones")


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Everything a command that runs Self-RAG over a store accepts."""
    add_model_options(parser)
    add_selfrag_options(parser)
    add_store_option(parser)


def settings_from_args(args: argparse.Namespace) -> PipelineSettings:
    """The parsed flags as :class:`~selfrag_langchain.pipeline.PipelineSettings`, validated once, at the edge.

    Flags a command does not define keep the settings' defaults. A value the pipeline cannot use is one
    line naming the flag (``--threshold must be in [0, 1], got 1.5``).

    Raises:
        ConfigurationError: for a value the settings refuse.
    """
    given = vars(args)
    fields = {name: None if given[name] is EXPLICIT_NONE else given[name]
              for name in PipelineSettings.model_fields if given.get(name) is not None}
    fields["backend_options"] = {name: given[name] for name in _BACKEND_FLAGS if given.get(name) is not None}
    try:
        return PipelineSettings(**fields)
    except ValidationError as e:
        reasons = "; ".join(_as_flags(err["loc"], err["msg"]) for err in e.errors())
        raise ConfigurationError(reasons) from None


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _as_flags(loc: tuple[int | str, ...], message: str) -> str:
    """A settings message in the command line's words: ``w_sup must ...`` becomes ``--w-sup must ...``."""
    message = message.removeprefix("Value error, ")
    field = str(loc[0]) if loc else message.split(" ", 1)[0]
    if field in PipelineSettings.model_fields or field in _BACKEND_FLAGS:
        if message.startswith(field + " "):
            message = _flag(field) + message[len(field):]
        elif loc:
            message = f"{_flag(field)}: {message}"
    return message.replace(" to backend ", " to --backend ")


def note_demo_corpus(settings: PipelineSettings) -> None:
    """Tell the user, on stderr, when the answers come from the demo corpus."""
    if uses_demo_corpus(settings):
        print("selfrag: answering from the demo corpus (index your own files with `selfrag index PATH`)",
              file=sys.stderr)


def run_settings(args: argparse.Namespace) -> PipelineSettings:
    """:func:`settings_from_args`, and the demo-corpus notice when the pipeline will retrieve from it
    (``ask`` and ``chat``; ``eval`` tells only when it opens the store). A critic named for another judge is
    refused rather than left unread (``eval`` reads it for ASQA's citation judge whatever the judge)."""
    settings = settings_from_args(args)
    unread = [_flag(name) for name in ("critic", "critic_backend") if getattr(settings, name) is not None]
    if unread and settings.reflector != "critic":
        msg = (f"{' and '.join(unread)} {'name' if len(unread) > 1 else 'names'} the critic of --reflector critic, "
               f"and the judge here is --reflector {settings.reflector}: add --reflector critic to judge with it")
        raise ConfigurationError(msg)
    if settings.reader is not None and settings.reflector != "entailment" and not (settings.quote and
                                                                                  settings.quote_reader):
        msg = ("--reader names the sentence reader of --reflector entailment and of quoting with --quote-reader, and "
               "neither is on here: add --reflector entailment or --quote-reader to read with it")
        raise ConfigurationError(msg)
    if settings.quote_read_alone and not (settings.quote and settings.quote_reader):
        msg = ("--quote-read-alone changes how --quote-reader reads, which is off here: add --quote-reader to read "
               "with it")
        raise ConfigurationError(msg)
    if settings.answer_finder is not None and not (settings.quote and settings.quote_reader):
        msg = ("--answer-finder reads the quotes of --quote-reader, which is off here: add --quote-reader to read "
               "with it")
        raise ConfigurationError(msg)
    if settings.mode != RetrieveMode.NEVER:
        note_demo_corpus(settings)
    return settings


def add_long_form_options(parser: argparse.ArgumentParser) -> None:
    """The beam search of long-form answers (``ask --long``, ``chat``)."""
    add_setting_flags(parser.add_argument_group("long form"), BeamSettings)
