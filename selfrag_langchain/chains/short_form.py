"""The short-form Self-RAG Runnable: decide, retrieve, generate K branches, critique, select, cite."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.documents import Document
from langchain_core.outputs import LLMResult
from langchain_core.runnables import RunnableConfig, RunnableLambda, RunnableSerializable
from langchain_core.runnables.config import patch_config
from pydantic import Field

from selfrag_langchain.chains.branches import (
    PreparedPassage,
    branch_budget,
    branch_prompts,
    generation_inputs,
    generation_kwargs,
    interleaved,
    prepare_passages,
    to_branches,
)
from selfrag_langchain.chains.controls import SelfRAGControls
from selfrag_langchain.chains.declining import (
    ANSWER_UNHELD,
    answer_unheld,
    branch_subject_checks,
    declined_answer,
    declines,
    off_subject_quotes,
)
from selfrag_langchain.chains.inputs import Question, to_question
from selfrag_langchain.chains.names import moot_reasons, name_coverages
from selfrag_langchain.chains.prospects import Prospects, out_of_reach, prospects_of
from selfrag_langchain.chains.quotes import Quote, QuoteRequest
from selfrag_langchain.chains.selection import Selection, select
from selfrag_langchain.chains.typos import read_question
from selfrag_langchain.judging import Branch, Critique
from selfrag_langchain.prompts import build_instruction
from selfrag_langchain.results import RetrieveDecision, SelfRAGResult

STAGES = ("retrieve_decision", "retrieve", "generate_branches", "critique", "select")
"""Names of the child runs one question goes through, as callbacks and ``astream_events`` see them (with a
quoter, a ``quote`` run before ``select``: each branch is scored as its quote; with a quoter that reads
sentences, a ``prospects`` run before ``generate_branches``: what each branch could score, read to leave unwritten
those that could not be chosen)."""


class SelfRAG(RunnableSerializable[Any, SelfRAGResult], SelfRAGControls):
    """Short-form Self-RAG (Asai et al., 2023) over any LangChain LLM, judge and retriever.

    One question goes through five stages, each a child run that callbacks and ``astream_events``
    report: the retrieve decision (``mode``, ``threshold``), retrieval of ``k`` passages, one batched
    generation of a branch per passage, critique of every branch (IsRel, IsSup, IsUse), and selection
    by the paper's weighted score with optional hard constraints. The result carries the answer, the
    cited passage, and the trace of every branch.

    Setup:
        .. code-block:: python

            from selfrag_langchain import CalibratedReflector, SelfRAG
            from selfrag_langchain.llms import TransformersLLM
            from selfrag_langchain.corpus.answering import default_retriever

            llm = TransformersLLM()  # SmolLM2-135M-Instruct, the generator
            rag = SelfRAG(generator=llm, reflector=CalibratedReflector(), retriever=default_retriever())

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

    name: str | None = Field(default="SelfRAG")

    # ------------------------------------------------------------------ pure steps shared by sync and async

    def _prepare(self, q: Question, docs: list[Document]) -> list[PreparedPassage]:
        return prepare_passages(
            self.windowed(q.question, docs),
            self.generator,
            instruction=build_instruction(q.question, q.instruction, q.choices),
            max_new_tokens=self.max_new_tokens,
            max_tokens=self.max_passage_tokens,
            boundary=self.boundary(),
        )

    def _result(
        self, typed: Question, q: Question, decision: RetrieveDecision, passages: list[PreparedPassage] | None,
        selection: Selection, notes: list[str],
    ) -> SelfRAGResult:
        """The result of the question as ``typed``, which the rules and readers read as ``q``
        (:func:`~selfrag_langchain.chains.typos.read_question`)."""
        chosen = selection.traces[selection.selected] if selection.selected is not None else None
        citations = []
        if chosen is not None and chosen.passage is not None:
            citations.append(Document(page_content=chosen.passage.page_content,
                                      metadata={**chosen.passage.metadata, "citation": 1}))
        answer = selection.option or (chosen.answer if chosen is not None else "")
        quote = chosen.quote if chosen is not None and not selection.option else None
        evidence = [p.evidence for p in passages] if passages else [None] * len(selection.traces)
        declined = self.decline and not q.choices and declines(q.question, chosen, evidence, self.min_name_coverage,
                                                               self.min_quote_answering,
                                                               self.min_quote_holds_answer)
        if declined:
            answer, citations = declined_answer(selection.traces, self.boundary())
            quote = None
        return SelfRAGResult(
            question=typed.question,
            answer=quote or answer,
            quoted=quote is not None,
            retrieved=passages is not None,
            retrieve_decision=decision,
            citations=citations,
            selected=selection.selected,
            option_scores=selection.option_scores,
            declined=declined,
            branches=selection.traces,
            reflector=self.reflector.name,
            notes=[*notes, *selection.notes],
            settings=self.settings(),
        )

    def _quoted(self, q: Question, passages: list[PreparedPassage] | None, branches: list[Branch]
                ) -> tuple[list[int], QuoteRequest] | None:
        """Which branches were read from a passage and what quoting them asks (every one, since each is scored
        as its quote); None without a quoter, without passages, or for a question with answer choices."""
        if not self._quotes(q, passages):
            return None
        read = [i for i, b in enumerate(branches) if b.passage is not None and b.raw]
        return read, QuoteRequest.of([(branches[i].answer, passages[i]) for i in read])

    def _quotes(self, q: Question, passages: list[PreparedPassage] | None) -> bool:
        """Whether each branch is answered by its quote: with a quoter and passages, for a question without
        answer choices (whose answer is an option)."""
        return self.quoter is not None and bool(passages) and not q.choices

    def _budget(self, q: Question, passages: list[PreparedPassage] | None) -> tuple[int, str]:
        """Each branch's generation budget and the setting it comes from (:func:`branch_budget`)."""
        return branch_budget(self.max_new_tokens, self.max_quoted_branch_tokens, quoted=self._quotes(q, passages),
                             prompt_format=self.resolved_prompt_format())

    def _moot(self, q: Question, passages: list[PreparedPassage] | None) -> list[str | None]:
        """Why each branch need not be written, or None where it must
        (:func:`~selfrag_langchain.chains.names.moot_reasons`): the names rule settles some branches before a word
        of them is generated. Nothing is moot for a question with answer choices or without passages."""
        if not passages or q.choices:
            return [None] * (len(passages) if passages else 1)
        return moot_reasons(q.question, [p.evidence for p in passages], self.min_name_coverage,
                            declining=self.decline)

    def _prospected(self, q: Question, passages: list[PreparedPassage] | None, moot: list[str | None]
                    ) -> _Prospected | None:
        """What reading the prospects asks (:mod:`~selfrag_langchain.chains.prospects`): with
        :attr:`writing_margin` set and a quoter that reads sentences, for two or more branches the names rule
        leaves; None when no prospect is read."""
        if (self.writing_margin is None or passages is None or not self._quotes(q, passages)
                or self.quoter is None or self.quoter.reader is None):
            return None
        open_ = [i for i, reason in enumerate(moot) if reason is None]
        if len(open_) < 2:
            return None
        return _Prospected(open_, [passages[i].evidence for i in open_],
                           [(passages[i].body, passages[i].title) for i in open_],
                           [off_subject_quotes(q.question, passages[i]) for i in open_]
                           if self.min_name_coverage > 0.0 else None)

    def _out_of_reach(self, moot: list[str | None], asked: _Prospected, read: Prospects
                      ) -> tuple[list[str | None], dict[int, dict[str, float]]]:
        """``moot`` with each branch whose prospect is out of reach (:func:`out_of_reach`) left unwritten, and
        the IsRel read of each branch asked about. The margin is never narrower than
        :attr:`retrieval_order_margin`, within which a branch ranked earlier wins a near tie; a branch a hard
        constraint will drop sets no bar, and a branch sets it only with the quotes that speak of what the question
        names (:func:`~selfrag_langchain.chains.prospects.prospects_of`)."""
        prospects, bars = prospects_of(read.relevance, read.best, self.weights(), self.constraints(),
                                       read.best_on_subject)
        margin = max(self.writing_margin or 0.0, self.retrieval_order_margin)
        placed = dict(zip(asked.indices, out_of_reach(prospects, margin, bars), strict=True))
        return ([placed.get(i, reason) for i, reason in enumerate(moot)],
                dict(zip(asked.indices, read.relevance, strict=True)))

    def _bounded(self, q: Question, passages: list[PreparedPassage] | None, moot: list[str | None]
                 ) -> list[tuple[str, str | None]] | None:
        """The (body, title) of each passage still to be written, whose best answer finder readings could decline
        the answer before any is (:meth:`bounds_holding`); None when no such reading is asked for."""
        if passages is None or not self._quotes(q, passages) or not self.bounds_holding():
            return None
        sources = [(p.body, p.title) for p, reason in zip(passages, moot, strict=True) if reason is None]
        return sources or None

    def _unheld(self, moot: list[str | None], holding: list[float | None]) -> list[str | None]:
        """``moot`` with every branch still to be written left unwritten when none of their passages holds a
        sentence the answer finder reads as holding an answer (:func:`~selfrag_langchain.chains.declining.
        answer_unheld`): every quote they could give is declined, and so is the answer whichever branch selection
        would choose: the answer is the one writing them gives, unless a generation came out empty (not quoted,
        and so judged as written)."""
        if not answer_unheld(holding, self.min_quote_holds_answer):
            return moot
        return [ANSWER_UNHELD if reason is None else reason for reason in moot]

    def _settling(self, q: Question, passages: list[PreparedPassage] | None, moot: list[str | None]
                  ) -> _Settling | None:
        """The branches still to be written whose quotes their passages' readings may settle before generating
        (:attr:`settle_quotes`): with a quoter that reads sentences, for a question without answer choices; None
        when none is asked."""
        if (not self.settle_quotes or passages is None or not self._quotes(q, passages) or self.quoter is None
                or self.quoter.reader is None):
            return None
        open_ = [i for i, reason in enumerate(moot) if reason is None]
        return _Settling(open_, [(passages[i].body, passages[i].title) for i in open_]) if open_ else None

    def _select(self, q: Question, branches: list[Branch], critiques: list[Critique],
                quotes: list[Quote | None] | None = None, written: list[bool] | None = None) -> Selection:
        return select(branches, critiques, weights=self.weights(), constraints=self.constraints(),
                      choices=q.choices or None, quotes=quotes, retrieval_order_margin=self.retrieval_order_margin,
                      written=written,
                      name_coverage=None if q.choices else name_coverages(q.question, [b.evidence for b in branches],
                                                                          self.min_name_coverage),
                      speaks_of_asked=None if q.choices or quotes is None else branch_subject_checks(
                          q.question, [quote.text if quote is not None else None for quote in quotes],
                          [b.passage for b in branches], [b.evidence for b in branches], self.min_name_coverage))

    # ------------------------------------------------------------------ sync

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> SelfRAGResult:
        return self._call_with_config(self._invoke, input, config, **kwargs)

    def _invoke(self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig) -> SelfRAGResult:
        q = typed = to_question(input).neutralised(self.boundary())
        self.reflector.check_generator(self.generator)
        self.check_budget(self.max_new_tokens, f"max_new_tokens {self.max_new_tokens}")
        instruction = build_instruction(q.question, q.instruction, q.choices)
        child = patch_config(config, callbacks=run_manager.get_child())
        notes: list[str] = []

        def decide(_: Any) -> RetrieveDecision:
            dist = self.reflector.retrieve_distribution(instruction) if self.judges_retrieval() else None
            return self.retrieve_decision(dist)

        decision = RunnableLambda(decide, name="retrieve_decision").invoke(q.question, child)
        passages: list[PreparedPassage] | None = None
        if decision.retrieve:
            def retrieve(query: str, config: RunnableConfig) -> list[Document] | None:
                return self._retrieve(q, query, config, notes)

            docs = RunnableLambda(retrieve, name="retrieve").invoke(q.question, child)
            if docs is not None:
                q = read_question(q, docs, notes)
                instruction = build_instruction(q.question, q.instruction, q.choices)
                passages = self._prepare(q, docs)

        moot = self._moot(q, passages)
        known: dict[int, dict[str, float]] = {}
        if (asked := self._prospected(q, passages, moot)) is not None:
            def read(asked: _Prospected) -> Prospects:
                return self.read_prospects(instruction, q.question, asked.evidence, asked.sources,
                                           off_subject=asked.off_subject)

            moot, known = self._out_of_reach(moot, asked, RunnableLambda(read, name="prospects").invoke(asked, child))
        if (bounded := self._bounded(q, passages, moot)) is not None:
            def hold(sources: list[tuple[str, str | None]]) -> list[float | None]:
                return self.read_holding(q.question, sources)

            moot = self._unheld(moot, RunnableLambda(hold, name="answer_bound").invoke(bounded, child))
        ungenerated, settled = moot, dict[int, Quote]()
        if (settling := self._settling(q, passages, moot)) is not None:
            def settle(asked: _Settling) -> list[Quote | None]:
                return self.quoter.settled_quotes(q.question, asked.sources) if self.quoter else []

            ungenerated, settled = _settled(moot, settling, RunnableLambda(settle, name="settle").invoke(settling,
                                                                                                         child))
        budget, budget_setting = self._budget(q, passages)

        def generate(prompts: list[str], config: RunnableConfig) -> list[Branch]:
            written = _written_prompts(prompts, ungenerated)
            result = self.generator.generate(
                generation_inputs(self.generator, written), callbacks=config.get("callbacks"),
                **generation_kwargs(self.generator, budget),
            ) if written else LLMResult(generations=[])
            return to_branches(result, passages, ungenerated, budget=budget_setting)

        def critique(branches: list[Branch]) -> list[Critique]:
            written = [b for b, reason in zip(branches, ungenerated, strict=True) if reason is None]
            unread = _unread(branches, ungenerated, known)
            return _critiques(ungenerated, self.reflector.critique(instruction, written) if written else [],
                              _relevance(ungenerated, known, self.reflector.relevance_distributions(
                                  instruction, unread) if unread else []))

        prompts = branch_prompts(instruction, passages, self.resolved_prompt_format())
        branches = RunnableLambda(generate, name="generate_branches").invoke(prompts, child)
        critiques = RunnableLambda(critique, name="critique").invoke(branches, child)
        wanted = self._quoted(q, passages, branches)
        quotes = None
        if wanted is not None:
            read, request = wanted
            found = RunnableLambda(lambda r: self.quotes_for(q.question, r), name="quote").invoke(
                request, child)
            quotes = _placed(len(branches), read, found, settled)
        selection = RunnableLambda(lambda c: self._select(q, branches, c, quotes, _written(moot, notes)),
                                   name="select").invoke(critiques, child)
        return self._result(typed, q, decision, passages, selection, notes)

    # ------------------------------------------------------------------ async

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> SelfRAGResult:
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)

    async def _ainvoke(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> SelfRAGResult:
        q = typed = to_question(input).neutralised(self.boundary())
        self.reflector.check_generator(self.generator)
        self.check_budget(self.max_new_tokens, f"max_new_tokens {self.max_new_tokens}")
        instruction = build_instruction(q.question, q.instruction, q.choices)
        child = patch_config(config, callbacks=run_manager.get_child())
        notes: list[str] = []

        async def decide(_: Any) -> RetrieveDecision:
            dist = await self.reflector.aretrieve_distribution(instruction) if self.judges_retrieval() else None
            return self.retrieve_decision(dist)

        decision = await RunnableLambda(decide, name="retrieve_decision").ainvoke(q.question, child)
        passages: list[PreparedPassage] | None = None
        if decision.retrieve:
            async def aretrieve(query: str, config: RunnableConfig) -> list[Document] | None:
                return await self._aretrieve(q, query, config, notes)

            docs = await RunnableLambda(aretrieve, name="retrieve").ainvoke(q.question, child)
            if docs is not None:
                q = read_question(q, docs, notes)
                instruction = build_instruction(q.question, q.instruction, q.choices)
                passages = self._prepare(q, docs)

        moot = self._moot(q, passages)
        known: dict[int, dict[str, float]] = {}
        if (asked := self._prospected(q, passages, moot)) is not None:
            async def aread(asked: _Prospected) -> Prospects:
                return await self.aread_prospects(instruction, q.question, asked.evidence, asked.sources,
                                                  off_subject=asked.off_subject)

            moot, known = self._out_of_reach(moot, asked,
                                             await RunnableLambda(aread, name="prospects").ainvoke(asked, child))
        if (bounded := self._bounded(q, passages, moot)) is not None:
            async def ahold(sources: list[tuple[str, str | None]]) -> list[float | None]:
                return await self.aread_holding(q.question, sources)

            moot = self._unheld(moot, await RunnableLambda(ahold, name="answer_bound").ainvoke(bounded, child))
        ungenerated, settled = moot, dict[int, Quote]()
        if (settling := self._settling(q, passages, moot)) is not None:
            async def asettle(asked: _Settling) -> list[Quote | None]:
                return await self.quoter.asettled_quotes(q.question, asked.sources) if self.quoter else []

            ungenerated, settled = _settled(moot, settling,
                                            await RunnableLambda(asettle, name="settle").ainvoke(settling, child))
        budget, budget_setting = self._budget(q, passages)

        async def agenerate(prompts: list[str], config: RunnableConfig) -> list[Branch]:
            written = _written_prompts(prompts, ungenerated)
            result = await self.generator.agenerate(
                generation_inputs(self.generator, written), callbacks=config.get("callbacks"),
                **generation_kwargs(self.generator, budget),
            ) if written else LLMResult(generations=[])
            return to_branches(result, passages, ungenerated, budget=budget_setting)

        async def critique(branches: list[Branch]) -> list[Critique]:
            written = [b for b, reason in zip(branches, ungenerated, strict=True) if reason is None]
            unread = _unread(branches, ungenerated, known)
            return _critiques(
                ungenerated, await self.reflector.acritique(instruction, written) if written else [],
                _relevance(ungenerated, known, await self.reflector.arelevance_distributions(instruction, unread)
                           if unread else []))

        prompts = branch_prompts(instruction, passages, self.resolved_prompt_format())
        branches = await RunnableLambda(agenerate, name="generate_branches").ainvoke(prompts, child)
        critiques = await RunnableLambda(critique, name="critique").ainvoke(branches, child)
        wanted = self._quoted(q, passages, branches)
        quotes = None
        if wanted is not None:
            read, request = wanted

            async def aquote(r: QuoteRequest) -> list[Quote | None]:
                return await self.aquotes_for(q.question, r)

            found = await RunnableLambda(aquote, name="quote").ainvoke(request, child)
            quotes = _placed(len(branches), read, found, settled)
        selection = await RunnableLambda(lambda c: self._select(q, branches, c, quotes, _written(moot, notes)),
                                         name="select").ainvoke(critiques, child)
        return self._result(typed, q, decision, passages, selection, notes)


def _placed(count: int, read: list[int], found: list[Quote | None], settled: dict[int, Quote]
            ) -> list[Quote | None]:
    """One quote (or None) per branch, from the quotes of the branches ``read`` from a passage and the
    ``settled`` ones."""
    quotes: list[Quote | None] = [None] * count
    for i, quote in zip(read, found, strict=True):
        quotes[i] = quote
    for i, quote in settled.items():
        quotes[i] = quote
    return quotes


def _written(moot: list[str | None], notes: list[str]) -> list[bool]:
    """Which branches were written; a note when none was, since the answer was declined before writing."""
    if moot and all(moot):
        why = ("no sentence of the passages found holds an answer" if ANSWER_UNHELD in moot
               else "the passages found hold too few of the question's names")
        notes.append(f"no branch was written: {why}")
    return [reason is None for reason in moot]


def _written_prompts(prompts: list[str], moot: list[str | None]) -> list[str]:
    """The prompts of the branches to be written."""
    return [prompt for prompt, reason in zip(prompts, moot, strict=True) if reason is None]


@dataclass(frozen=True)
class _Prospected:
    """The branches whose prospects are read: their indices, passages (as the judge reads them), (body, title)
    pairs (as the reader reads their sentences), and the quotes of each that speak of another thing than the
    question names (None: the names rules are off)."""

    indices: list[int]
    evidence: list[str]
    sources: list[tuple[str, str | None]]
    off_subject: list[frozenset[str]] | None
    """(:func:`~selfrag_langchain.chains.declining.off_subject_quotes`)"""


@dataclass(frozen=True)
class _Settling:
    """The branches whose quotes are asked whether they are settled before writing: their indices and (body,
    title) pairs."""

    indices: list[int]
    sources: list[tuple[str, str | None]]


QUOTE_SETTLED = ("its quote was settled before writing: its passage's best-read sentence is ahead of every other "
                 "by more than a generation could move the choice (settle_quotes)")
"""Why a branch in the running was not generated: it is answered and scored by the quote it would have been."""


def _settled(moot: list[str | None], asked: _Settling, found: list[Quote | None]
             ) -> tuple[list[str | None], dict[int, Quote]]:
    """Why each branch is not generated (``moot``, and :data:`QUOTE_SETTLED` for each settled one), and the
    settled branches' quotes by index."""
    settled = {i: quote for i, quote in zip(asked.indices, found, strict=True) if quote is not None}
    return [QUOTE_SETTLED if i in settled else reason for i, reason in enumerate(moot)], settled


def _unread(branches: list[Branch], moot: list[str | None], known: dict[int, dict[str, float]]) -> list[str]:
    """The passages of the unwritten branches whose IsRel was not read with their prospects."""
    return [b.evidence or "" for i, (b, reason) in enumerate(zip(branches, moot, strict=True))
            if reason and i not in known]


def _relevance(moot: list[str | None], known: dict[int, dict[str, float]], read: list[dict[str, float]]
               ) -> list[dict[str, float]]:
    """The IsRel of each unwritten branch, in order: read with its prospect (``known``) or just now (``read``, in
    :func:`_unread`'s order)."""
    unwritten = [i for i, reason in enumerate(moot) if reason]
    return interleaved([None if i in known else "unread" for i in unwritten], (known[i] for i in unwritten
                                                                               if i in known), read)


def _critiques(moot: list[str | None], written: list[Critique], relevance: list[dict[str, float]]
               ) -> list[Critique]:
    """The judge's critique of each written branch and the IsRel alone of each unwritten one (its passage is
    still ranked among the closest a declined answer lists)."""
    return interleaved(moot, written, (Critique(relevance=dist) for dist in relevance))
