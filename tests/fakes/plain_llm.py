"""An instruct-model stand-in for tests of the control loop around the models: one fixed answer, label
scores that favour each group's first label, a context window of the test's choosing, a count of calls."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseLLM
from langchain_core.outputs import Generation, LLMResult

from selfrag_langchain.llms.base import ContinuationRequest


class InstructStandIn(BaseLLM):
    """What every stand-in for an instruct model (no reflection tokens) answers about its vocabulary:
    words for tokens, and ``window`` as its context window."""

    window: int | None = None

    def has_tokens(self, strings: Sequence[str]) -> bool:
        return False

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    @property
    def context_window(self) -> int | None:
        return self.window


class PlainLLM(InstructStandIn):
    answer: str = "Paris is the capital."
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "plain-stand-in"

    def _generate(self, prompts: list[str], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> LLMResult:
        self.calls += 1
        return LLMResult(generations=[[Generation(text=self.answer)] for _ in prompts])

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        self.calls += 1
        return [[-0.5 - i for i in range(len(r.continuations))] for r in requests]
