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
from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from selfrag_langchain.chains.inputs import Question
from selfrag_langchain.chains.prospects import Prospects, also_barred
from selfrag_langchain.chains.quotes import PassageQuoter, Quote, QuoteRequest
from selfrag_langchain.chains.windows import PassageWindow
from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.judging import InlineReflector, Reflector
from selfrag_langchain.results import RetrieveDecision
from selfrag_langchain.scoring import (
    HardConstraints,
    RetrieveMode,
    ScoringWeights,
    check_weight,
    retrieve_probability,
    should_retrieve,
)
from selfrag_langchain.text.boundary import Boundary, boundary_for


def at_least_one(value: int, info: ValidationInfo) -> int:
    """Field validator: a count that must be 1 or more."""
    if value < 1:
        msg = f"{info.field_name} must be >= 1, got {value}"
        raise ConfigurationError(msg)
    return value


MAX_K = 20
"""The most passages a question may take: each is a branch, generated and judged; beyond this a question
runs for minutes on a CPU (``--k 1000`` never answered); the paper uses 5, the default is 10."""


def branch_count(value: int, info: ValidationInfo) -> int:
    """Field validator: ``k``, 1 to :data:`MAX_K`."""
    at_least_one(value, info)
    if value > MAX_K:
        msg = f"{info.field_name} must be at most {MAX_K} (each passage is a branch, generated and judged), got {value}"
        raise ConfigurationError(msg)
    return value


def not_negative(value: float | None, info: ValidationInfo) -> float | None:
    """Field validator: a margin, 0 or more (None: none)."""
    if value is not None and not value >= 0:
        msg = f"{info.field_name} must be >= 0, got {value}"
        raise ConfigurationError(msg)
    return value


def in_unit_interval(value: float, info: ValidationInfo) -> float:
    """Field validator: a probability threshold, within [0, 1]."""
    if not 0.0 <= value <= 1.0:
        msg = f"{info.field_name} must be in [0, 1], got {value}"
        raise ConfigurationError(msg)
    return value


_PAPER_WEIGHTS = ScoringWeights()

WARM_UP_QUESTION = "Who painted the Mona Lisa?"
"""What :meth:`SelfRAGControls.warm_up` asks: a plain factual question, which the judge sends to the store, so
every role loads (any store answers or declines it)."""


