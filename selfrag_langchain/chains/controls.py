"""The control-loop knobs and retrieval fallbacks that every Self-RAG Runnable shares.

:class:`SelfRAGControls` is a pydantic mixin: ``SelfRAG`` (short form) and ``SelfRAGLongForm`` inherit its
fields, validators and helpers, so a knob means the same in both and ``configurable_fields`` exposes it
in both.
"""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.documents import Document
from langchain_core.language_models import BaseLanguageModel
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator, model_validator

from selfrag_langchain.boundary import Boundary, boundary_for
from selfrag_langchain.chains.inputs import Question
from selfrag_langchain.chains.windows import PassageWindow
from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.judging import InlineReflector, Reflector
from selfrag_langchain.results import RetrieveDecision
from selfrag_langchain.scoring import (
    HardConstraints,
    RetrieveMode,
    ScoringWeights,
    retrieve_probability,
    should_retrieve,
)


def at_least_one(value: int, info: ValidationInfo) -> int:
    """Field validator: a count that must be 1 or more."""
    if value < 1:
        msg = f"{info.field_name} must be >= 1, got {value}"
        raise ConfigurationError(msg)
    return value


MAX_K = 20
"""The most passages a question may take: each is a branch, generated and judged; beyond this a question
runs for minutes on a CPU (``--k 1000`` never answered) and the paper uses 5."""


def branch_count(value: int, info: ValidationInfo) -> int:
    """Field validator: ``k``, 1 to :data:`MAX_K`."""
    at_least_one(value, info)
    if value > MAX_K:
        msg = f"{info.field_name} must be at most {MAX_K} (each passage is a branch, generated and judged), got {value}"
        raise ConfigurationError(msg)
    return value


def in_unit_interval(value: float, info: ValidationInfo) -> float:
    """Field validator: a probability threshold, within [0, 1]."""
    if not 0.0 <= value <= 1.0:
        msg = f"{info.field_name} must be in [0, 1], got {value}"
        raise ConfigurationError(msg)
    return value


