"""Segment-level beam search of long-form Self-RAG (paper §3.3, Algorithm 1), free of I/O.

:class:`BeamSearch.run` is a generator of *effects*: it yields what it needs done (judge the retrieve
decisions, retrieve, generate, critique, quote final segments, report an event, hand out final segments)
and receives the outcome. The Runnable drives it with sync calls, async calls, or as a stream, so the three
share every line of the control logic, and a stream that its reader stops is a suspended generator:
nothing more is generated.

At each depth every live beam decides whether to retrieve (from the Retrieve token its last segment
ended with, or by asking the judge with the answer so far), retrieves for the question and its previous
segment (a fresh query per segment), keeps its passage on ``[Continue to Use Evidence]``, and writes one
candidate segment per passage; all candidates of all beams are generated in one call, judged, scored
with the paper's formula, and the best ``beam_width`` beams by sequence score (``beam_score``) go on; at the
first step, whose segment answers the question, one candidate goes on, chosen as short form chooses its answer
(``answer_first``; the paper's search keeps ``beam_width`` there too). A
candidate the names rule settles from its passage alone is not written
(:func:`~selfrag_langchain.chains.names.moot_reasons`), nor, with a quoter that reads sentences, one whose beam
could not score near the ``beam_width`` best even with its passage's best-read sentence
(:mod:`~selfrag_langchain.chains.prospects`, ``writing_margin``).

The search reads its settings as a frozen :class:`~selfrag_langchain.chains.search_config.SearchConfig`, and of
the Runnable only what :class:`SearchHost` names; the answer is assembled from the segments it settles on by
:class:`~selfrag_langchain.chains.long_form_answer.LongFormAnswer`.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Protocol

from langchain_core.documents import Document
from langchain_core.language_models import BaseLanguageModel
from langchain_core.outputs import LLMResult

from selfrag_langchain.chains.answer_kinds import gives_asked_kind
from selfrag_langchain.chains.branches import PreparedPassage, prepare_passages, to_branches
from selfrag_langchain.chains.declining import (
    ANSWER_UNHELD,
    answer_unheld,
    branch_subject_checks,
    off_subject_quotes,
    shown_answer,
    trace_speaks_of_asked,
    unfounded,
)
from selfrag_langchain.chains.inputs import Question
from selfrag_langchain.chains.long_form_answer import LongFormAnswer
from selfrag_langchain.chains.names import NAMES_DECLINED, moot_reasons, name_coverages, names_enough
from selfrag_langchain.chains.prospects import beam_bound, out_of_reach, prospects_of
from selfrag_langchain.chains.quotes import Quote, QuoteRequest
from selfrag_langchain.chains.search_config import SearchConfig
from selfrag_langchain.chains.segments import (
    RETRIEVE_STOPS,
    CutSegment,
    cut_plain,
    cut_selfrag,
    rag_followup_prompt,
    rag_step_prompt,
    repeat_key,
    selfrag_step_prefix,
    selfrag_step_prompt,
)
from selfrag_langchain.chains.selection import select
from selfrag_langchain.chains.typos import read_question
from selfrag_langchain.judging import Branch, Critique
from selfrag_langchain.prompts import build_instruction
from selfrag_langchain.results import (
    Action,
    BeamStep,
    BeamTrace,
    BranchTrace,
    CitedSegment,
    LongFormResult,
    RetrieveDecision,
    SegmentTrace,
)
from selfrag_langchain.scoring import argmax, best_index
from selfrag_langchain.tokens import CONTINUE_EVIDENCE, Group, parse_generation


class SearchHost(Protocol):
    """What a search still asks of the Runnable that runs it (:class:`~selfrag_langchain.chains.long_form.
    SelfRAGLongForm`): the two rules it shares with short form, and nothing else. Its settings come as a
    :class:`~selfrag_langchain.chains.search_config.SearchConfig`, its model work goes out as effects."""

    def windowed(self, query: str, docs: list[Document]) -> list[Document]: ...

    def retrieve_decision(self, dist: dict[str, float] | None) -> RetrieveDecision: ...


# ---------------------------------------------------------------------- effects


@dataclass(frozen=True)
class Decide:
    """Ask the judge for the Retrieve distribution after each answer so far (None: the question alone)."""

    preceding: list[str | None]
    run_name = "retrieve_decision"


@dataclass(frozen=True)
class Retrieve:
    """Retrieve for each query; the reply is ``(documents or None, notes)`` per query."""

    queries: list[str]
    run_name = "retrieve"


@dataclass(frozen=True)
class Generate:
    """Generate every prompt in one call; the reply is the ``LLMResult``."""

    prompts: list[str]
    raw: bool
    """Use the raw-text copy of the generator (the prompts already carry its chat rendering)."""
    stop: list[str] | None
    max_tokens: int
    sentence_end: bool = False
    """Ask the backend to stop each generation once its first sentence has ended."""
    run_name = "generate_segments"


@dataclass(frozen=True)
class CritiqueBatches:
    """Critique each beam's candidates after its answer so far; the reply is one critique list per batch."""

    batches: list[tuple[str | None, list[Branch]]]
    run_name = "critique"


