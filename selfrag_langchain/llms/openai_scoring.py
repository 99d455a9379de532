"""Label likelihoods from an OpenAI-compatible completions endpoint.

A server returns no full next-token distribution, only the log-probabilities of a few tokens, so the
likelihood of a fixed continuation (a judge's label) is read in one of two ways:

- ``forced``: the top log-probabilities after the prompt (a one-token label among them is read there), then
  one request per remaining continuation token, forced with ``logit_bias``; ordinary generation requests,
  which a server's prefix cache serves.
- ``echo``: one request per continuation with the prompt echoed with its log-probabilities.

``auto`` probes the server once: ``forced`` where token ids are available and a forced token reports its
unbiased log-probability; else ``echo`` if the echoed log-probabilities sit at the right tokens; else
``forced``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Literal

from selfrag_langchain.errors import BackendError

ScoringMode = Literal["auto", "echo", "forced"]

PROBE_PROMPT = "The capital of France is"
"""The prompt the ``auto`` probes read."""
FORCE_BIAS = 100
"""The ``logit_bias`` that forces a token."""


def missing_logprobs_message(base_url: str, *, echo: bool = False) -> str:
    what = "prompt log-probabilities (echo with logprobs)" if echo else "token log-probabilities"
    return (f"the server at {base_url} returned no {what}: Self-RAG needs them. Enable them on the server "
            "(llama-cpp-python: --logits_all True; vLLM: --max-logprobs >= top_logprobs), or use a backend "
            "that reports them")


class ContinuationScorer:
    """Scores continuations of prompts through ``complete`` (a completions request with the run's model and
    greedy settings) and ``token_ids`` (the served model's tokenization)."""

    def __init__(self, complete: Callable[..., Any], token_ids: Callable[[str], list[int]], *, base_url: str,
                 top_logprobs: int, mode: ScoringMode = "auto") -> None:
        self.complete, self.token_ids, self.base_url = complete, token_ids, base_url
        self.top_logprobs, self.requested = top_logprobs, mode
        self._lock = threading.Lock()
        self._mode: str | None = None

    def mode(self) -> str:
        """``echo`` or ``forced``; with ``auto`` the server is probed once."""
        if self.requested != "auto":
            return self.requested
        with self._lock:
            if self._mode is None:
                faithful = self.knows_token_ids() and self.forced_is_faithful()
                self._mode = "forced" if faithful or not self.echo_is_aligned() else "echo"
        return self._mode

    def score(self, prompt: str, continuations: Sequence[str]) -> list[float]:
        """Total log-probability of each continuation after ``prompt`` (the text as sent)."""
        if self.mode() == "echo":
            return self.score_echo(prompt, continuations)
        return self.score_forced(prompt, continuations)

    def knows_token_ids(self) -> bool:
        """Whether token ids can be had (a local tokenizer or the server's tokenize endpoint)."""
        try:
            return bool(self.token_ids("Yes"))
        except BackendError:
            return False

    def forced_is_faithful(self) -> bool:
        """Whether a token forced with ``logit_bias`` reports its unbiased log-probability: the second most
        likely token after a probe prompt, forced, must get the value the top log-probabilities gave it."""
        try:
            ranked = sorted(self.top_after(PROBE_PROMPT).items(), key=lambda item: item[1], reverse=True)
            token, expected = next((t, v) for t, v in ranked[1:] if len(self.token_ids(t)) == 1)
            forced = self.complete(prompt=PROBE_PROMPT, max_tokens=1, logprobs=1,
                                   logit_bias={str(self.token_ids(token)[0]): FORCE_BIAS}).choices[0].logprobs
            return forced.tokens[0] == token and abs(float(forced.token_logprobs[0]) - expected) < 0.05
        except (BackendError, AttributeError, IndexError, TypeError, StopIteration):
            return False

    def echo_is_aligned(self) -> bool:
        """Whether echoed prompt log-probabilities sit at the right tokens: the echoed log-probability of
        a token must equal the one the server gave when it generated that token after the same prefix."""
        try:
            first = self.complete(prompt=PROBE_PROMPT, max_tokens=1, logprobs=1).choices[0].logprobs
            token, generated = first.tokens[0], first.token_logprobs[0]
            echoed = self.complete(prompt=PROBE_PROMPT + token, max_tokens=1, logprobs=1, echo=True)
        except (BackendError, AttributeError, IndexError, TypeError):
            return False  # no echo or no log-probabilities: force instead
        lp = echoed.choices[0].logprobs
        if lp is None or lp.text_offset is None or lp.token_logprobs is None:
            return False
        at = [i for i, offset in enumerate(lp.text_offset) if offset == len(PROBE_PROMPT)]
        if not at or lp.tokens[at[0]] != token or lp.token_logprobs[at[0]] is None:
            return False
        return abs(lp.token_logprobs[at[0]] - generated) < 0.05

    def score_echo(self, prompt: str, continuations: Sequence[str]) -> list[float]:
        scores = []
        for continuation in continuations:
            full = prompt + continuation
            choice = self.complete(prompt=full, max_tokens=1, logprobs=1, echo=True).choices[0]
            lp = choice.logprobs
            if lp is None or lp.token_logprobs is None or lp.text_offset is None:
                raise BackendError(missing_logprobs_message(self.base_url, echo=True))
            scores.append(span_logprob(lp.tokens, lp.text_offset, lp.token_logprobs, len(prompt), len(full)))
        return scores

    def score_forced(self, prompt: str, continuations: Sequence[str]) -> list[float]:
        top = self.top_after(prompt)
        scores = []
        for continuation in continuations:
            ids = self.token_ids(continuation)
            if len(ids) == 1 and continuation in top:
                scores.append(top[continuation])
                continue
            total, text = 0.0, prompt
            for token_id in ids:
                choice = self.complete(prompt=text, max_tokens=1, logprobs=1,
                                       logit_bias={str(token_id): FORCE_BIAS}).choices[0]
                if choice.logprobs is None or not choice.logprobs.token_logprobs:
                    raise BackendError(missing_logprobs_message(self.base_url))
                total += float(choice.logprobs.token_logprobs[0])
                text += choice.logprobs.tokens[0]
            if text != prompt + continuation:
                msg = (f"the server at {self.base_url} did not follow logit_bias when scoring "
                       f"{continuation!r} (got {text[len(prompt):]!r}): use continuation_scoring='echo'")
                raise BackendError(msg)
            scores.append(total)
        return scores

    def top_after(self, prompt: str) -> dict[str, float]:
        """The top log-probabilities of the token after ``prompt``, the generated one's included."""
        choice = self.complete(prompt=prompt, max_tokens=1, logprobs=self.top_logprobs).choices[0]
        if choice.logprobs is None or not choice.logprobs.top_logprobs:
            raise BackendError(missing_logprobs_message(self.base_url))
        top = dict(choice.logprobs.top_logprobs[0] or {})
        top[choice.logprobs.tokens[0]] = float(choice.logprobs.token_logprobs[0])
        return {tok: float(lp) for tok, lp in top.items()}


def span_logprob(
    tokens: Sequence[str], offsets: Sequence[int], token_logprobs: Sequence[float | None], start: int, end: int
) -> float:
    """Sum of the log-probabilities of the echoed tokens that cover text[start:end].

    A token straddling ``start`` (the server merged the end of the prompt with the continuation) counts
    with the continuation.
    """
    total = 0.0
    for token, offset, lp in zip(tokens, offsets, token_logprobs, strict=False):
        if offset >= end or offset + len(token) <= start:
            continue
        if lp is None:
            msg = "the server returned no log-probability for a continuation token (was the prompt empty?)"
            raise BackendError(msg)
        total += float(lp)
    return total
