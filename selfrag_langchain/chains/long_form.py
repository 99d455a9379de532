"""The long-form Self-RAG Runnable: segment-level beam search with per-segment retrieval and citations."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.callbacks.manager import adispatch_custom_event, dispatch_custom_event
from langchain_core.documents import Document
from langchain_core.outputs import LLMResult
from langchain_core.runnables import RunnableConfig, RunnableLambda, RunnableSerializable
from pydantic import Field, PrivateAttr

from selfrag_langchain.chains.beam import (
    BeamSearch,
    CritiqueBatches,
    Decide,
    Effect,
    Final,
    Generate,
    JudgeRelevance,
    QuoteSegments,
    ReadHolding,
    ReadProspects,
    Report,
    Retrieve,
)
from selfrag_langchain.chains.branches import generation_inputs, generation_kwargs
from selfrag_langchain.chains.controls import BeamSettings, SelfRAGControls
from selfrag_langchain.chains.inputs import Question, to_question
from selfrag_langchain.chains.prospects import Prospects
from selfrag_langchain.chains.quotes import Quote, QuoteRequest
from selfrag_langchain.chains.search_config import SearchConfig
from selfrag_langchain.chains.segments import raw_continuation
from selfrag_langchain.chains.streaming import ItemStreaming
from selfrag_langchain.judging import Critique, InlineReflector
from selfrag_langchain.results import CitedSegment, LongFormResult

STAGES = ("retrieve_decision", "retrieve", "generate_segments", "critique")
"""Names of the child runs of each depth, as callbacks and ``astream_events`` see them (with a quoter, a
``quote`` run between ``generate_segments`` and ``critique``: each candidate is scored as its quote; with a
quoter that reads sentences, a ``prospects`` run before ``generate_segments``: what each candidate could score,
read to leave unwritten those that could not be kept)."""

EVENTS = ("selfrag_retrieve_decision", "selfrag_retrieval", "selfrag_beams", "selfrag_segment")
"""Custom events the search dispatches (``on_custom_event``), in the order of one depth."""


class SelfRAGLongForm(ItemStreaming, RunnableSerializable[Any, LongFormResult], SelfRAGControls, BeamSettings):
    """Long-form Self-RAG (Asai et al., 2023, §3.3): an answer written segment by segment, each segment
    retrieved for, judged and cited on its own.

    A segment is one sentence of a plain instruct generator, or what a Self-RAG generator writes up to its
    next reflection token. At each depth every beam decides whether to retrieve (``mode``, ``threshold``;
    the judge is asked with the answer so far), retrieves ``k`` passages for the question and its previous
    segment, keeps its passage on ``[Continue to Use Evidence]``, and writes one candidate per passage; the
    candidates of all beams are generated in one call, critiqued (IsRel, IsSup, IsUse), scored with the
    paper's formula (hard constraints drop candidates), and the ``beam_width`` beams with the best sequence
    score (the sum of their segment scores) go on, up to ``max_depth`` segments. Each segment cites the
    passage it was written from.

    Setup:
        .. code-block:: python

            from selfrag_langchain import CalibratedReflector, TransformersLLM
            from selfrag_langchain.chains.long_form import SelfRAGLongForm
            from selfrag_langchain.corpus.answering import default_retriever

            llm = TransformersLLM()
            rag = SelfRAGLongForm(generator=llm, reflector=CalibratedReflector(), retriever=default_retriever(k=2),
                                  k=2, beam_width=2, max_depth=3)

    Invoke:
        .. code-block:: python

            result = rag.invoke("What is a volcano?")
            result.answer        # 'A volcano is a rupture in the crust of a planet [1]. Lava ... [2].'
            result.citations     # [Document(metadata={'title': 'Volcano', 'citation': 1}), ...]
            result.retrievals    # 2: one per segment that asked for evidence
            result.steps[1].query  # 'What is a volcano? A volcano is a rupture ...'

    Stream (segments as soon as every surviving beam shares them, then the result):
        .. code-block:: python

            for item in rag.stream("What is a volcano?"):
                if isinstance(item, CitedSegment):
                    print(item.marked(), end=" ", flush=True)
                else:
                    result = item  # the LongFormResult, last

    Events: ``astream_events(..., version="v2")`` reports the child runs of every depth
    (``retrieve_decision``, ``retrieve``, ``generate_segments``, ``critique``) and the custom events
    ``selfrag_retrieve_decision``, ``selfrag_retrieval``, ``selfrag_beams`` and ``selfrag_segment``.
    """

    stop_at_segment_end: bool = True
    """Stop generating a plain-prompt segment once its sentence has ended, on backends that can
    (``stops_at_sentence_end``); False generates the whole ``max_segment_tokens`` and keeps the first
    sentence. Either way a segment's sequence term covers only the tokens of the text it keeps."""
    name: str | None = Field(default="SelfRAGLongForm")

    _raw: Any = PrivateAttr(default=None)

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "beam_width": self.beam_width, "max_depth": self.max_depth,
                "max_segment_tokens": self.max_segment_tokens, "answer_first": self.answer_first,
                "beam_score": self.beam_score, "later_k": self.later_k,
                "stop_at_segment_end": self.stop_at_segment_end}

    def search_config(self) -> SearchConfig:
        """The settings a search reads, as plain values (made once per question)."""
        prompt_format = "selfrag" if self.resolved_prompt_format() == "selfrag" else "rag"
        return SearchConfig(
            max_depth=self.max_depth, beam_width=self.beam_width, beam_score=self.beam_score,
            answer_first=self.answer_first, retrieval_order_margin=self.retrieval_order_margin,
            max_new_tokens=self.max_new_tokens, max_segment_tokens=self.max_segment_tokens,
            later_k=self.later_k, max_passage_tokens=self.max_passage_tokens,
            stop_at_segment_end=self.stop_at_segment_end,
            prompt_format=prompt_format,
            raw_continuation=prompt_format == "rag" and self._raw_generator() is not None,
            inline=isinstance(self.reflector, InlineReflector), judges_retrieval=self.judges_retrieval(),
            quoting=self.quoter is not None, decline=self.decline, min_name_coverage=self.min_name_coverage,
            min_quote_answering=self.min_quote_answering, min_quote_holds_answer=self.min_quote_holds_answer,
            bounds_holding=self.bounds_holding(),
            writing_margin=self.writing_margin if self.quoter is not None and self.quoter.reader is not None else None,
            weights=self.weights(), constraints=self.constraints(),
            boundary=self.boundary(), reflector=self.reflector.name, settings=self.settings())

    # ------------------------------------------------------------------ shared by every driver

    def _search(self, input: Any) -> BeamSearch:
        q = (input if isinstance(input, Question) else to_question(input)).neutralised(self.boundary())
        self.reflector.check_generator(self.generator)
        # The answer so far (up to max_new_tokens) is in the prompt of its next segment.
        self.check_budget(self.max_new_tokens + self.max_segment_tokens,
                          f"max_new_tokens + max_segment_tokens ({self.max_new_tokens} + {self.max_segment_tokens})")
        return BeamSearch(q, self.search_config(), self.generator, self)

    def _raw_generator(self) -> Any:
        """The generator reading raw text, to continue its own reply (made once, shares the loaded model)."""
        if self._raw is None:
            made = raw_continuation(self.generator)
            self._raw = made if made is not None else False
        return self._raw if self._raw is not False else None

    def _generate_call(self, effect: Generate) -> tuple[Any, list[Any], dict[str, Any]]:
        generator = self._raw_generator() if effect.raw else self.generator
        kwargs = generation_kwargs(generator, effect.max_tokens)
        if effect.stop:
            kwargs["stop"] = effect.stop
        if effect.sentence_end and getattr(generator, "stops_at_sentence_end", False):
            kwargs["stop_at_sentence_end"] = True
        return generator, generation_inputs(generator, effect.prompts), kwargs

    # ------------------------------------------------------------------ sync

    def _execute(self, search: BeamSearch, effect: Effect, config: RunnableConfig,
                 run_manager: CallbackManagerForChainRun) -> Any:
        if isinstance(effect, Report):
            dispatch_custom_event(effect.name, effect.data, config=config)
            return None
        if isinstance(effect, Decide):
            def decide(preceding: list[str | None]) -> list[dict[str, float] | None]:
                return [self.reflector.retrieve_distribution(search.instruction, preceding=p) for p in preceding]

            return RunnableLambda(decide, name=effect.run_name).invoke(effect.preceding, config)
        if isinstance(effect, Retrieve):
            def retrieve(queries: list[str], config: RunnableConfig) -> list[tuple[list[Document] | None, list[str]]]:
                replies = []
                for query in queries:
                    notes: list[str] = []
                    replies.append((self._retrieve(search.q, query, config, notes), notes))
                return replies

            return RunnableLambda(retrieve, name=effect.run_name).invoke(effect.queries, config)
        if isinstance(effect, Generate):
            def generate(prompts: list[str], config: RunnableConfig) -> LLMResult:
                generator, inputs, kwargs = self._generate_call(effect)
                return generator.generate(inputs, callbacks=config.get("callbacks"), **kwargs)

            return RunnableLambda(generate, name=effect.run_name).invoke(effect.prompts, config)
        if isinstance(effect, CritiqueBatches):
            def judge(batches: list[Any]) -> list[list[Critique]]:
                return [self.reflector.critique(search.instruction, branches, preceding=preceding)
                        for preceding, branches in batches]

            return RunnableLambda(judge, name=effect.run_name).invoke(effect.batches, config)
        if isinstance(effect, JudgeRelevance):
            def relevance(evidence: list[str]) -> list[dict[str, float]]:
                return self.reflector.relevance_distributions(search.instruction, evidence)

            return RunnableLambda(relevance, name=effect.run_name).invoke(effect.evidence, config)
        if isinstance(effect, QuoteSegments):
            def quote(request: QuoteRequest) -> list[Quote | None]:
                return self.quotes_for(search.q.question, request)

            return RunnableLambda(quote, name=effect.run_name).invoke(effect.request, config)
        if isinstance(effect, ReadProspects):
            def read(asked: ReadProspects) -> Prospects:
                return self.read_prospects(search.instruction, search.q.question, asked.evidence, asked.sources,
                                           asked.taken, asked.off_subject)

            return RunnableLambda(read, name=effect.run_name).invoke(effect, config)
        if isinstance(effect, ReadHolding):
            def hold(asked: ReadHolding) -> list[float | None]:
                return self.read_holding(search.q.question, asked.sources, asked.taken)

            return RunnableLambda(hold, name=effect.run_name).invoke(effect, config)
        raise TypeError(f"unknown effect {effect!r}")

    def _items(self, value: Any, config: RunnableConfig, run_manager: CallbackManagerForChainRun
               ) -> Iterator[CitedSegment | LongFormResult]:
        """Run the search: final segments as they come, the result last."""
        search = self._search(value)
        steps = search.run()
        reply: Any = None
        while True:
            try:
                effect = steps.send(reply)
            except StopIteration as done:
                yield done.value
                return
            reply = None
            if isinstance(effect, Final):
                for segment in effect.segments:
                    dispatch_custom_event("selfrag_segment", segment.model_dump(mode="json"), config=config)
                    yield segment
            else:
                reply = self._execute(search, effect, config, run_manager)

    # ------------------------------------------------------------------ async

    async def _aexecute(self, search: BeamSearch, effect: Effect, config: RunnableConfig,
                        run_manager: AsyncCallbackManagerForChainRun) -> Any:
        if isinstance(effect, Report):
            await adispatch_custom_event(effect.name, effect.data, config=config)
            return None
        if isinstance(effect, Decide):
            async def decide(preceding: list[str | None]) -> list[dict[str, float] | None]:
                return [await self.reflector.aretrieve_distribution(search.instruction, preceding=p)
                        for p in preceding]

            return await RunnableLambda(decide, name=effect.run_name).ainvoke(effect.preceding, config)
        if isinstance(effect, Retrieve):
            async def aretrieve(queries: list[str], config: RunnableConfig
                                ) -> list[tuple[list[Document] | None, list[str]]]:
                replies = []
                for query in queries:
                    notes: list[str] = []
                    replies.append((await self._aretrieve(search.q, query, config, notes), notes))
                return replies

            return await RunnableLambda(aretrieve, name=effect.run_name).ainvoke(effect.queries, config)
        if isinstance(effect, Generate):
            async def agenerate(prompts: list[str], config: RunnableConfig) -> LLMResult:
                generator, inputs, kwargs = self._generate_call(effect)
                return await generator.agenerate(inputs, callbacks=config.get("callbacks"), **kwargs)

            return await RunnableLambda(agenerate, name=effect.run_name).ainvoke(effect.prompts, config)
        if isinstance(effect, CritiqueBatches):
            async def judge(batches: list[Any]) -> list[list[Critique]]:
                return [await self.reflector.acritique(search.instruction, branches, preceding=preceding)
                        for preceding, branches in batches]

            return await RunnableLambda(judge, name=effect.run_name).ainvoke(effect.batches, config)
        if isinstance(effect, JudgeRelevance):
            async def arelevance(evidence: list[str]) -> list[dict[str, float]]:
                return await self.reflector.arelevance_distributions(search.instruction, evidence)

            return await RunnableLambda(arelevance, name=effect.run_name).ainvoke(effect.evidence, config)
        if isinstance(effect, QuoteSegments):
            async def aquote(request: QuoteRequest) -> list[Quote | None]:
                return await self.aquotes_for(search.q.question, request)

            return await RunnableLambda(aquote, name=effect.run_name).ainvoke(effect.request, config)
        if isinstance(effect, ReadProspects):
            async def aread(asked: ReadProspects) -> Prospects:
                return await self.aread_prospects(search.instruction, search.q.question, asked.evidence,
                                                  asked.sources, asked.taken, asked.off_subject)

            return await RunnableLambda(aread, name=effect.run_name).ainvoke(effect, config)
        if isinstance(effect, ReadHolding):
            async def ahold(asked: ReadHolding) -> list[float | None]:
                return await self.aread_holding(search.q.question, asked.sources, asked.taken)

            return await RunnableLambda(ahold, name=effect.run_name).ainvoke(effect, config)
        raise TypeError(f"unknown effect {effect!r}")

    async def _aitems(self, value: Any, config: RunnableConfig, run_manager: AsyncCallbackManagerForChainRun
                      ) -> AsyncIterator[CitedSegment | LongFormResult]:
        """The async twin of :meth:`_items`."""
        search = self._search(value)
        steps = search.run()
        reply: Any = None
        while True:
            try:
                effect = steps.send(reply)
            except StopIteration as done:
                yield done.value
                return
            reply = None
            if isinstance(effect, Final):
                for segment in effect.segments:
                    await adispatch_custom_event("selfrag_segment", segment.model_dump(mode="json"), config=config)
                    yield segment
            else:
                reply = await self._aexecute(search, effect, config, run_manager)
