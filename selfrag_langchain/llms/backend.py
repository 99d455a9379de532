"""The base every Self-RAG backend is built on.

:class:`ReflectiveBackend` is LangChain's ``BaseLLM`` with what the control loop and the judges need of any
backend declared once: the generation settings, and the token methods of :class:`~selfrag_langchain.llms.
base.ReflectiveLLM`, which each backend fills in with its own library (transformers, vLLM, llama.cpp, an
OpenAI-compatible server). A model of another kind plugs in by subclassing it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Self

from langchain_core.language_models import BaseLLM
from pydantic import ConfigDict, model_validator

from selfrag_langchain.llms.base import ContinuationRequest, require_at_least


class ReflectiveBackend(BaseLLM):
    """A LangChain LLM that reports what Self-RAG's formulas read: each generation's
    ``generation_info["selfrag"]`` (:class:`~selfrag_langchain.llms.base.GenerationStats`) and the
    log-probabilities of fixed continuations (:meth:`score_continuations`)."""

    model_config = ConfigDict(populate_by_name=True)

    max_new_tokens: int = 100
    """Generation budget per prompt; a generation that reaches it has ``finish_reason == "length"``."""
    temperature: float = 0.0
    """0 decodes greedily (the paper's setting); above 0 samples from the tempered distribution."""
    chat_template: bool | None = None
    """Wrap prompts in the model's chat template. None: only for a model that has one and lacks the
    reflection tokens (an instruct model used as plain generator or critic)."""

    @model_validator(mode="after")
    def _check_generation(self) -> Self:
        require_at_least(self, 1, "max_new_tokens")
        require_at_least(self, 0, "temperature")
        return self

    @property
    @abstractmethod
    def context_window(self) -> int | None:
        """Maximum number of tokens of prompt plus generation, if known."""

    @property
    @abstractmethod
    def control_tokens(self) -> tuple[str, ...]:
        """The strings the model reads as control tokens (:mod:`selfrag_langchain.boundary` removes them
        from untrusted text)."""

    @abstractmethod
    def has_tokens(self, strings: Sequence[str]) -> bool:
        """Whether each string is a single token of the vocabulary (the reflection tokens)."""

    @abstractmethod
    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` in the model's vocabulary."""

    @abstractmethod
    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        """Total log-probability of each continuation given its prompt, one list per request."""

    def get_num_tokens(self, text: str) -> int:
        """LangChain's token count, in the model's own vocabulary."""
        return self.count_tokens(text)
