"""What a judge asks of a Self-RAG model besides its scores, for the test stand-ins of one: the reflection
tokens in its vocabulary, one token per word, and no context limit."""

from __future__ import annotations

from collections.abc import Sequence

from selfrag_langchain.tokens import TOKEN_GROUP


class SelfRAGVocabulary:
    """Mixed into a stand-in Self-RAG model (a ``BaseLLM`` or a bare scorer)."""

    def has_tokens(self, strings: Sequence[str]) -> bool:
        return all(s in TOKEN_GROUP for s in strings)

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    @property
    def context_window(self) -> int | None:
        return None