class LoopSettings(BaseModel):
    """The knobs of the paper's control loop, declared once: the Runnables (:class:`SelfRAGControls`), the
    pipeline's settings (:class:`~selfrag_langchain.pipeline.PipelineSettings`) and the command line's flags
    (generated from these fields, their defaults and these docstrings) all read them."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    mode: RetrieveMode = RetrieveMode.ADAPTIVE
    """Retrieve decision: adaptive (a threshold on p(Retrieve)), hard (the judge's choice), always or never."""
    threshold: float = 0.2
    """Adaptive mode retrieves when p(Retrieve) > threshold, in [0, 1]."""
    k: int = 10
    """Passages retrieved, one branch each, 1 to 20. Ten rather than the paper's five: a quoted branch's best
    prospect is read before it is written, so a passage that cannot win costs a reading, not a generation, and
    judging ten finds the answer where the retriever ranks it sixth to tenth (SQuAD's held-out questions among their
    articles' paragraphs, ``benchmarks/squad_passages.py``: 224 of 300 right against 215, none lost)."""
    w_rel: float = _PAPER_WEIGHTS.w_rel
    """IsRel weight in a branch's score, 0 to 10."""
    w_sup: float = _PAPER_WEIGHTS.w_sup
    """IsSup weight, 0 to 10."""
    w_use: float = _PAPER_WEIGHTS.w_use
    """IsUse weight, 0 to 10."""
    use_sequence_probability: bool = False
    """Add the branch's sequence probability, exp(mean token log-probability), to its score, as the paper and
    its reference code do. Off by default: the most fluent branch is a small generator's copy of its passage's
    first sentence, whatever the passage is about; without it long-form answers were right more often on
    three lists of four (6 more of 158 questions) and short-form answers on none fewer."""
    drop_unsupported: bool = False
    """Hard constraint: drop branches judged [No support / Contradictory]."""
    drop_irrelevant: bool = False
    """Hard constraint: drop branches judged [Irrelevant]."""
    decline: bool = True
    """When no claim of the answer is judged relevant and supported by the passages found, or the passages
    found hold too few of the question's names (min_name_coverage), say that the sources do not answer and
    list the closest passages instead (closed-set questions always get an option)."""
    min_name_coverage: float = 0.6
    """The share of the question's names (capitalised words and numbers, chains/names.py) a passage must hold:
    selection drops a branch whose passage holds less, unless none holds this much, and an answer is declined when
    the passages found hold less together or leave out one of its rare terms, or when its quote, its passage's
    title and first sentence hold none of them (chains/names.py). 0 turns these rules off. 0.6 asks for more
    than half: on PopQA's training-side passages it rejects 80% of those about another entity and keeps all about
    the asked one."""
    min_quote_answering: float = 0.3
    """With a quoter that reads sentences (``quote_reader``): decline a quoted answer whose quote the reader finds
    answering the question with less than this probability (a passage about the asked entity that does not state
    what was asked). 0 turns it off. Chosen on lists already run (right answers plus declined unanswerable
    questions, from 0.1 to 0.5: flat from 0.3 to 0.5, the lowest of those kept). A quote read by an answer
    finder is declined by :attr:`min_quote_holds_answer` instead."""
    min_quote_holds_answer: float = 0.02
    """With a quoter that has an answer finder (``quote_reader``, :class:`~selfrag_langchain.judging.finder.
    AnswerFinder`): decline a quoted answer whose quote the finder reads as holding an answer to the
    question with less than this probability. 0 turns it off. Chosen for the shipped finder on lists it was not
    trained on: where it leaves as many answerable questions with no sentence read as answering as the finder
    trained on SQuAD alone left at 0.05, the threshold chosen for that finder by leaving one pair of lists out."""
    retrieval_order_margin: float = 0.1
    """Short form, and long form's first segment (``answer_first``): of the branches whose scores are within this
    much of the best, choose the one whose passage the retriever ranked first (0: the best score alone). Chosen on
    lists already run (leave one pair of lists out, from 0 to 0.3): a branch that beats the first passage by less is
    as often wrong as right."""
    max_new_tokens: int = 60
    """Token budget of the answer: short form's generation, and long form's whole answer (a beam stops growing
    once its segments reach it; the segment that crosses it is kept whole)."""
    max_quoted_branch_tokens: int = 16
    """Short form with a quoter and plain prompts: the generation budget of each branch (at most max_new_tokens),
    since its answer is the sentence its generation points at. The first 16 tokens point at the same sentence as
    the whole generation: on the branches of 26 lists already run (970 questions) they gave the same number of
    right answers and of unanswerable questions declined (12 lost 8 of 519 right), and on the sixth pair the
    same answers in 2.5 s a question instead of 2.9."""

    writing_margin: float | None = 0.2
    """With a quoter that reads sentences, for a question without answer choices: leave unwritten a branch whose
    prospect (its IsRel with its passage's best-read sentence, the most its quote can score; chains/prospects.py)
    is more than this (and more than retrieval_order_margin) below the best branch's; in long form, a candidate
    segment whose beam, with its prospect, would score more than this below the beam_width-th best (of the other
    candidates' beams so bounded and the finished beams; when fewer count, the last that does; at the first step,
    which keeps one candidate with answer_first, the best, as in short form). None, or
    w_rel + 2 w_use or more, writes every branch.
    On the branches of 29 lists already run (1,040 questions), 0.2 and above gave every question the same short
    answer as writing every branch, while 1.13 branches a question were written instead of 2.15 on answerable lists
    (2.04 instead of 2.48 on PopQA, 0.68 instead of 1.05 on unanswerable lists; 0.1 changed one answer); leaving
    each of the 16 sources out in turn (15 pairs of lists and PopQA), the rest chose 0.15 for 14 and 0.2 is one
    step wider."""
    settle_quotes: bool = True
    """Short form with a quoter that reads sentences, for a question without answer choices: a branch whose
    passage's sentence readings settle its quote before a word is written (its best-read sentence is ahead of
    every other by more than any generation can move the choice; chains/quotes.py, settled) is not generated; it
    is answered and scored by that quote, as it would have been. Long form writes every candidate still."""

    _threshold = field_validator("threshold", "min_name_coverage", "min_quote_answering",
                                 "min_quote_holds_answer", "retrieval_order_margin")(in_unit_interval)
    _positive = field_validator("max_new_tokens", "max_quoted_branch_tokens")(at_least_one)
    _margin = field_validator("writing_margin")(not_negative)
    _branches = field_validator("k")(branch_count)

    @field_validator("w_rel", "w_sup", "w_use")
    @classmethod
    def _weight_in_range(cls, value: float, info: ValidationInfo) -> float:
        return check_weight(str(info.field_name), value)

    def weights(self) -> ScoringWeights:
        return ScoringWeights(self.w_rel, self.w_sup, self.w_use, self.use_sequence_probability)

    def constraints(self) -> HardConstraints:
        return HardConstraints(drop_unsupported=self.drop_unsupported, drop_irrelevant=self.drop_irrelevant,
                               min_name_coverage=self.min_name_coverage)


class BeamSettings(BaseModel):
    """The knobs of the long-form beam search, declared once for
    :class:`~selfrag_langchain.chains.long_form.SelfRAGLongForm`, the pipeline's settings and the command line."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    beam_width: int = 2
    """Beams kept after each segment."""
    max_depth: int = 6
    """Most segments in an answer."""
    max_segment_tokens: int = 48
    """Generation budget of one segment (max_new_tokens caps the whole answer); a generation that reaches it
    without ending a segment is cut there."""
    later_k: int | None = 2
    """Passages judged for each segment after the first: the first this many of those its retrieval found, or of
    the passages given with the question (the first segment, which answers the question, judges all ``k``). A
    later segment's query holds the answer so far, so its evidence is nearer the top: on six pairs of question
    lists already run, 5 against all ten kept 230 of 231 right answers and every decline, and the slowest answer
    took 13.7 s against 22.3; on five more, 3 against 5 gave 348 of 350 answers the same (as many right and
    declined), 2.87 s a question against 2.98 and 15.9 s at worst against 19.4; on four more, 2 against 3 gave 277
    of 280 the same (the others differ in a later segment, all right either way), 2.60 s a question against 2.73
    and 13.1 s at worst against 18.0 (benchmarks/log.md). None judges all ``k`` at every segment."""
    answer_first: bool = True
    """The first segment, which answers the question, is chosen as short form chooses its answer: the best-scoring
    candidate, or of those within retrieval_order_margin of it the one whose passage the retriever ranked first;
    later steps extend it alone, with ``beam_width`` beams. False keeps ``beam_width`` beams from the first step,
    as the paper's search does, where a beam whose later segments score better can win with a worse first one:
    its later segments only add to an answer and do not answer the question, so they score lower than an answer
    and a beam's mean falls the more of them it has. On four pairs of lists already run, 156 of 160 right against
    154, as many declined, 2.0 s a question against 2.8 and 10.5 s at worst against 17.5 (benchmarks/log.md)."""
    beam_score: Literal["sum", "mean"] = "mean"
    """Rank beams by the mean of their segment scores (length-neutral: a beam grows only while its new segments
    score as well as its earlier ones) or by the sum (every segment's score is positive, so longer answers win,
    whatever their new segments are about)."""

    _counts = field_validator("beam_width", "max_depth", "max_segment_tokens")(at_least_one)

    @field_validator("later_k")
    @classmethod
    def _later_count(cls, value: int | None, info: ValidationInfo) -> int | None:
        return None if value is None else branch_count(value, info)


class SelfRAGControls(LoopSettings):
    """The three roles (generator, judge, retriever), the knobs of the paper's control loop
    (:class:`LoopSettings`), and how passages are given to the generator."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    generator: BaseLanguageModel
    """Writes the answer: a Self-RAG model (inline judging) or any LLM or chat model."""
    reflector: Reflector
    """Judges Retrieve, IsRel, IsSup and IsUse: any :class:`~selfrag_langchain.judging.base.Reflector`."""
    retriever: BaseRetriever | None = None
    """Any LangChain retriever; passages given with a question are used instead."""
    max_passage_tokens: int | None = None
    """Cut passages to this many tokens (they are always cut to fit the generator's context window)."""
    passage_window: PassageWindow | None = None
    """Give the generator (and the judge) each passage's title and its sentences nearest the query instead of,
    or with ``keep_whole`` beside, the whole passage (:class:`~selfrag_langchain.chains.windows.PassageWindow`);
    None: whole passages, as the paper does."""
    quoter: PassageQuoter | None = None
    """Answer with the cited passage's sentence that states what the chosen branch (or each long-form segment)
    generated, the generation kept in the trace (:class:`~selfrag_langchain.chains.quotes.PassageQuoter`);
    None: the generation itself, as the paper does."""
    prompt_format: Literal["auto", "selfrag", "rag"] = "auto"
    """``selfrag``: the released generator's format with reflection tokens; ``rag``: a plain prompt for
    instruct models; ``auto``: ``selfrag`` with the inline reflector, else ``rag``."""

    def warm_up(self) -> None:
        """Answer :data:`WARM_UP_QUESTION` and drop the answer, so the first real question does not pay for what
        each role loads on first use (the judge's, quoter's, reader's and finder's encoders, the embeddings,
        the lexicon) or for the libraries' first calls; ``selfrag serve`` does this before it listens."""
        self.invoke(WARM_UP_QUESTION)  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ settings

    def windowed(self, query: str, docs: list[Document]) -> list[Document]:
        """The first ``k`` passages, as the :attr:`passage_window` gives them (their windows, or the passages and
        then their windows) when it is set."""
        docs = docs[: self.k]
        return self.passage_window.views(query, docs) if self.passage_window is not None else docs

    def quotes_for(self, question: str, request: QuoteRequest) -> list[Quote | None]:
        """For each (generated text, passage text as the models read it) pair of ``request``, the passage's
        sentence that states the text (and is not among the pair's taken quotes), an opening pronoun named from
        the passage's title, with the quoter's reading of whether it answers the question; None for every pair
        without a :attr:`quoter`."""
        if self.quoter is None or not request.pairs:
            return [None] * len(request.pairs)
        return self.quoter.find(question, request.pairs, titles=request.titles, taken=request.taken)

    async def aquotes_for(self, question: str, request: QuoteRequest) -> list[Quote | None]:
        """:meth:`quotes_for` with the quoter's async embedding call."""
        if self.quoter is None or not request.pairs:
            return [None] * len(request.pairs)
        return await self.quoter.afind(question, request.pairs, titles=request.titles, taken=request.taken)

    def read_prospects(self, instruction: str, question: str, evidence: list[str],
                       sources: list[tuple[str, str | None]], taken: list[frozenset[str]] | None = None,
                       off_subject: list[frozenset[str]] | None = None) -> Prospects:
        """What each branch could score before it is written (:mod:`~selfrag_langchain.chains.prospects`): the IsRel
        of each passage (``evidence``, as the models read it) and the quoter's best reading of each (body, title)
        of ``sources``, of the sentences it may still quote (``taken``), and of those whose quote also speaks of
        what the question names (``off_subject``: each passage's quotes that do not). Only with a
        :attr:`quoter`."""
        if self.quoter is None:
            msg = "prospects are read only with a quoter"
            raise ConfigurationError(msg)
        best = self.quoter.best_answering(question, sources, taken)
        barred = also_barred(taken, off_subject, len(sources))
        return Prospects(self.reflector.relevance_distributions(instruction, evidence), best,
                         best if barred is None else self.quoter.best_answering(question, sources, barred))

    async def aread_prospects(self, instruction: str, question: str, evidence: list[str],
                              sources: list[tuple[str, str | None]], taken: list[frozenset[str]] | None = None,
                              off_subject: list[frozenset[str]] | None = None) -> Prospects:
        """:meth:`read_prospects` with the judge's and the quoter's async calls."""
        if self.quoter is None:
            msg = "prospects are read only with a quoter"
            raise ConfigurationError(msg)
        relevance = await self.reflector.arelevance_distributions(instruction, evidence)
        best = await self.quoter.abest_answering(question, sources, taken)
        barred = also_barred(taken, off_subject, len(sources))
        return Prospects(relevance, best,
                         best if barred is None else await self.quoter.abest_answering(question, sources, barred))

    def bounds_holding(self) -> bool:
        """Whether an answer can be declined before any branch is written for what its quotes could hold
        (:func:`~selfrag_langchain.chains.declining.answer_unheld`): declining, with a quoter whose answer finder
        reads quotes and :attr:`min_quote_holds_answer` set."""
        return (self.decline and self.min_quote_holds_answer > 0.0 and self.quoter is not None
                and self.quoter.finder is not None)

    def read_holding(self, question: str, sources: list[tuple[str, str | None]],
                     taken: list[frozenset[str]] | None = None) -> list[float | None]:
        """Each (body, title) of ``sources``'s best answer finder reading among the sentences it may still quote
        (:meth:`~selfrag_langchain.chains.quotes.PassageQuoter.best_holding`); None for each without a quoter."""
        if self.quoter is None:
            return [None] * len(sources)
        return self.quoter.best_holding(question, sources, taken)

    async def aread_holding(self, question: str, sources: list[tuple[str, str | None]],
                            taken: list[frozenset[str]] | None = None) -> list[float | None]:
        """:meth:`read_holding` off the event loop."""
        if self.quoter is None:
            return [None] * len(sources)
        return await self.quoter.abest_holding(question, sources, taken)

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
        prompts, the generator and the judge (:mod:`selfrag_langchain.text.boundary`)."""
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
            "quote": self.quoter is not None,
            "quote_reader_weight": (self.quoter.reader_weight
                                    if self.quoter is not None and self.quoter.reader is not None else None),
            "w_rel": self.w_rel,
            "w_sup": self.w_sup,
            "w_use": self.w_use,
            "use_sequence_probability": self.use_sequence_probability,
            "drop_unsupported": self.drop_unsupported,
            "drop_irrelevant": self.drop_irrelevant,
            "decline": self.decline,
            "min_name_coverage": self.min_name_coverage,
            "min_quote_answering": self.min_quote_answering,
            "min_quote_holds_answer": self.min_quote_holds_answer,
            "quote_finder": self.quoter is not None and self.quoter.finder is not None,
            "quote_finder_share": (self.quoter.finder_share if self.quoter is not None
                                   and self.quoter.reader is not None and self.quoter.finder is not None else None),
            "quote_read_alone": (self.quoter.read_alone
                                 if self.quoter is not None and self.quoter.reader is not None else None),
            "retrieval_order_margin": self.retrieval_order_margin,
            "max_new_tokens": self.max_new_tokens,
            "max_quoted_branch_tokens": self.max_quoted_branch_tokens,
            "writing_margin": self.writing_margin,
            "settle_quotes": self.settle_quotes,
            "max_passage_tokens": self.max_passage_tokens,
            "prompt_format": self.resolved_prompt_format(),
            "reflector": self.reflector.name,
        }

    # ------------------------------------------------------------------ the retrieve decision

    def judges_retrieval(self) -> bool:
        """Whether the retrieve decision reads the judge's Retrieve distribution (``adaptive`` and ``hard``
        modes); ``always`` and ``never`` decide without it."""
        return self.mode in (RetrieveMode.ADAPTIVE, RetrieveMode.HARD)

    def retrieve_decision(self, dist: dict[str, float] | None) -> RetrieveDecision:
        """The decision, by :attr:`mode` and :attr:`threshold`, for the judge's Retrieve distribution ``dist``
        (None when it was not asked)."""
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
