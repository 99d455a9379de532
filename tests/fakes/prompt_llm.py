"""A generator stand-in that answers from a list and keeps every prompt, for tests of which branches get written."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import FakeListLLM
from pydantic import Field


class PromptLLM(FakeListLLM):
    """Answers from its list and keeps every prompt it was asked to write from."""

    prompts: list[str] = Field(default_factory=list)

    def _call(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        self.prompts.append(prompt)
        return super()._call(prompt, *args, **kwargs)

    async def _acall(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        return self._call(prompt, *args, **kwargs)
