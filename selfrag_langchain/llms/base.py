"""The contract between LLM backends and the Self-RAG control loop.

A backend is a LangChain ``BaseLLM`` that also fills ``generation_info["selfrag"]`` with a
:class:`GenerationStats` and can score fixed continuations of a prompt
(:meth:`ReflectiveLLM.score_continuations`). The control loop reads only these value objects, never a
backend's raw outputs, so every backend (transformers, vLLM, OpenAI-compatible servers, llama.cpp)
serves the same loop and the same trace.

Exactness: a backend that sees the full next-token distribution (transformers, llama.cpp in process)
reports exact group probabilities (``exact=True``). A backend that sees only the top-k
log-probabilities (vLLM, OpenAI ``logprobs``) normalises over the group tokens it saw, gives the others
probability 0, names them in ``missing`` and sets ``exact=False``; the group's total probability
``mass`` is then a lower bound. When every group token was among the top-k, the reading is exact and
says so. :func:`group_reading` builds a reading the same way for every backend.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from langchain_core.outputs import Generation

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.tokens import GROUP_TOKENS, TOKEN_GROUP, Group

INFO_KEY = "selfrag"
"""The key of :class:`GenerationStats` in a ``Generation``'s ``generation_info``."""


@dataclass(frozen=True)
class GroupReading:
    """The distribution over one reflection group at the position where a group token was generated."""

    group: Group
    token: str
    """The token the model emitted there."""
    index: int
    """Position of that token among the generated tokens (0-based)."""
    probs: dict[str, float]
    """Probabilities of the group's tokens at that position, normalised within the group."""
    mass: float | None = None
    """Unnormalised probability of the whole group at that position (how sure the model was that a
    token of this group comes next); a lower bound when ``exact`` is False; None if unknown."""
    exact: bool = True
    missing: tuple[str, ...] = ()
    """Group tokens that fell outside the backend's returned top-k (given probability 0)."""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["group"] = str(self.group)
        data["missing"] = list(self.missing)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GroupReading:
        return cls(
            group=Group(data["group"]),
            token=data["token"],
            index=int(data["index"]),
            probs=dict(data["probs"]),
            mass=data.get("mass"),
            exact=bool(data.get("exact", True)),
            missing=tuple(data.get("missing", ())),
        )


@dataclass(frozen=True)
class GenerationStats:
    """What the scoring formulas need from one generation, in a backend-independent form."""

    num_tokens: int
    sum_logprob: float
    """Sum of the log-probabilities of the generated tokens (the sequence log-probability)."""
    readings: tuple[GroupReading, ...] = field(default_factory=tuple)
    finish_reason: str = "stop"
    """``stop`` (end of sequence or a stop string), ``length`` (``max_new_tokens`` reached) or
    ``sentence`` (asked to stop at the end of the first sentence, and stopped there)."""
    token_logprobs: tuple[float, ...] = ()
    """Log-probability of each generated token in order; empty when the backend did not report them."""
    token_ends: tuple[int, ...] = ()
    """Where each generated token's text ends in the generation's text (a character offset)."""

    @property
    def mean_logprob(self) -> float | None:
        """Length-normalised log-probability; exp of it is the sequence term of the segment score."""
        return self.sum_logprob / self.num_tokens if self.num_tokens else None

    def first(self, group: Group) -> GroupReading | None:
        """The reading at the first position where a token of ``group`` was generated."""
        return next((r for r in self.readings if r.group is group), None)

    def upto(self, chars: int) -> GenerationStats:
        """The stats of the tokens that wrote the first ``chars`` characters of the text: the sequence
        term of a segment cut out of a longer generation. A token that straddles the cut counts; the
        readings are kept (a segment's judgements may follow its last word). Unchanged when the
        backend reported no per-token log-probabilities."""
        if not self.token_logprobs:
            return self
        count = sum(1 for i in range(len(self.token_ends)) if (self.token_ends[i - 1] if i else 0) < chars)
        if count >= self.num_tokens:
            return self
        return replace(self, num_tokens=count, sum_logprob=math.fsum(self.token_logprobs[:count]),
                       token_logprobs=self.token_logprobs[:count], token_ends=self.token_ends[:count])

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "num_tokens": self.num_tokens,
            "sum_logprob": self.sum_logprob,
            "readings": [r.to_dict() for r in self.readings],
            "finish_reason": self.finish_reason,
        }
        if self.token_logprobs:
            data["token_logprobs"] = list(self.token_logprobs)
            data["token_ends"] = list(self.token_ends)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GenerationStats:
        return cls(
            num_tokens=int(data["num_tokens"]),
            sum_logprob=float(data["sum_logprob"]),
            readings=tuple(GroupReading.from_dict(r) for r in data.get("readings", ())),
            finish_reason=str(data.get("finish_reason", "stop")),
            token_logprobs=tuple(float(v) for v in data.get("token_logprobs", ())),
            token_ends=tuple(int(v) for v in data.get("token_ends", ())),
        )


def per_token(logprobs: Sequence[float], pieces: Sequence[str], text: str) -> dict[str, Any]:
    """``token_logprobs`` and ``token_ends`` from each token's log-probability and its text (as a
    backend decodes it); ends are clamped to the generation's text, which a stop string may have cut."""
    ends, at = [], 0
    for piece in pieces:
        at = min(at + len(piece), len(text))
        ends.append(at)
    return {"token_logprobs": tuple(float(v) for v in logprobs), "token_ends": tuple(ends)}


