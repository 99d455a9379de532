"""The short-form Self-RAG Runnable: decide, retrieve, generate K branches, critique, select, cite."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.documents import Document
from langchain_core.language_models import BaseLanguageModel
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig, RunnableLambda, RunnableSerializable
from langchain_core.runnables.config import patch_config
from pydantic import ConfigDict, Field, field_validator, model_validator

from selfrag_langchain.chains.branches import (
    PreparedPassage,
    branch_prompts,
    generation_inputs,
    generation_kwargs,
    prepare_passages,
    to_branches,
)
from selfrag_langchain.chains.inputs import Question, to_question
from selfrag_langchain.chains.selection import Selection, select
from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.prompts import build_instruction
from selfrag_langchain.reflection import Branch, Critique, InlineReflector, Reflector
from selfrag_langchain.results import RetrieveDecision, SelfRAGResult
from selfrag_langchain.scoring import (
    HardConstraints,
    RetrieveMode,
    ScoringWeights,
    retrieve_probability,
    should_retrieve,
)

STAGES = ("retrieve_decision", "retrieve", "generate_branches", "critique", "select")
"""Names of the child runs one question goes through, as callbacks and ``astream_events`` see them."""


class SelfRAG(RunnableSerializable[Any, SelfRAGResult]):
    """Short-form Self-RAG (Asai et al., 2023) over any LangChain LLM, judge and retriever.

    One question goes through five stages, each a child run that callbacks and ``astream_events``
    report: the retrieve decision (``mode``, ``threshold``), retrieval of ``k`` passages, one batched
    generation of a branch per passage, critique of every branch (IsRel, IsSup, IsUse), and selection
    by the paper's weighted score with optional hard constraints. The result carries the answer, the
    cited passage, and the trace of every branch.

    Setup:
        .. code-block:: python

            from selfrag_langchain import SelfRAG
            from selfrag_langchain.llms import TransformersLLM
            from selfrag_langchain.reflection import CriticReflector
            from selfrag_langchain.store import default_retriever

            llm = TransformersLLM()  # SmolLM2-135M-Instruct, as generator and zero-shot critic
            rag = SelfRAG(generator=llm, reflector=CriticReflector(llm), retriever=default_retriever())

    Invoke:
        .. code-block:: python

            result = rag.invoke("Who painted the Mona Lisa?")
            result.answer          # 'Leonardo da Vinci painted the Mona Lisa.'
            result.citations[0]    # Document(metadata={'title': 'Mona Lisa', 'citation': 1, ...})
            result.model_dump_json()  # the whole trace

    Knobs at run time:
        .. code-block:: python

            from langchain_core.runnables import ConfigurableField

            tunable = rag.configurable_fields(threshold=ConfigurableField(id="threshold"))
            tunable.with_config(configurable={"threshold": 0.6}).invoke("...")

    In a chain:
        .. code-block:: python

            chain = prompt | rag | (lambda r: r.answer) | StrOutputParser()
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    generator: BaseLanguageModel
    """Writes the answer branches: a Self-RAG model (inline judging) or any LLM or chat model."""
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
    w_sup: float = 1.0
    w_use: float = 0.5
    use_sequence_probability: bool = True
    """Add exp(mean token log-probability) of a branch to its score, as the reference code does."""
    drop_unsupported: bool = False
    """Hard constraint: drop a branch judged ``[No support / Contradictory]``."""
    drop_irrelevant: bool = False
    """Hard constraint: drop a branch judged ``[Irrelevant]``."""
    max_new_tokens: int = 100
    max_passage_tokens: int | None = None
    """Cut passages to this many tokens (they are always cut to fit the generator's context window)."""
    prompt_format: Literal["auto", "selfrag", "rag"] = "auto"
    """``selfrag``: the released generator's format with reflection tokens; ``rag``: a plain prompt for
    instruct models; ``auto``: ``selfrag`` with the inline reflector, else ``rag``."""
    name: str | None = Field(default="SelfRAG")

    @field_validator("threshold")
    @classmethod
    def _threshold_in_unit_interval(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            msg = f"threshold must be in [0, 1], got {value}"
            raise ConfigurationError(msg)
        return value

    @field_validator("k", "max_new_tokens")
    @classmethod
    def _positive(cls, value: int, info: Any) -> int:
        if value < 1:
            msg = f"{info.field_name} must be >= 1, got {value}"
            raise ConfigurationError(msg)
        return value

    @model_validator(mode="after")
    def _weights_are_finite(self) -> SelfRAG:
        self.weights()  # raises ConfigurationError for a non-finite weight
        return self

    # ------------------------------------------------------------------ settings

    def weights(self) -> ScoringWeights:
        return ScoringWeights(self.w_rel, self.w_sup, self.w_use, self.use_sequence_probability)

    def constraints(self) -> HardConstraints:
        return HardConstraints(drop_unsupported=self.drop_unsupported, drop_irrelevant=self.drop_irrelevant)

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
            "w_rel": self.w_rel,
            "w_sup": self.w_sup,
            "w_use": self.w_use,
            "use_sequence_probability": self.use_sequence_probability,
            "drop_unsupported": self.drop_unsupported,
            "drop_irrelevant": self.drop_irrelevant,
            "max_new_tokens": self.max_new_tokens,
            "max_passage_tokens": self.max_passage_tokens,
            "prompt_format": self.resolved_prompt_format(),
            "reflector": self.reflector.name,
        }

    # ------------------------------------------------------------------ pure steps shared by sync and async

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

    def _prepare(self, q: Question, docs: list[Document]) -> list[PreparedPassage]:
        return prepare_passages(
            docs[: self.k],
            self.generator,
            instruction=build_instruction(q.question, q.instruction, q.choices),
            max_new_tokens=self.max_new_tokens,
            max_tokens=self.max_passage_tokens,
        )

    def _result(
        self, q: Question, decision: RetrieveDecision, passages: list[PreparedPassage] | None,
        selection: Selection, notes: list[str],
    ) -> SelfRAGResult:
        chosen = selection.traces[selection.selected] if selection.selected is not None else None
        citations = []
        if chosen is not None and chosen.passage is not None:
            citations.append(Document(page_content=chosen.passage.page_content,
                                      metadata={**chosen.passage.metadata, "citation": 1}))
        answer = selection.option or (chosen.answer if chosen is not None else "")
        return SelfRAGResult(
            question=q.question,
            answer=answer,
            retrieved=passages is not None,
            retrieve_decision=decision,
            citations=citations,
            selected=selection.selected,
            option_scores=selection.option_scores,
            branches=selection.traces,
            reflector=self.reflector.name,
            notes=[*notes, *selection.notes],
            settings=self.settings(),
        )

    def _select(self, q: Question, branches: list[Branch], critiques: list[Critique]) -> Selection:
        return select(branches, critiques, weights=self.weights(), constraints=self.constraints(),
                      choices=q.choices or None)

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

    # ------------------------------------------------------------------ sync

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> SelfRAGResult:
        return self._call_with_config(self._invoke, input, config, **kwargs)

    def _invoke(self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig) -> SelfRAGResult:
        q = to_question(input)
        self.reflector.check_generator(self.generator)
        instruction = build_instruction(q.question, q.instruction, q.choices)
        child = patch_config(config, callbacks=run_manager.get_child())
        notes: list[str] = []

        def decide(_: Any) -> RetrieveDecision:
            dist = self.reflector.retrieve_distribution(instruction) if self._needs_judge() else None
            return self._decision(dist)

        decision = RunnableLambda(decide, name="retrieve_decision").invoke(q.question, child)
        passages: list[PreparedPassage] | None = None
        if decision.retrieve:
            docs = RunnableLambda(lambda query: self._retrieve(q, query, child, notes),
                                  name="retrieve").invoke(q.question, child)
            if docs is not None:
                passages = self._prepare(q, docs)

        def generate(prompts: list[str]) -> list[Branch]:
            result = self.generator.generate(
                generation_inputs(self.generator, prompts), callbacks=run_manager.get_child(),
                **generation_kwargs(self.generator, self.max_new_tokens),
            )
            return to_branches(result, passages)

        prompts = branch_prompts(instruction, passages, self.resolved_prompt_format())
        branches = RunnableLambda(generate, name="generate_branches").invoke(prompts, child)
        critiques = RunnableLambda(lambda b: self.reflector.critique(instruction, b), name="critique").invoke(
            branches, child)
        selection = RunnableLambda(lambda c: self._select(q, branches, c), name="select").invoke(critiques, child)
        return self._result(q, decision, passages, selection, notes)

    def _retrieve(self, q: Question, query: str, config: RunnableConfig, notes: list[str]) -> list[Document] | None:
        if q.passages is not None or self.retriever is None:
            return self._without_retriever(q, notes)
        try:
            docs = self.retriever.invoke(query, config)
        except Exception as e:  # a failing store must not lose the answer
            return self._passages_or_fallback(None, e, notes)
        return self._passages_or_fallback(docs, None, notes)

    # ------------------------------------------------------------------ async

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> SelfRAGResult:
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)

    async def _ainvoke(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> SelfRAGResult:
        q = to_question(input)
        self.reflector.check_generator(self.generator)
        instruction = build_instruction(q.question, q.instruction, q.choices)
        child = patch_config(config, callbacks=run_manager.get_child())
        notes: list[str] = []

        async def decide(_: Any) -> RetrieveDecision:
            dist = await self.reflector.aretrieve_distribution(instruction) if self._needs_judge() else None
            return self._decision(dist)

        decision = await RunnableLambda(decide, name="retrieve_decision").ainvoke(q.question, child)
        passages: list[PreparedPassage] | None = None
        if decision.retrieve:
            async def retrieve(query: str) -> list[Document] | None:
                return await self._aretrieve(q, query, child, notes)

            docs = await RunnableLambda(retrieve, name="retrieve").ainvoke(q.question, child)
            if docs is not None:
                passages = self._prepare(q, docs)

        async def generate(prompts: list[str]) -> list[Branch]:
            result = await self.generator.agenerate(
                generation_inputs(self.generator, prompts), callbacks=run_manager.get_child(),
                **generation_kwargs(self.generator, self.max_new_tokens),
            )
            return to_branches(result, passages)

        async def critique(branches: list[Branch]) -> list[Critique]:
            return await self.reflector.acritique(instruction, branches)

        prompts = branch_prompts(instruction, passages, self.resolved_prompt_format())
        branches = await RunnableLambda(generate, name="generate_branches").ainvoke(prompts, child)
        critiques = await RunnableLambda(critique, name="critique").ainvoke(branches, child)
        selection = await RunnableLambda(lambda c: self._select(q, branches, c), name="select").ainvoke(
            critiques, child)
        return self._result(q, decision, passages, selection, notes)

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