class SelfRAGControls(BaseModel):
    """The three roles (generator, judge, retriever) and the knobs of the paper's control loop."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    generator: BaseLanguageModel
    """Writes the answer: a Self-RAG model (inline judging) or any LLM or chat model."""
    reflector: Reflector
    """Judges Retrieve, IsRel, IsSup and IsUse: :class:`InlineReflector` or :class:`CriticReflector`."""
    retriever: BaseRetriever | None = None
    """Any LangChain retriever; passages given with a question are used instead."""
    mode: RetrieveMode = RetrieveMode.ADAPTIVE
    """``adaptive`` (threshold on p(Retrieve)), ``hard`` (the judge's choice), ``always`` or ``never``."""
    threshold: float = 0.2
    """Adaptive mode retrieves when p([Retrieval]) / (p([Retrieval]) + p([No Retrieval])) > threshold."""
    k: int = 5
    """Passages retrieved, one branch each."""
    w_rel: float = 1.0
    """Weight of the IsRel score in a branch's score, 0 to 10 (``scoring.WEIGHT_RANGE``)."""
    w_sup: float = 1.0
    """Weight of the IsSup score, 0 to 10."""
    w_use: float = 0.5
    """Weight of the IsUse score, 0 to 10."""
    use_sequence_probability: bool = True
    """Add exp(mean token log-probability) of a branch to its score, as the reference code does."""
    drop_unsupported: bool = False
    """Hard constraint: drop a branch judged ``[No support / Contradictory]``."""
    drop_irrelevant: bool = False
    """Hard constraint: drop a branch judged ``[Irrelevant]``."""
    decline: bool = True
    """When the answer was written from retrieved passages and none of its claims is judged relevant and
    supported, say that the sources found do not answer the question and list the closest passages,
    instead of a cited claim (``chains/declining.py``). Closed-set questions always get an option."""
    max_new_tokens: int = 60
    """Token budget of the answer."""
    max_passage_tokens: int | None = None
    """Cut passages to this many tokens (they are always cut to fit the generator's context window)."""
    passage_window: PassageWindow | None = None
    """Give the generator (and the judge) each passage's title and its sentences nearest the query instead of,
    or with ``keep_whole`` beside, the whole passage (:class:`~selfrag_langchain.chains.windows.PassageWindow`);
    None: whole passages, as the paper does."""
    prompt_format: Literal["auto", "selfrag", "rag"] = "auto"
    """``selfrag``: the released generator's format with reflection tokens; ``rag``: a plain prompt for
    instruct models; ``auto``: ``selfrag`` with the inline reflector, else ``rag``."""

    _threshold = field_validator("threshold")(in_unit_interval)
    _positive = field_validator("max_new_tokens")(at_least_one)
    _branches = field_validator("k")(branch_count)

    @model_validator(mode="after")
    def _weights_in_range(self) -> SelfRAGControls:
        self.weights()  # raises ConfigurationError for a weight outside scoring.WEIGHT_RANGE
        return self

    # ------------------------------------------------------------------ settings

    def weights(self) -> ScoringWeights:
        return ScoringWeights(self.w_rel, self.w_sup, self.w_use, self.use_sequence_probability)

    def constraints(self) -> HardConstraints:
        return HardConstraints(drop_unsupported=self.drop_unsupported, drop_irrelevant=self.drop_irrelevant)

    def windowed(self, query: str, docs: list[Document]) -> list[Document]:
        """The first ``k`` passages, as the :attr:`passage_window` gives them (their windows, or the passages and
        then their windows) when it is set."""
        docs = docs[: self.k]
        return self.passage_window.views(query, docs) if self.passage_window is not None else docs

    def check_budget(self, needed: int, setting: str) -> None:
        """Refuse a generation budget (``needed`` tokens, from ``setting``) that the generator's context window
        cannot hold beside a prompt: a run that would only fail, or write nothing, after minutes."""
        window = getattr(self.generator, "context_window", None)
        if isinstance(window, int) and needed >= window // 2:
            msg = (f"{setting} leaves too little of the generator's {window}-token context window for the "
                   f"question and passage: keep it under {window // 2} tokens")
            raise ConfigurationError(msg)

    def boundary(self) -> Boundary:
        """Where the question and passages are neutralised for the models that read this Runnable's
        prompts, the generator and the judge (:mod:`selfrag_langchain.boundary`)."""
        return boundary_for(self.generator, self.reflector)

    def resolved_prompt_format(self) -> str:
        if self.prompt_format != "auto":
            return self.prompt_format
        return "selfrag" if isinstance(self.reflector, InlineReflector) else "rag"

    def settings(self) -> dict[str, Any]:
        """The knobs of this run, recorded in each result."""
        return {
            "mode": str(self.mode),
            "threshold": self.threshold,
            "k": self.k,
            "window_sentences": self.passage_window.sentences if self.passage_window is not None else 0,
            "keep_whole": self.passage_window.keep_whole if self.passage_window is not None else False,
            "w_rel": self.w_rel,
            "w_sup": self.w_sup,
            "w_use": self.w_use,
            "use_sequence_probability": self.use_sequence_probability,
            "drop_unsupported": self.drop_unsupported,
            "drop_irrelevant": self.drop_irrelevant,
            "decline": self.decline,
            "max_new_tokens": self.max_new_tokens,
            "max_passage_tokens": self.max_passage_tokens,
            "prompt_format": self.resolved_prompt_format(),
            "reflector": self.reflector.name,
        }

    # ------------------------------------------------------------------ the retrieve decision

    def _needs_judge(self) -> bool:
        return self.mode in (RetrieveMode.ADAPTIVE, RetrieveMode.HARD)

    def _decision(self, dist: dict[str, float] | None) -> RetrieveDecision:
        return RetrieveDecision(
            mode=str(self.mode),
            threshold=self.threshold,
            retrieve=should_retrieve(self.mode, dist, self.threshold),
            probability=retrieve_probability(dist) if dist is not None else None,
            distribution=dist,
        )

    # ------------------------------------------------------------------ retrieval with fallbacks

    def _passages_or_fallback(self, docs: list[Document] | None, error: Exception | None, notes: list[str]
                              ) -> list[Document] | None:
        if error is not None:
            notes.append(f"retriever failed ({type(error).__name__}: {error}): answered without retrieval")
            return None
        usable = [d for d in docs or [] if d.page_content.strip()]
        if docs and len(usable) < len(docs):
            notes.append(f"skipped {len(docs) - len(usable)} passage(s) without text")
        if not usable:
            notes.append("retrieval returned no passages: answered without retrieval")
            return None
        return usable

    def _without_retriever(self, q: Question, notes: list[str]) -> list[Document] | None:
        """Passages given with the question, or none (with a note) when no retriever is configured."""
        if q.passages is not None:
            return self._passages_or_fallback(q.passages, None, notes)
        notes.append("no retriever configured and no passages given: answered without retrieval")
        return None

    def _retrieve(self, q: Question, query: str, config: RunnableConfig, notes: list[str]) -> list[Document] | None:
        if q.passages is not None or self.retriever is None:
            return self._without_retriever(q, notes)
        try:
            docs = self.retriever.invoke(query, config)
        except Exception as e:  # a failing store must not lose the answer
            return self._passages_or_fallback(None, e, notes)
        return self._passages_or_fallback(docs, None, notes)

    async def _aretrieve(
        self, q: Question, query: str, config: RunnableConfig, notes: list[str]
    ) -> list[Document] | None:
        if q.passages is not None or self.retriever is None:
            return self._without_retriever(q, notes)
        try:
            docs = await self.retriever.ainvoke(query, config)
        except Exception as e:  # a failing store must not lose the answer
            return self._passages_or_fallback(None, e, notes)
        return self._passages_or_fallback(docs, None, notes)