def prefix_ends(decode: Any, ids: Sequence[int], text: str, context: int = 6) -> tuple[int, ...]:
    """Where each token's text ends; monotone and clamped to ``text``.

    A token does not always decode alone to the text it adds (a SentencePiece token loses its leading
    space, a byte-level token may hold half a character), so each token's length is what it adds to the
    decoding of the ``context`` tokens before it: two short decodes per token, linear in the generation
    (decoding every prefix would be quadratic, on every generation of the hot path)."""
    ends, at = [], 0
    for i in range(len(ids)):
        before = ids[max(0, i - context) : i]
        added = len(decode([*before, ids[i]])) - (len(decode(before)) if before else 0)
        at = min(max(at, at + added), len(text))
        ends.append(at)
    return tuple(ends)


def group_reading(group: Group, token: str, index: int, group_logprobs: Mapping[str, float]) -> GroupReading:
    """A reading from the log-probabilities of the group's tokens a backend saw at one position.

    Tokens of the group absent from ``group_logprobs`` (outside a top-k) get probability 0 and are
    listed in ``missing``; the reading is exact only when none is missing.
    """
    seen = {tok: lp for tok, lp in group_logprobs.items() if tok in GROUP_TOKENS[group]}
    mass = math.fsum(math.exp(lp) for lp in seen.values())
    probs = {tok: (math.exp(seen[tok]) / mass if tok in seen and mass > 0 else 0.0) for tok in GROUP_TOKENS[group]}
    missing = tuple(tok for tok in GROUP_TOKENS[group] if tok not in seen)
    return GroupReading(group, token, index, probs, mass, exact=not missing, missing=missing)


def reading_at(index: int, token: str, logprobs: Mapping[str, float]) -> GroupReading | None:
    """The reading at a generated token if it is a reflection token, else None.

    ``logprobs`` maps token strings to the log-probabilities the backend has at that position (the
    whole vocabulary's reflection tokens, or a top-k); only the token's group is read from it.
    """
    group = TOKEN_GROUP.get(token)
    if group is None:
        return None
    return group_reading(group, token, index, {tok: logprobs[tok] for tok in GROUP_TOKENS[group] if tok in logprobs})


def stats_of(generation: Generation) -> GenerationStats | None:
    """The :class:`GenerationStats` a Self-RAG backend attached to a generation, if any."""
    info = (generation.generation_info or {}).get(INFO_KEY)
    if info is None:
        return None
    return info if isinstance(info, GenerationStats) else GenerationStats.from_dict(info)


@dataclass(frozen=True)
class ContinuationRequest:
    """A prompt and the fixed continuations whose log-likelihood a judge needs (labels, tokens)."""

    prompt: str
    continuations: tuple[str, ...]
    chat: bool = True
    """Wrap the prompt in the backend's chat template when it uses one; False scores the raw text
    (how likely the text itself is, as a language model reads it)."""

    def __post_init__(self) -> None:
        if not self.continuations:
            msg = "a ContinuationRequest needs at least one continuation"
            raise ValueError(msg)


@runtime_checkable
class ReflectiveLLM(Protocol):
    """What the reflectors need from a backend beyond LangChain's ``BaseLLM``."""

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        """Total log-probability of each continuation given its prompt, one list per request.

        Backends share work across requests and continuations (a prompt is read once, continuations
        are scored as a batch); callers pass everything they need in one call.
        """
        ...

    def has_tokens(self, strings: Sequence[str]) -> bool:
        """Whether each string is a single token of the vocabulary (the reflection tokens)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` in the model's vocabulary."""
        ...

    @property
    def context_window(self) -> int | None:
        """Maximum number of tokens of prompt plus generation, if known."""
        ...


class RecentTokens:
    """Token ids of the texts a backend tokenized lately, so a text is tokenized once however often it is
    counted or scored (a passage is counted to fit the window, judges score the same labels for every
    branch). Bounded: when full it starts again."""

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        self._ids: dict[str, list[int]] = {}

    def get(self, text: str, encode: Callable[[str], list[int]]) -> list[int]:
        ids = self._ids.get(text)
        if ids is None:
            ids = list(encode(text))
            if len(self._ids) >= self.limit:
                self._ids.clear()
            self._ids[text] = ids
        return ids


def tokenizer_control_tokens(tokenizer: Any) -> tuple[str, ...]:
    """The strings a Hugging Face tokenizer turns into one id whatever surrounds them: its special tokens
    and every added token that is not only whitespace or a plain word (what the chat template and the
    reflection tokens are made of). :mod:`selfrag_langchain.text.boundary` removes them from untrusted text."""
    added = [t.content for t in getattr(tokenizer, "added_tokens_decoder", {}).values()]
    found = {*getattr(tokenizer, "all_special_tokens", ()), *added}
    return tuple(sorted(t for t in found if t.strip() and not t.strip().isalnum()))


def require_at_least(settings: Any, minimum: int, *names: str) -> None:
    """Refuse the first of a backend's ``names`` set below ``minimum``, in one line that names it."""
    for name in names:
        value = getattr(settings, name)
        if value < minimum:
            msg = f"{name} must be >= {minimum}, got {value}"
            raise ConfigurationError(msg)
