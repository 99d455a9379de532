"""A stand-in backend that reads every prompt through a real tokenizer and answers from the ids it read.

Its generations and scores are deterministic functions of the token ids of each prompt (after the chat
template, as a backend would read it), so two runs of a chain produce the same answers and scores exactly
when the models were shown the same ids. It records every read, so a test can compare them. It costs
tokenization only, which lets property tests run thousands of questions through the real chains.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseLLM
from langchain_core.outputs import Generation, LLMResult
from pydantic import ConfigDict, Field

from selfrag_langchain.llms.base import (
    INFO_KEY,
    ContinuationRequest,
    GenerationStats,
    reading_at,
    tokenizer_control_tokens,
)
from selfrag_langchain.llms.chat_templates import render_hf_chat
from selfrag_langchain.tokens import CHECKPOINT_TOKEN_ORDER, GROUP_TOKENS, TOKEN_GROUP, Group


def smollm2_tokenizer(*, reflection_tokens: bool) -> Any:
    """SmolLM2-135M-Instruct's tokenizer, with the 15 Self-RAG strings added as special tokens or not."""
    from selfrag_langchain.llms.model_loading import load_tokenizer

    tokenizer = copy.deepcopy(load_tokenizer("smollm2-135m-instruct"))
    if reflection_tokens:
        tokenizer.add_special_tokens({"additional_special_tokens": list(CHECKPOINT_TOKEN_ORDER)})
    return tokenizer


def special_ids(tokenizer: Any) -> set[int]:
    """Every id the tokenizer treats as special or added (what no user or document text may produce)."""
    return set(tokenizer.all_special_ids) | set(tokenizer.added_tokens_decoder)


@functools.lru_cache(maxsize=8)
def _vocabulary(tokenizer: Any) -> frozenset[str]:
    """The tokenizer's vocabulary, read once per tokenizer: each chain run makes a new stand-in, and reading
    SmolLM2's 49,000 entries takes longer than the run."""
    return frozenset(tokenizer.get_vocab())


class TokenizerLLM(BaseLLM):
    """Generates and scores from token ids alone; a Self-RAG model when its tokenizer has the reflection
    tokens (no chat template then, as the real backends decide), an instruct model otherwise."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    tokenizer: Any
    reads: list[tuple[int, ...]] = Field(default_factory=list)
    """The ids of every text read, in order."""

    @property
    def _llm_type(self) -> str:
        return "tokenizer-stand-in"

    @property
    def control_tokens(self) -> tuple[str, ...]:
        return tokenizer_control_tokens(self.tokenizer)

    @property
    def selfrag(self) -> bool:
        return self.has_tokens(list(TOKEN_GROUP))

    @property
    def context_window(self) -> int | None:
        return 8192

    def has_tokens(self, strings: Sequence[str]) -> bool:
        vocab = _vocabulary(self.tokenizer)
        return all(s in vocab for s in strings)

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _read(self, text: str, *, chat: bool) -> list[int]:
        if chat and not self.selfrag:
            text = render_hf_chat(self.tokenizer, text)
        ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        self.reads.append(tuple(ids))
        return ids

    def _generate(self, prompts: list[str], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> LLMResult:
        return LLMResult(generations=[[self._answer(self._read(p, chat=True))] for p in prompts])

    def _answer(self, ids: list[int]) -> Generation:
        """Words taken from the middle of the prompt, plus reflection tokens chosen by the ids for a
        Self-RAG model; the stats a backend reports for them."""
        start = len(ids) // 3
        text = self.tokenizer.decode(ids[start:start + 8], skip_special_tokens=True).strip() or "Nothing."
        logprobs: dict[str, float] = {}
        readings = []
        if self.selfrag:
            chosen = []
            for group in (Group.ISREL, Group.ISSUP, Group.ISUSE):
                tokens = GROUP_TOKENS[group]
                chosen.append(tokens[sum(ids) % len(tokens)])
                logprobs.update({t: -((sum(ids) + i) % 5) / 2 for i, t in enumerate(tokens)})
            text = f"{chosen[0]}{text}{chosen[1]}{chosen[2]}"
            for index, token in enumerate(chosen):
                reading = reading_at(index, token, logprobs)
                if reading is not None:
                    readings.append(reading)
        stats = GenerationStats(num_tokens=len(ids) % 17 + 1, sum_logprob=-(sum(ids) % 97) / 10,
                                readings=tuple(readings))
        return Generation(text=text, generation_info={INFO_KEY: stats.to_dict()})

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        rows = []
        for request in requests:
            ids = self._read(request.prompt, chat=request.chat)
            row = []
            for continuation in request.continuations:
                cont = self._read(continuation, chat=False)
                row.append(-((sum(ids) * 7 + sum(cont) * 13 + len(ids)) % 500) / 100 - 0.01 * len(cont))
            rows.append(row)
        return rows