@dataclass(frozen=True)
class JudgeRelevance:
    """Judge IsRel alone for each passage (as the models read it) whose candidate was not written; the reply is
    one distribution per passage."""

    evidence: list[str]
    run_name = "critique"


@dataclass(frozen=True)
class ReadProspects:
    """Read what each candidate could score before it is written (:mod:`~selfrag_langchain.chains.prospects`): the
    IsRel of each passage (as the models read it) and the sentence reader's best reading of each passage (body,
    title) among the sentences its beam may still quote (``taken``), and among those whose quote also speaks of
    what the question names (``off_subject``: each passage's quotes that do not; None: not asked); the reply is
    :class:`~selfrag_langchain.chains.prospects.Prospects`, one of each per passage."""

    evidence: list[str]
    sources: list[tuple[str, str | None]]
    taken: list[frozenset[str]]
    off_subject: list[frozenset[str]] | None = None
    run_name = "prospects"


@dataclass(frozen=True)
class ReadHolding:
    """Read, for each passage (body, title), the answer finder's best reading among the sentences its beam may
    still quote (``taken``): the most any quote of it can hold an answer with; the reply is one reading (or None)
    per passage."""

    sources: list[tuple[str, str | None]]
    taken: list[frozenset[str]]
    run_name = "answer_bound"


@dataclass(frozen=True)
class QuoteSegments:
    """Quote each candidate segment from its passage; the reply is one :class:`~selfrag_langchain.chains.quotes.Quote`
    (or None) per pair of the request."""

    request: QuoteRequest
    run_name = "quote"


@dataclass(frozen=True)
class Report:
    """A custom event for callbacks and ``astream_events``."""

    name: str
    data: dict[str, Any]


@dataclass(frozen=True)
class Final:
    """Segments that no later step can change, ready for a stream's reader."""

    segments: list[CitedSegment]


Effect = (Decide | Retrieve | Generate | CritiqueBatches | JudgeRelevance | ReadProspects | ReadHolding
          | QuoteSegments | Report | Final)


_NOT_CONTINUED = "not continued: no candidate of this beam is expected to be kept (writing_margin)"
"""Why a beam whose every candidate was out of reach leaves the search (its step's note, or how it ended)."""

# ---------------------------------------------------------------------- search state


@dataclass(eq=False)
class Node:
    """A beam, as its last segment and a link to the previous one; the empty beam has no segment."""

    id: str | None = None
    parent: Node | None = None
    text: str = ""
    context: str = ""
    """The answer so far as the generator reads it (released format: with its tokens and passages)."""
    passage: PreparedPassage | None = None
    score_sum: float = 0.0
    count: int = 0
    tokens: int = 0
    finished: str | None = None
    next_retrieve: dict[str, float] | None = None
    """The Retrieve distribution read where the generator ended this segment (inline judging)."""

    def score(self, how: str) -> float:
        """The beam's sequence score: the sum of its segment scores, or their mean; -inf while empty."""
        if not self.count:
            return float("-inf")
        return self.score_sum if how == "sum" else self.score_sum / self.count

    def path(self) -> list[Node]:
        nodes, node = [], self
        while node is not None and node.id is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]


@dataclass
class _Plan:
    """One beam's step: its decision and the passages its candidates are written from."""

    beam: Node
    step: BeamStep
    passages: list[PreparedPassage] | None = None
    query: str | None = None
    branches: list[Branch] = field(default_factory=list)
    cuts: list[CutSegment] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    generated: list[int | None] = field(default_factory=list)
    """Tokens generated for each candidate, before it was cut to its segment."""
    moot: list[str | None] = field(default_factory=list)
    """For each candidate, why it was not written (the names rule settled it, or its prospect is out of reach), or
    None where it was."""
    unreached: set[int] = field(default_factory=set)
    """The candidates left unwritten because their prospect is out of reach: they would have lost, not been
    dropped."""
    relevance: dict[int, dict[str, float]] = field(default_factory=dict)
    """The IsRel read of each candidate whose prospect was read."""

    @property
    def action(self) -> Action:
        return self.step.action


