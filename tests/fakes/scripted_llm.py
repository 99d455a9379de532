"""A scripted stand-in for a fine-tuned Self-RAG model: it emits known reflection tokens with known
probabilities, so the inline path can be checked end to end against hand-computed scores."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseLLM
from langchain_core.outputs import Generation, LLMResult
from pydantic import Field

from selfrag_langchain.llms.base import INFO_KEY, ContinuationRequest, GenerationStats, GroupReading
from selfrag_langchain.tokens import NO_RETRIEVAL, RETRIEVAL, Group
from tests.fakes.selfrag_vocabulary import SelfRAGVocabulary


class ScriptedSelfRAGLLM(SelfRAGVocabulary, BaseLLM):
    """Answers a branch prompt with the script entry whose key occurs in the prompt."""

    script: dict[str, tuple[str, GenerationStats]]
    """Key found in the prompt -> (generated text, the stats a backend would report)."""
    retrieve_logprobs: tuple[float, float] = (-0.5, -2.0)
    """log p([Retrieval]), log p([No Retrieval]) after the question."""
    prompts_seen: list[str] = Field(default_factory=list)
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted-selfrag"

    def _generate(self, prompts: list[str], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> LLMResult:
        self.calls += 1
        self.prompts_seen.extend(prompts)
        generations = []
        for prompt in prompts:
            key = next((k for k in self.script if k in prompt), None)
            if key is None:
                raise KeyError(f"no scripted answer for prompt {prompt!r}")
            text, stats = self.script[key]
            generations.append([Generation(text=text, generation_info={INFO_KEY: stats.to_dict()})])
        return LLMResult(generations=generations)

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        table = {RETRIEVAL: self.retrieve_logprobs[0], NO_RETRIEVAL: self.retrieve_logprobs[1]}
        return [[table[c] for c in r.continuations] if r.continuations[0] in table else self._relevance(r)
                for r in requests]

    def _relevance(self, request: ContinuationRequest) -> list[float]:
        """The IsRel distribution the script's answer to the request's prompt opens with, as log-probabilities."""
        key = next((k for k in self.script if k in request.prompt), None)
        if key is None:
            raise KeyError(f"no scripted answer for prompt {request.prompt!r}")
        probs = next(r.probs for r in self.script[key][1].readings if r.group is Group.ISREL)
        return [math.log(probs[c]) for c in request.continuations]


def reading(group: Any, token: str, index: int, probs: dict[str, float]) -> GroupReading:
    return GroupReading(group=group, token=token, index=index, probs=probs, mass=1.0)
