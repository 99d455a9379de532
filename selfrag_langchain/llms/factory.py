"""One choice point for the backend: ``build_llm("transformers" | "vllm" | "openai" | "llamacpp", model, ...)``.

Every backend is a LangChain ``BaseLLM`` that fills the contract of :mod:`selfrag_langchain.llms.base`,
so the Runnables and reflectors run unchanged on each. A backend's package is imported only when that
backend is built.
"""

from __future__ import annotations

import importlib
from typing import Any

from langchain_core.language_models import BaseLLM
from pydantic import ValidationError

from selfrag_langchain.errors import ConfigurationError

BACKENDS: dict[str, tuple[str, str]] = {
    "transformers": ("selfrag_langchain.llms.transformers", "TransformersLLM"),
    "vllm": ("selfrag_langchain.llms.vllm", "VllmLLM"),
    "openai": ("selfrag_langchain.llms.openai", "OpenAICompatibleLLM"),
    "llamacpp": ("selfrag_langchain.llms.llamacpp", "LlamaCppLLM"),
}
"""Backend name -> (module, class)."""

GENERATION_OPTIONS = frozenset({"no_repeat_ngram_size"})
"""Backend options that change only what a model writes: a critic reads and never writes, so these must reach
the generator's backend or they do nothing."""


def backend_class(backend: str) -> type[BaseLLM]:
    """The class of a backend by name.

    Raises:
        ConfigurationError: for an unknown name.
    """
    if backend not in BACKENDS:
        msg = f"unknown backend '{backend}': choose one of {', '.join(BACKENDS)}"
        raise ConfigurationError(msg)
    module, name = BACKENDS[backend]
    cls: type[BaseLLM] = getattr(importlib.import_module(module), name)
    return cls


def backend_options(backend: str) -> set[str]:
    """The option names a backend accepts (its pydantic fields and their aliases)."""
    names: set[str] = set()
    for field_name, info in backend_class(backend).model_fields.items():
        names.add(field_name)
        if info.alias:
            names.add(info.alias)
    return names


def build_llm(backend: str = "transformers", model: str | None = None, **options: Any) -> BaseLLM:
    """A Self-RAG backend by name.

    Args:
        backend: ``transformers`` (default; CPU or GPU, exact probabilities), ``vllm`` (offline engine on
            GPUs), ``openai`` (any OpenAI-compatible completions server) or ``llamacpp`` (GGUF in process).
        model: the model (hub id, directory, ``.gguf`` file, or the served model's name for ``openai``);
            None: the backend's default (``smollm2-135m-instruct``; for ``openai`` the server's first model).
        **options: fields of the backend's class, e.g. ``device``, ``tensor_parallel_size``, ``base_url``,
            ``timeout``, ``concurrency``, ``n_ctx``. None values are left at the backend's default.

    Raises:
        ConfigurationError: for an unknown backend, or an option the backend does not take.

    Example:
        .. code-block:: python

            from selfrag_langchain.llms.factory import build_llm

            llm = build_llm("openai", base_url="http://127.0.0.1:8000/v1", concurrency=8)
            llm = build_llm("vllm", "selfrag/selfrag_llama2_7b", tensor_parallel_size=2)
    """
    cls = backend_class(backend)
    known = backend_options(backend)
    given = {key: value for key, value in options.items() if value is not None}
    unknown = sorted(set(given) - known)
    if unknown:
        msg = f"option(s) {', '.join(unknown)} do not apply to the {backend} backend"
        raise ConfigurationError(msg)
    if model is not None:
        given["model"] = model
    try:
        return cls(**given)
    except ValidationError as e:
        reasons = "; ".join(str(err["msg"]).removeprefix("Value error, ") for err in e.errors())
        msg = f"{backend} backend: {reasons}"
        raise ConfigurationError(msg) from e
