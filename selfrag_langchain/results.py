"""What a Self-RAG run returns: the answer, its citations, and the trace of every decision.

Pydantic models, so a result serialises to JSON (``result.model_dump_json()``) and reads back
(``SelfRAGResult.model_validate_json``) with its ``Document`` citations intact.
"""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document
from pydantic import BaseModel, Field


class ScoreTerms(BaseModel):
    """Each term of the segment score ``f = p(y) + w_rel s_rel + w_sup s_sup + w_use s_use``."""

    sequence_probability: float | None
    """exp(mean token log-probability) of the generation; None when unused or unavailable."""
    relevance: float | None
    """s_rel; None when the branch has no passage or the judge gave no IsRel distribution."""
    support: float | None
    utility: float | None
    w_rel: float
    w_sup: float
    w_use: float
    total: float


class BranchTrace(BaseModel):
    """One branch: the passage it was given, what it generated, how it was judged and scored."""

    index: int
    passage: Document | None
    raw_generation: str
    answer: str
    option: str | None = None
    """For closed-set questions, the answer option this branch chose."""
    distributions: dict[str, dict[str, float] | None]
    """IsRel, IsSup and IsUse distributions keyed by the exact token strings."""
    scores: ScoreTerms
    dropped: str | None = None
    """Why a hard constraint removed this branch, if one did."""
    notes: list[str] = Field(default_factory=list)


class RetrieveDecision(BaseModel):
    """The decision whether to retrieve, and what it was based on."""

    mode: str
    threshold: float
    retrieve: bool
    probability: float | None
    """p([Retrieval]) / (p([Retrieval]) + p([No Retrieval])); None in modes that ask no judge."""
    distribution: dict[str, float] | None = None


class SelfRAGResult(BaseModel):
    """The outcome of one question."""

    question: str
    answer: str
    retrieved: bool
    retrieve_decision: RetrieveDecision
    citations: list[Document]
    """The passage(s) the chosen answer was generated from, numbered [1], [2]... in order."""
    selected: int | None
    """Index of the chosen branch in ``branches``; None if every branch was dropped."""
    option_scores: dict[str, float] | None = None
    """Closed-set questions: the summed score of the branches per option."""
    declined: bool = False
    """The chosen branch was not judged relevant and supported: ``answer`` says the sources do not answer
    the question and ``citations`` are the closest passages; ``selected`` is still the branch that lost."""
    branches: list[BranchTrace]
    reflector: str
    notes: list[str] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)

    def __str__(self) -> str:
        return self.answer

    def summary_lines(self) -> list[str]:
        """One line per branch: passage title, judgements and score, for a terminal."""
        lines = []
        for b in self.branches:
            title = (b.passage.metadata.get("title") or b.passage.page_content[:40]) if b.passage else "no passage"
            judged = ", ".join(
                f"{group} {max(dist, key=dist.__getitem__)} {max(dist.values()):.2f}"
                for group, dist in b.distributions.items()
                if dist
            )
            mark = "*" if b.index == self.selected else " "
            state = f" ({b.dropped})" if b.dropped else ""
            lines.append(f"{mark} [{b.index}] {title}: {judged or 'not judged'}; score {b.scores.total:.3f}{state}")
        return lines
