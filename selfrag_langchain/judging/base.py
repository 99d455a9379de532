"""What every judge of reflection is: the :class:`Reflector` interface the control loop calls, and the
branches, queries and critiques it reads and returns.

A judge gives the distributions over Retrieve, IsRel, IsSup and IsUse the paper's formulas consume
(:mod:`selfrag_langchain.scoring`), whether it reads them from a Self-RAG model's own tokens
(:class:`~selfrag_langchain.judging.inline.InlineReflector`), asks a critic model
(:class:`~selfrag_langchain.judging.critic.CriticReflector`), or computes them from calibrated signals or a
trained encoder (:class:`~selfrag_langchain.judging.calibrated.CalibratedReflector`,
:class:`~selfrag_langchain.judging.learned.LearnedReflector`).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.documents import Document

from selfrag_langchain.llms.base import GenerationStats, GroupReading
from selfrag_langchain.tokens import Group, ParsedGeneration


@dataclass
class Branch:
    """One generated continuation: the passage it was conditioned on (None: no retrieval) and its output."""

    passage: Document | None
    evidence: str | None
    """The passage text the models read (escaped, possibly truncated); None without a passage."""
    raw: str
    """The generation as decoded, reflection tokens kept."""
    answer: str
    """The generation as a person reads it, reflection tokens and passages removed."""
    parsed: ParsedGeneration
    stats: GenerationStats | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CriticQuery:
    """One question to a critic about one group, with the fields its prompt shows (critic evaluation and
    training-data creation ask single groups rather than whole branches)."""

    group: Group
    instruction: str
    evidence: str | None = None
    output: str | None = None
    preceding: str | None = None


@dataclass
class Critique:
    """A judge's distributions for one branch; a group it could not judge is None, with a note why."""

    relevance: dict[str, float] | None = None
    support: dict[str, float] | None = None
    utility: dict[str, float] | None = None
    notes: list[str] = field(default_factory=list)

    def distributions(self) -> dict[str, dict[str, float] | None]:
        """Keyed by group name, as the trace reports them."""
        return {str(Group.ISREL): self.relevance, str(Group.ISSUP): self.support, str(Group.ISUSE): self.utility}


class Reflector(ABC):
    """A judge of reflection, as the control loop sees it."""

    name: str

    @abstractmethod
    def retrieve_distribution(self, instruction: str, *, preceding: str | None = None) -> dict[str, float] | None:
        """The Retrieve distribution for the question (and the answer so far, ``preceding``, as the generator
        wrote it: long form asks before each segment), or None if this judge cannot tell."""

    @abstractmethod
    def critique(self, instruction: str, branches: Sequence[Branch], *, preceding: str | None = None
                 ) -> list[Critique]:
        """IsRel, IsSup and IsUse distributions for each branch (a segment that follows ``preceding``)."""

    @abstractmethod
    def relevance_distributions(self, instruction: str, evidence: Sequence[str]) -> list[dict[str, float]]:
        """The IsRel distribution of each passage for the question alone, before any answer is written
        (the paper's IsRel judges x and d only): what a relevance filter in front of a retriever needs.
        ``evidence`` holds the passages as the models read them
        (:func:`~selfrag_langchain.prompts.format_passage`)."""

    @abstractmethod
    def judge(self, queries: Sequence[CriticQuery]) -> list[dict[str, float]]:
        """The distribution over each query's group, read as :meth:`critique` reads it: one question about one
        group at a time, as critic evaluation (``selfrag train critic-eval``) and Algorithm 3's generator
        data (``selfrag train generator-data``) ask."""

    def check_generator(self, generator: Any) -> None:  # noqa: B027 - optional hook
        """Raise :class:`ModelLoadError` if this judge cannot work with ``generator``."""

    async def arelevance_distributions(self, instruction: str, evidence: Sequence[str]) -> list[dict[str, float]]:
        return await asyncio.to_thread(self.relevance_distributions, instruction, evidence)

    async def aretrieve_distribution(self, instruction: str, *, preceding: str | None = None
                                     ) -> dict[str, float] | None:
        return await asyncio.to_thread(self.retrieve_distribution, instruction, preceding=preceding)

    async def acritique(self, instruction: str, branches: Sequence[Branch], *, preceding: str | None = None
                        ) -> list[Critique]:
        return await asyncio.to_thread(self.critique, instruction, branches, preceding=preceding)

    async def ajudge(self, queries: Sequence[CriticQuery]) -> list[dict[str, float]]:
        return await asyncio.to_thread(self.judge, queries)


def top_k_note(reading: GroupReading) -> str:
    """The trace note for a reading whose group tokens fell outside a backend's top-k."""
    return f"{reading.group}: {', '.join(reading.missing)} outside the backend's top-k, taken as 0"
