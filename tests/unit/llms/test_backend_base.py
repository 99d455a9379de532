"""Every backend is a ReflectiveBackend: the generation settings are declared once, on the base, and a
backend that leaves out a token method the judges call cannot be built."""

from __future__ import annotations

import inspect

import pytest
from pydantic import ValidationError

from selfrag_langchain.llms import (
    LlamaCppLLM,
    OpenAICompatibleLLM,
    ReflectiveBackend,
    TransformersLLM,
    VllmLLM,
)

BACKENDS = (TransformersLLM, LlamaCppLLM, VllmLLM, OpenAICompatibleLLM)
SHARED = ("max_new_tokens", "temperature", "chat_template")


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda c: c.__name__)
def test_backend_takes_the_shared_settings_from_the_base(backend: type[ReflectiveBackend]) -> None:
    assert issubclass(backend, ReflectiveBackend)
    for name in SHARED:
        assert name not in inspect.get_annotations(backend), f"{backend.__name__} redeclares {name}"
        assert backend.model_fields[name].default == ReflectiveBackend.model_fields[name].default
    assert not backend.__abstractmethods__, f"{backend.__name__} lacks {sorted(backend.__abstractmethods__)}"
    assert backend().max_new_tokens == 100  # built without loading anything


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda c: c.__name__)
@pytest.mark.parametrize(("field", "value"), [("max_new_tokens", 0), ("temperature", -0.5)])
def test_every_backend_refuses_a_bad_generation_setting(backend: type[ReflectiveBackend], field: str,
                                                        value: float) -> None:
    with pytest.raises(ValidationError, match=f"{field} must be >= "):
        backend(**{field: value})


class Partial(ReflectiveBackend):
    """A LangChain LLM and nothing more: none of the token methods the judges call."""

    @property
    def _llm_type(self) -> str:
        return "partial"

    def _generate(self, prompts, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
        raise NotImplementedError


class Words(Partial):
    """Partial with the token methods, counting words as tokens."""

    @property
    def context_window(self) -> int | None:
        return None

    @property
    def control_tokens(self) -> tuple[str, ...]:
        return ()

    def has_tokens(self, strings):  # type: ignore[no-untyped-def]
        return False

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def score_continuations(self, requests):  # type: ignore[no-untyped-def]
        return []


def test_a_backend_without_the_token_methods_cannot_be_built() -> None:
    with pytest.raises(TypeError, match="abstract"):
        Partial()


def test_get_num_tokens_counts_in_the_backends_vocabulary() -> None:
    assert Words().get_num_tokens("three little words") == 3