class BeamSearch:
    """One question's search; ``run()`` yields effects and returns the :class:`LongFormResult`.

    Args:
        question: The question, neutralised.
        config: The settings it reads.
        generator: The generator the passages are fitted to and counted in (its model work is yielded).
        runnable: The Runnable that runs it, for what :class:`SearchHost` names.
    """

    def __init__(self, question: Question, config: SearchConfig, generator: BaseLanguageModel,
                 runnable: SearchHost) -> None:
        self.rag = runnable
        self.config = config
        self.generator = generator
        self.q = question
        self.instruction = build_instruction(question.question, question.instruction, question.choices)
        self.format = config.prompt_format
        self.raw_continuation = config.raw_continuation
        self.inline = config.inline
        self.answer = LongFormAnswer(question.question, config)
        self.notes: list[str] = []
        self.steps: list[BeamStep] = []
        self.candidates: list[SegmentTrace] = []
        self._traces: dict[str, SegmentTrace] = {}
        """Each candidate's trace by id: its distributions give the segments' verdicts, and its quote is kept in it."""
        self.retrievals = 0
        self.emitted = 0
        self.standing = not config.decline
        """Whether the answer stands: a segment of it was judged relevant and supported (or declining is
        off). Until then final segments are held back, so a declined answer never streams a claim."""
        self._retrieved: dict[str, tuple[list[Document] | None, list[str]]] = {}
        self._unquotable: set[str] = set()
        """Candidates whose passage holds no sentence their beam has not quoted (:meth:`_invalid`)."""
        self._declined_unwritten: str | None = None
        """Why the first step wrote nothing and the answer is declined: its passages hold too few of the question's
        names (:data:`~selfrag_langchain.chains.names.NAMES_DECLINED`), or no sentence of them holds an answer
        (:data:`~selfrag_langchain.chains.declining.ANSWER_UNHELD`); None when it wrote."""
        self._evidence: list[str | None] = []
        """Every candidate's passage as the models read it, in the order of :attr:`candidates`."""

    # ------------------------------------------------------------------ the loop

    def run(self) -> Generator[Effect, Any, LongFormResult]:
        root = Node()
        beams = [root]
        for depth in range(self.config.max_depth):
            active = [b for b in beams if b.finished is None]
            if not active:
                break
            plans = yield from self._decide(depth, active)
            yield from self._retrieve(depth, plans)
            yield from self._generate(depth, plans, beams)
            yield from self._judge(depth, plans)
            beams = self._prune(depth, beams, plans)
            yield Report("selfrag_beams", {"depth": depth, "beams": [self._beam_summary(b) for b in beams]})
            final = self._newly_final(beams)
            if final:
                yield Final(final)
        for beam in beams:
            if beam.finished is None:
                beam.finished = f"reached max_depth ({self.config.max_depth})"
        winner = beams[0].path()
        if not self.standing and not self._declined_unwritten and (
                any(self._grounded(n) for n in winner) or all(n.passage is None for n in winner)):
            self.standing = True
        if not self.standing:
            declined = self.answer.declined(self.candidates)
            yield Final(declined)
            return self._result(beams, declined)
        rest = self._cite(winner[self.emitted :])
        self.emitted = len(winner)
        if rest:
            yield Final(rest)
        return self._result(beams)

    # ------------------------------------------------------------------ decide

    def _decide(self, depth: int, active: list[Node]) -> Generator[Effect, Any, list[_Plan]]:
        dists: dict[int, dict[str, float] | None] = {}
        sources: dict[int, str] = {}
        ask: list[int] = []
        for i, beam in enumerate(active):
            if not self.config.judges_retrieval:
                dists[i], sources[i] = None, "mode"
            elif self.inline and beam.next_retrieve is not None:
                dists[i], sources[i] = beam.next_retrieve, "generation"
            else:
                ask.append(i)
        if ask:
            judged = yield Decide([active[i].context or None for i in ask])
            for i, dist in zip(ask, judged, strict=True):
                dists[i], sources[i] = dist, "judge"
        plans = []
        for i, beam in enumerate(active):
            decision = self.rag.retrieve_decision(dists[i])
            dist = dists[i]
            action: Action = "retrieve" if decision.retrieve else "no_retrieval"
            if dist and beam.passage is not None and argmax(dist) == CONTINUE_EVIDENCE:
                action = "continue_evidence"
            step = BeamStep(depth=depth, beam=beam.id, action=action, decision=decision, decision_source=sources[i])
            plans.append(_Plan(beam, step))
            yield Report("selfrag_retrieve_decision", {
                "depth": depth, "beam": beam.id, "action": action, "probability": decision.probability,
                "threshold": decision.threshold, "mode": decision.mode, "distribution": dist,
                "source": sources[i]})
        return plans

    # ------------------------------------------------------------------ retrieve

    def _retrieve(self, depth: int, plans: list[_Plan]) -> Generator[Effect, Any, None]:
        for plan in plans:
            if plan.action == "continue_evidence":
                assert plan.beam.passage is not None
                plan.passages = [plan.beam.passage]
                plan.step.passages = [_title(plan.beam.passage.document)]
            elif plan.action == "retrieve":
                plan.query = self._query(plan.beam)
                plan.step.query = plan.query
        wanted = list(dict.fromkeys(p.query for p in plans if p.query is not None and p.query not in self._retrieved))
        if wanted:
            replies = yield Retrieve(wanted)
            if not self.retrievals:
                self._read_question([d for docs, _ in replies for d in docs or []])
            self.retrievals += len(wanted)
            self._retrieved.update(zip(wanted, replies, strict=True))
        for plan in plans:
            if plan.query is None:
                continue
            docs, notes = self._retrieved[plan.query]
            if depth and docs is not None and self.config.later_k is not None:
                docs = docs[: self.config.later_k]
            plan.step.notes.extend(n.replace("answered without retrieval", "segment written without retrieval")
                                   for n in notes)
            if docs is None:
                plan.step.action = "no_retrieval"
            else:
                plan.passages = self._prepare(plan.beam, docs)
                plan.step.passages = [_title(p.document) for p in plan.passages]
                plan.step.notes.extend(p.note for p in plan.passages if p.note)
            yield Report("selfrag_retrieval", {
                "depth": depth, "beam": plan.beam.id, "query": plan.query, "passages": plan.step.passages,
                "notes": list(plan.step.notes)})

    def _read_question(self, docs: list[Document]) -> None:
        """Read the question as the rules and readers will from the first passages found on
        (:func:`~selfrag_langchain.chains.typos.read_question`); the answer keeps it as asked."""
        self.q = read_question(self.q, docs, self.notes)
        self.instruction = build_instruction(self.q.question, self.q.instruction, self.q.choices)

    def _query(self, beam: Node) -> str:
        """The question and the beam's previous segment: a fresh query for every segment (Algorithm 1)."""
        return f"{self.q.question} {beam.text}".strip() if beam.text else self.q.question

    def _prepare(self, beam: Node, docs: list[Document]) -> list[PreparedPassage]:
        # The answer so far shares the context window with the passage.
        return prepare_passages(self.rag.windowed(self._query(beam), docs), self.generator,
                                instruction=f"{self.instruction}\n{beam.context}",
                                max_new_tokens=self.config.max_segment_tokens,
                                max_tokens=self.config.max_passage_tokens, boundary=self.config.boundary)

    # ------------------------------------------------------------------ generate

    def _generate(self, depth: int, plans: list[_Plan], beams: list[Node]) -> Generator[Effect, Any, None]:
        self._mark_moot(plans)
        yield from self._mark_out_of_reach(depth, plans, [b.score(self.config.beam_score) for b in beams
                                                   if b.finished is not None and b.count])
        yield from self._mark_unheld(depth, plans)
        prompts: list[str] = []
        for plan in plans:
            items: list[PreparedPassage | None] = list(plan.passages) if plan.passages is not None else [None]
            prompts.extend(self._prompt(plan, p) for p, reason in zip(items, plan.moot, strict=True) if reason is None)
        budget = self.config.max_segment_tokens  # a segment is never cut for the answer budget, only for its own
        stop = list(RETRIEVE_STOPS) if self.format == "selfrag" else None
        sentence_end = self.format != "selfrag" and self.config.stop_at_segment_end
        result: LLMResult = (yield Generate(prompts, self.raw_continuation, stop, budget, sentence_end)) if prompts \
            else LLMResult(generations=[])
        start = n = 0
        for plan in plans:
            size = sum(reason is None for reason in plan.moot)
            generations = LLMResult(generations=result.generations[start : start + size])
            start += size
            plan.branches = to_branches(generations, plan.passages, plan.moot)
            for branch in plan.branches:
                cut = self._cut(branch)
                plan.generated.append(branch.stats.num_tokens if branch.stats is not None else None)
                if self.format != "selfrag" and branch.stats is not None and branch.raw.startswith(cut.raw):
                    # The sequence term of the kept sentence only (the released format keeps the paper's
                    # term over the whole generation, its reflection tokens included).
                    branch.stats = branch.stats.upto(len(cut.raw))
                branch.raw, branch.answer, branch.parsed = cut.raw, cut.text, parse_generation(cut.raw)
                if cut.capped:
                    branch.notes.append(f"no segment end within {budget} tokens: segment cut there")
                if cut.rest_dropped and self.format == "selfrag":
                    branch.notes.append("the generation went on past its first segment: kept the first")
                plan.cuts.append(cut)
                plan.ids.append(f"{depth}.{n}")
                n += 1
            plan.step.candidates = list(plan.ids)

    def _mark_moot(self, plans: list[_Plan]) -> None:
        """Why each of this step's candidates need not be written (:func:`~selfrag_langchain.chains.names.
        moot_reasons`): those selection would drop for their passage's names, or, at the first step of a search
        that declines, every one when the passages found for the question hold too few of its names (its answer
        is declined whatever they say). A question with answer choices writes every candidate."""
        items = [[p.evidence for p in plan.passages] if plan.passages is not None else [None] for plan in plans]
        evidence = [e for passages in items for e in passages]
        first = not self._evidence
        reasons = iter([None] * len(evidence) if self.q.choices else moot_reasons(
            self.q.question, evidence, self.config.min_name_coverage, declining=self.config.decline and first))
        for plan, passages in zip(plans, items, strict=True):
            plan.moot = [next(reasons) for _ in passages]
        if first and bool(evidence) and all(reason == NAMES_DECLINED for plan in plans for reason in plan.moot):
            self._declined_unwritten = NAMES_DECLINED

    def _mark_out_of_reach(self, depth: int, plans: list[_Plan], settled: list[float]
                           ) -> Generator[Effect, Any, None]:
        """Leave unwritten each candidate whose beam could not score near the ``beam_width`` best even with its
        passage's best-read sentence (:func:`~selfrag_langchain.chains.prospects.out_of_reach`; ``settled``: the
        scores of the finished beams, which stay in the running). Only while quoting, with a quoter that reads
        sentences and :attr:`~selfrag_langchain.chains.search_config.SearchConfig.writing_margin` set; a
        candidate a hard constraint will drop sets no bar, nor, at the first step, one whose passage gives no quote
        that speaks of what the question names. When fewer than ``beam_width`` candidates (and finished beams) set
        one, the bar is the last of them: the places after it would go to candidates selection drops for one that
        passes."""
        margin = self.config.writing_margin
        if margin is None or not self._quoting():
            return
        asked = [(plan, i) for plan in plans if plan.passages is not None
                 for i, reason in enumerate(plan.moot) if reason is None]
        if len(asked) + len(settled) <= 1:
            return
        passages = [plan.passages[i] for plan, i in asked if plan.passages is not None]
        taken = [frozenset(filter(None, (self._trace(n).quote for n in plan.beam.path()))) for plan, _ in asked]
        off_subject = (None if depth or self.config.constraints.min_name_coverage <= 0.0
                       else [off_subject_quotes(self.q.question, p) for p in passages])
        read = yield ReadProspects([p.evidence for p in passages], [(p.body, p.title) for p in passages], taken,
                                   off_subject)
        prospects, bars = prospects_of(read.relevance, read.best, self.config.weights, self.config.constraints,
                                       read.best_on_subject)
        bounds = [self._bound(plan, p) for (plan, _), p in zip(asked, prospects, strict=True)]
        bar_bounds = [self._bound(plan, p) for (plan, _), p in zip(asked, bars, strict=True)]
        # A candidate counting nothing towards the bar is one selection drops while another passes its checks, so
        # it cannot take a place among the kept beams beside one that counts: the bar is the last counted place.
        kept = max(1, min(self.config.beam_width, sum(b is not None for b in bar_bounds) + len(settled)))
        if not depth and self._answer_first():
            # One first segment is kept, and a candidate within retrieval_order_margin of the best may be it.
            kept, margin = 1, max(margin, self.config.retrieval_order_margin)
        reasons = out_of_reach(bounds, margin, bar_bounds, kept=kept, settled=settled, beams=True)
        for (plan, i), rel, reason in zip(asked, read.relevance, reasons, strict=True):
            plan.relevance[i] = rel
            if reason is not None:
                plan.moot[i] = reason
                plan.unreached.add(i)

    def _bound(self, plan: _Plan, prospect: float | None) -> float | None:
        """The score the beam of ``plan`` would have with one more segment scoring ``prospect`` (None: unknown)."""
        if prospect is None:
            return None
        return beam_bound(prospect, plan.beam.score_sum, plan.beam.count, self.config.beam_score)

    def _mark_unheld(self, depth: int, plans: list[_Plan]) -> Generator[Effect, Any, None]:
        """At the first step of a search that declines, leave every candidate unwritten, and decline, when no
        sentence of the step's passages holds an answer as the answer finder reads it
        (:func:`~selfrag_langchain.chains.declining.answer_unheld`): each quote its candidates could give would be
        declined. As with the names rule at this step, the passages later steps would retrieve are not waited
        for: an answer whose first segment cannot stand is declined."""
        if (depth or not self.config.bounds_holding or not self._quoting() or self._declined_unwritten
                or any(plan.passages is None for plan in plans)):
            return
        asked = [(plan, i) for plan in plans for i, reason in enumerate(plan.moot) if reason is None]
        if not asked:
            return
        sources = [(p.body, p.title) for p in (plan.passages[i] for plan, i in asked if plan.passages is not None)]
        holding = yield ReadHolding(sources, [frozenset()] * len(sources))
        if answer_unheld(holding, self.config.min_quote_holds_answer):
            for plan, i in asked:
                plan.moot[i] = ANSWER_UNHELD
            self._declined_unwritten = ANSWER_UNHELD

    def _prompt(self, plan: _Plan, passage: PreparedPassage | None) -> str:
        evidence = passage.evidence if passage is not None else None
        if self.format == "selfrag":
            return selfrag_step_prompt(self.instruction, plan.beam.context, plan.action, evidence)
        if self.raw_continuation:
            rendered = self.generator.format_prompt(rag_step_prompt(self.instruction, evidence))
            return rendered + plan.beam.context
        return rag_followup_prompt(self.instruction, evidence, plan.beam.context)

    def _cut(self, branch: Branch) -> CutSegment:
        finish = branch.stats.finish_reason if branch.stats is not None else None
        if self.format == "selfrag":
            return cut_selfrag(branch.raw, finish)
        return cut_plain(branch.raw, finish, end_of_reply_ends_answer=self.raw_continuation)

    # ------------------------------------------------------------------ judge and score

    def _invalid(self, plan: _Plan, i: int) -> str | None:
        """Why candidate ``i`` of ``plan`` cannot extend its beam, or None: it is empty, repeats an earlier
        segment of its beam, or (quoting) its passage holds no sentence its beam has not quoted."""
        if plan.moot[i] is not None:
            return f"not written: {plan.moot[i]}"
        cut = plan.cuts[i]
        if not cut.text:
            return "empty segment"
        if repeat_key(cut.text) in {repeat_key(node.text) for node in plan.beam.path()}:
            return "repeats an earlier segment of its beam"
        if plan.ids[i] in self._unquotable:
            return "its passage has no sentence its beam has not quoted"
        return None

    def _answer_first(self) -> bool:
        """Whether the first step keeps one candidate, chosen as short form chooses its answer (``answer_first``,
        for a question without answer choices, whose branches short form weighs by option)."""
        return self.config.answer_first and not self.q.choices

    def _quoting(self) -> bool:
        """Whether segments are answered by quotes: with a quoter, for a question without answer choices (whose
        answer is an option)."""
        return self.config.quoting and not self.q.choices

    def _quote_candidates(self, plans: list[_Plan]) -> Generator[Effect, Any, dict[str, Quote]]:
        """Quote every non-empty candidate written from a passage, in one request for the step, each from the
        sentences its beam has not quoted yet, and return them by candidate id (its trace keeps each, :meth:`_trace`).
        A candidate whose passage has nothing left to quote is marked (:meth:`_invalid`)."""
        if not self._quoting():
            return {}
        wanted = [(plan, i) for plan in plans if plan.passages is not None
                  for i, cut in enumerate(plan.cuts) if cut.text]
        if not wanted:
            return {}
        request = QuoteRequest.of(
            [(plan.cuts[i].text, plan.passages[i]) for plan, i in wanted if plan.passages is not None],
            taken=[frozenset(filter(None, (self._trace(n).quote for n in plan.beam.path()))) for plan, _ in wanted])
        found: list[Quote | None] = yield QuoteSegments(request)
        quotes: dict[str, Quote] = {}
        for (plan, i), quote in zip(wanted, found, strict=True):
            cid = plan.ids[i]
            if quote is None:
                self._unquotable.add(cid)
            else:
                quotes[cid] = quote
        return quotes

    def _judge(self, depth: int, plans: list[_Plan]) -> Generator[Effect, Any, None]:
        quotes = yield from self._quote_candidates(plans)
        batches, owners = [], []
        for plan in plans:
            valid = [b for i, b in enumerate(plan.branches) if self._invalid(plan, i) is None]
            if valid:
                batches.append((plan.beam.context or None, valid))
                owners.append(plan)
        replies = (yield CritiqueBatches(batches)) if batches else []
        judged = {id(b): c for (_, branches), critiques in zip(batches, replies, strict=True)
                  for b, c in zip(branches, critiques, strict=True)}
        # The unwritten candidates' passages still rank among the closest that a declined answer lists.
        unread = []
        for plan in plans:
            for i, (branch, reason) in enumerate(zip(plan.branches, plan.moot, strict=True)):
                if reason is None:
                    continue
                if i in plan.relevance:
                    judged[id(branch)] = Critique(relevance=plan.relevance[i])
                else:
                    unread.append(branch)
        if unread:
            relevance = yield JudgeRelevance([b.evidence or "" for b in unread])
            judged.update((id(b), Critique(relevance=dist)) for b, dist in zip(unread, relevance, strict=True))
        coverage = self._name_coverage(plans)
        subject = self._subject_checks(depth, plans, quotes)
        for plan in plans:
            critiques = [judged.get(id(b)) or Critique(notes=[f"not judged: {self._invalid(plan, i)}"])
                         for i, b in enumerate(plan.branches)]
            shares = [coverage.pop(0) for _ in plan.branches] if coverage is not None else None
            speaks = [subject.pop(0) for _ in plan.branches] if subject is not None else None
            traces = select(plan.branches, critiques, weights=self.config.weights, constraints=self.config.constraints,
                            name_coverage=shares, speaks_of_asked=speaks, quotes=[quotes.get(cid) for cid in plan.ids],
                            written=[reason is None for reason in plan.moot]).traces
            for branch, cut, trace, cid in zip(plan.branches, plan.cuts, traces, plan.ids, strict=True):
                self._evidence.append(branch.evidence)
                self.candidates.append(self._segment_trace(plan, branch, cut, trace, cid, depth))
                self._traces[cid] = self.candidates[-1]

    def _name_coverage(self, plans: list[_Plan]) -> list[float | None] | None:
        """Each of this step's candidates' share of the question's names, in order, for the selection
        constraint; None when none of the step's candidates (of every beam) holds enough, or the question has
        answer choices (:func:`~selfrag_langchain.chains.names.name_coverages`)."""
        if self.q.choices:
            return None
        passages = [b.evidence for plan in plans for b in plan.branches]
        return name_coverages(self.q.question, passages, self.config.min_name_coverage)

    def _subject_checks(self, depth: int, plans: list[_Plan], quotes: dict[str, Quote]) -> list[bool | None] | None:
        """Whether each of the first step's quoted candidates speaks of what the question names, in order, for the
        selection constraint (:func:`~selfrag_langchain.chains.declining.branch_subject_checks`); None at later
        steps, whose segments go on from one that does and may speak of its subject without naming it."""
        if depth or self.q.choices:
            return None
        candidates = [(b, quotes.get(cid)) for plan in plans for b, cid in zip(plan.branches, plan.ids, strict=True)]
        return branch_subject_checks(
            self.q.question, [quote.text if quote is not None else None for _, quote in candidates],
            [b.passage for b, _ in candidates], [b.evidence for b, _ in candidates], self.config.min_name_coverage)

    def _segment_trace(self, plan: _Plan, branch: Branch, cut: CutSegment, trace: BranchTrace, cid: str,
                       depth: int) -> SegmentTrace:
        fields = {name: getattr(trace, name) for name in BranchTrace.model_fields}
        fields["dropped"] = self._invalid(plan, plan.ids.index(cid)) or trace.dropped
        stats = branch.stats
        return SegmentTrace(**fields, id=cid, parent=plan.beam.id, depth=depth, action=plan.action,
                            num_tokens=plan.generated[plan.ids.index(cid)],
                            kept_tokens=stats.num_tokens if stats else None,
                            finish_reason=stats.finish_reason if stats else None, ends_beam=cut.ended)

    # ------------------------------------------------------------------ prune

    def _prune(self, depth: int, beams: list[Node], plans: list[_Plan]) -> list[Node]:
        pool = [b for b in beams if b.finished is not None]
        outranked: list[Node] = []
        traces = {c.id: c for c in self.candidates if c.depth == depth}
        for plan in plans:
            children = [self._child(plan, i, traces[cid]) for i, cid in enumerate(plan.ids) if not traces[cid].dropped]
            if not children and plan.beam.id is None:
                # Nothing written yet: rather a judged-bad answer than none (as short form does).
                kept = [i for i, c in enumerate(plan.cuts) if c.text]
                children = [self._child(plan, i, traces[plan.ids[i]]) for i in kept]
                if children:
                    self.notes.append("every first segment violated a hard constraint: kept the best-scoring anyway")
            if children and plan.beam.id is None and self._answer_first():
                # The first segment answers the question: chosen as short form chooses its answer, then extended.
                lead = best_index([c.score_sum for c in children], self.config.retrieval_order_margin)
                assert lead is not None  # every child has a score
                children = [children[lead]]
            if children:
                pool.extend(children)
            elif plan.unreached and plan.beam.id is not None and not self._ended(plan):
                # Its candidates would have been outranked: the beam leaves the search as an outranked one does.
                plan.step.notes.append(_NOT_CONTINUED)
                outranked.append(plan.beam)
            else:
                if plan.beam.id is not None:
                    plan.beam.finished = "no continuation survived (empty, a repeat, or dropped by a hard constraint)"
                    plan.step.notes.append(plan.beam.finished)
                elif self._declined_unwritten:
                    plan.beam.finished = f"nothing was written: {self._declined_unwritten}"
                    self.notes.append(plan.beam.finished)
                else:
                    plan.beam.finished = "the generator wrote nothing"
                    self.notes.append("no segment was generated")
                pool.append(plan.beam)
            self.steps.append(plan.step)
        if not pool:
            # Every beam was outranked by candidates that did not survive: they end here rather than none.
            for beam in outranked:
                beam.finished = _NOT_CONTINUED
            pool = outranked
        # Stable: on a tie, earlier beams and better-ranked passages first.
        pool.sort(key=lambda b: b.score(self.config.beam_score), reverse=True)
        return pool[: self.config.beam_width]

    @staticmethod
    def _ended(plan: _Plan) -> bool:
        """Whether every candidate the generator was asked to write came back empty: it ended its answer."""
        written = [cut for cut, reason in zip(plan.cuts, plan.moot, strict=True) if reason is None]
        return bool(written) and not any(cut.text for cut in written)

    def _child(self, plan: _Plan, i: int, trace: SegmentTrace) -> Node:
        cut, branch = plan.cuts[i], plan.branches[i]
        passage = plan.passages[i] if plan.passages is not None else None
        if self.format == "selfrag":
            context = plan.beam.context + selfrag_step_prefix(plan.action, passage.evidence if passage else None)
            context += cut.raw
        else:
            context = (plan.beam.context + cut.raw) if plan.beam.context else cut.raw.lstrip()
        node = Node(id=trace.id, parent=plan.beam, text=cut.text, context=context, passage=passage,
                    score_sum=plan.beam.score_sum + trace.scores.total, count=plan.beam.count + 1,
                    tokens=plan.beam.tokens + self._count(cut.raw, branch))
        reading = branch.stats.first(Group.RETRIEVE) if branch.stats is not None else None
        node.next_retrieve = dict(reading.probs) if reading is not None else None
        node.finished = cut.ended
        if node.finished is None and node.tokens >= self.config.max_new_tokens:
            node.finished = f"reached max_new_tokens ({self.config.max_new_tokens})"
        return node

    def _count(self, text: str, branch: Branch) -> int:
        count = getattr(self.generator, "count_tokens", None)
        if count is not None:
            return int(count(text))
        return branch.stats.num_tokens if branch.stats is not None else len(text.split())

    # ------------------------------------------------------------------ final segments and the result

    def _newly_final(self, beams: list[Node]) -> list[CitedSegment]:
        """Segments every surviving beam shares: no later step can change them."""
        paths = [b.path() for b in beams]
        shared = 0
        while all(len(p) > shared for p in paths) and len({id(p[shared]) for p in paths}) == 1:
            shared += 1
        if not self.standing and any(self._grounded(n) for n in paths[0][:shared]):
            self.standing = True
        if not self.standing:
            return []
        final = self._cite(paths[0][self.emitted : shared])
        self.emitted = shared
        return final

    def _trace(self, node: Node) -> SegmentTrace:
        """The trace of the candidate ``node`` was made from: its text, passage, the judge's reading, and its quote
        (the sentence of its passage that states it, as :meth:`_quote_candidates` found it; None without a quoter
        or a passage, and for a question with answer choices, whose answer is an option)."""
        return self._traces[node.id or ""]

    def _grounded(self, node: Node) -> bool:
        """Whether ``node`` lets the answer stand: it is written from a passage and not
        :func:`~selfrag_langchain.chains.declining.unfounded` (judged relevant and supported; quoted, judged
        relevant with a quote read as answering), it gives the kind of value the question asks for
        (:func:`~selfrag_langchain.chains.answer_kinds.gives_asked_kind`), the passage holds enough of the
        question's names (or, when
        none found does, the passages found so far together do: :func:`~selfrag_langchain.chains.names.
        names_enough`), and a quote speaks of what the question names
        (:func:`~selfrag_langchain.chains.declining.trace_speaks_of_asked`). A question with answer choices always
        gets one."""
        if node.passage is None:
            return False
        trace = self._trace(node)
        if unfounded(trace, self.config.min_quote_answering, self.config.min_quote_holds_answer):
            return False
        return bool(self.q.choices) or (
            gives_asked_kind(self.q.question, shown_answer(trace))
            and names_enough(self.q.question, node.passage.evidence, self._evidence, self.config.min_name_coverage)
            and trace_speaks_of_asked(self.q.question, trace, node.passage.evidence, self.config.min_name_coverage))

    def _cite(self, nodes: list[Node]) -> list[CitedSegment]:
        """``nodes`` as the answer's segments (:meth:`LongFormAnswer.cite
        <selfrag_langchain.chains.long_form_answer.LongFormAnswer.cite>`)."""
        return self.answer.cite([self._trace(node) for node in nodes])

    def _beam_summary(self, beam: Node) -> dict[str, Any]:
        return {"segments": [n.id for n in beam.path()], "text": " ".join(n.text for n in beam.path()),
                "score": beam.score(self.config.beam_score) if beam.count else None, "finished": beam.finished}

    def _result(self, beams: list[Node], declined: list[CitedSegment] | None = None) -> LongFormResult:
        return self.answer.result(
            [self._trace(node) for node in beams[0].path()], declined,
            beams=[BeamTrace(segments=[n.id or "" for n in b.path()], finished=b.finished,
                             score=b.score(self.config.beam_score) if b.count else 0.0) for b in beams],
            steps=self.steps, candidates=self.candidates, retrievals=self.retrievals, notes=self.notes)


def _title(doc: Document) -> str:
    return str(doc.metadata.get("title") or " ".join(doc.page_content.split())[:40])

