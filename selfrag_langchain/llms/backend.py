"""The base every Self-RAG backend is built on.

:class:`ReflectiveBackend` is LangChain's ``BaseLLM`` with what the control loop and the judges need of any
backend declared once: the generation settings, and the token methods of :class:`~selfrag_langchain.llms.
base.ReflectiveLLM`, which each backend fills in with its own library (transformers, vLLM, llama.cpp, an
OpenAI-compatible server). A model of another kind plugs in by subclassing it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, Self

from langchain_core.language_models import BaseLLM
from pydantic import ConfigDict, PrivateAttr, model_validator

from selfrag_langchain.llms.base import ContinuationRequest, require_at_least, tokenizer_control_tokens
from selfrag_langchain.llms.chat_templates import use_chat_template
from selfrag_langchain.tokens import TOKEN_GROUP


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
        """The strings the model reads as control tokens (:mod:`selfrag_langchain.text.boundary` removes them
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


class HFTokenizerBackend(ReflectiveBackend):
    """A backend whose model reads text through a Hugging Face tokenizer (transformers, vLLM): its vocabulary,
    control tokens, reflection-token ids and chat-template choice, each read once from :attr:`tokenizer`."""

    _vocab: dict[str, int] | None = PrivateAttr(default=None)
    _controls: tuple[str, ...] | None = PrivateAttr(default=None)

    @property
    @abstractmethod
    def tokenizer(self) -> Any:
        """The model's Hugging Face tokenizer (loaded at first use)."""

    @property
    def vocab(self) -> dict[str, int]:
        """Token string -> id, built once: ``get_vocab()`` rebuilds the whole mapping on every call."""
        if self._vocab is None:
            self._vocab = dict(self.tokenizer.get_vocab())
        return self._vocab

    @property
    def control_tokens(self) -> tuple[str, ...]:
        """The strings the tokenizer reads as special or added tokens (:mod:`selfrag_langchain.text.boundary`)."""
        if self._controls is None:  # asked for every prompt a judge builds: read the tokenizer once
            self._controls = tokenizer_control_tokens(self.tokenizer)
        return self._controls

    def has_tokens(self, strings: Sequence[str]) -> bool:
        return all(s in self.vocab for s in strings)

    def reflection_ids(self) -> dict[int, str]:
        """Token id -> reflection token string, for the reflection tokens the vocabulary has."""
        return {self.vocab[tok]: tok for tok in TOKEN_GROUP if tok in self.vocab}

    def uses_chat_template(self) -> bool:
        """Whether prompts are wrapped in the tokenizer's chat template (see :attr:`chat_template`)."""
        return use_chat_template(self.chat_template,
                                 has_template=getattr(self.tokenizer, "chat_template", None) is not None,
                                 has_reflection_tokens=self.has_tokens(list(TOKEN_GROUP)))
