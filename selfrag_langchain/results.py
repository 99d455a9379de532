"""What a Self-RAG run returns: the answer, its citations, and the trace of every decision; for long form,
the cited segments, their numbered passages and the whole beam search.

Pydantic models, so a result serialises to JSON (``result.model_dump_json()``) and reads back
(``SelfRAGResult.model_validate_json``, ``LongFormResult.model_validate_json``) with its ``Document``
citations intact.
"""

from __future__ import annotations

import re
from typing import Any, Literal

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
    quote: str | None = None
    """With a quoter: the sentence of this branch's passage that states its answer, the answer it gives when
    chosen (:class:`~selfrag_langchain.chains.quotes.PassageQuoter`); the branch is then scored as its quote
    (:func:`~selfrag_langchain.chains.selection.quoted_critique`)."""
    quote_answering: float | None = None
    """With a quoter that reads sentences: the probability that :attr:`quote` answers the question."""
    quote_holds_answer: float | None = None
    """With a quoter that has an answer finder: the probability that :attr:`quote` holds a phrase answering the
    question (what declining reads)."""
    written: bool = True
    """Whether this branch was in the running to be chosen. False when it was settled out of it before anything
    was generated for it: by the names rule (:func:`~selfrag_langchain.chains.names.moot_reasons`) or, quoting, by
    its prospect (:func:`~selfrag_langchain.chains.prospects.out_of_reach`); its notes say why. A branch whose
    quote its passage's readings settled before writing (``settle_quotes``) is in the running with no generation
    (:attr:`raw_generation` empty), answered and scored by that quote; its notes say so too."""
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
    quoted: bool = False
    """The answer is the cited passage's sentence that states the chosen branch's generation
    (``branches[selected].quote``; the generation stays in ``branches[selected].answer``)."""
    option_scores: dict[str, float] | None = None
    """Closed-set questions: the summed score of the branches per option."""
    declined: bool = False
    """The chosen branch was not judged relevant and supported, or its passage holds too few of the question's
    names (``min_name_coverage``): ``answer`` says the sources do not answer the question and ``citations`` are
    the closest passages; ``selected`` is still the branch that lost."""
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
            if b.quote_answering is not None:  # scored as its quote: this reading replaced the generation's IsUse
                judged += f"; its quote answers {b.quote_answering:.2f}"
            if b.quote_holds_answer is not None:
                judged += f", holds an answer {b.quote_holds_answer:.2f}"
            mark = "*" if b.index == self.selected else " "
            state = f" ({b.dropped})" if b.dropped else ""
            state += "" if b.written else " (not written)"
            lines.append(f"{mark} [{b.index}] {title}: {judged or 'not judged'}; score {b.scores.total:.3f}{state}")
        if self.quoted and self.selected is not None:
            lines.append(f"quoted from its passage; branch [{self.selected}] wrote: "
                         f"{' '.join(self.branches[self.selected].answer.split())}")
        return lines


Action = Literal["retrieve", "no_retrieval", "continue_evidence"]
"""What a beam did before writing a segment: retrieve anew, write without a passage, or keep its passage."""

_TRAILING_PUNCTUATION = re.compile(r"([.!?;:]+[\"')\]]*)$")


def with_marker(text: str, citation: int | None) -> str:
    """``text`` with its citation marker, placed before the final punctuation as ALCE writes citations
    ("Lava is molten rock [1]."), so a sentence splitter keeps the marker with its sentence."""
    if citation is None:
        return text
    match = _TRAILING_PUNCTUATION.search(text)
    if match is None:
        return f"{text} [{citation}]"
    return f"{text[: match.start()].rstrip()} [{citation}]{match.group(1)}"


def join_segments(segments: list[CitedSegment]) -> str:
    """The answer: marked segments joined by a space, except before one that opens with punctuation (the
    rest of a sentence cut at the token budget)."""
    text = ""
    for segment in segments:
        marked = segment.marked()
        text += marked if not text or marked[:1] in ",.;:!?)" else f" {marked}"
    return text


class CitedSegment(BaseModel):
    """One segment of the answer: its text and the number of the passage it was written from."""

    text: str
    """The segment without its marker or reflection tokens."""
    citation: int | None = None
    """1-based number of the passage in ``LongFormResult.citations``; None when written without one."""
    source: Document | None = None
    """The cited passage (``metadata["citation"]`` set), so a streaming reader can show it at once."""
    segment_id: str = ""
    """The segment's id in the trace (``LongFormResult.candidates``)."""
    support: str | None = None
    """The judge's verdict on the segment against its passage: ``supported``, ``partially supported`` or
    ``not supported`` (for a quote of the passage, ``supported`` unless the passage was judged irrelevant);
    None for a segment written without a passage (or a declined answer's lines)."""

    def marked(self) -> str:
        """The text with its ``[n]`` marker, as it appears in the answer."""
        return with_marker(self.text, self.citation)


class SegmentTrace(BranchTrace):
    """One generated candidate segment: a branch of one beam at one depth, judged and scored."""

    id: str
    """``"{depth}.{n}"``: the n-th candidate generated at that depth."""
    parent: str | None
    """The id of the beam's previous segment; None at depth 0."""
    depth: int
    action: Action
    num_tokens: int | None = None
    """Tokens the backend generated for this candidate (the segment may be cut from a longer generation)."""
    kept_tokens: int | None = None
    """Tokens of the segment kept from that generation: the ones its sequence term is computed over."""
    finish_reason: str | None = None
    ends_beam: str | None = None
    """Why the beam ends after this segment (an IsUse token, the end of the generation, ...); None if not."""


class BeamStep(BaseModel):
    """How one beam was extended at one depth: its retrieve decision, the retrieval, the candidates."""

    depth: int
    beam: str | None
    """The id of the beam's last segment; None for the empty beam at depth 0."""
    action: Action
    decision: RetrieveDecision
    decision_source: Literal["mode", "generation", "judge"] = "judge"
    """Where the Retrieve distribution came from: none needed (``always``/``never``), the Retrieve token the
    generator ended its previous segment with (inline), or the judge asked with the answer so far."""
    query: str | None = None
    """The retrieval query (question and previous segment), when the beam retrieved."""
    passages: list[str] = Field(default_factory=list)
    """Titles (or openings) of the passages retrieved or kept for this step."""
    candidates: list[str] = Field(default_factory=list)
    """Ids of the segments generated from this beam at this depth."""
    notes: list[str] = Field(default_factory=list)


class BeamTrace(BaseModel):
    """A surviving beam: its segments in order and its score."""

    segments: list[str]
    """Segment ids, first to last."""
    score: float
    """The sequence score: the mean of the segments' scores (or their sum, with ``beam_score="sum"``)."""
    finished: str | None = None
    """Why the beam stopped growing; None if the search stopped at ``max_depth`` first."""


class LongFormResult(BaseModel):
    """The outcome of one long-form question."""

    question: str
    answer: str
    """Segments joined, each with its ``[n]`` marker; no reflection tokens."""
    segments: list[CitedSegment]
    citations: list[Document]
    """The passages the answer cites, in order of first use, ``metadata["citation"] = n``."""
    retrievals: int
    """How many retrievals the search ran (one per beam and depth that retrieved)."""
    declined: bool = False
    """No segment of the best beam was judged relevant and supported from a passage holding enough of the
    question's names (``min_name_coverage``): ``segments`` say the sources do not answer the question and list
    the closest passages (``citations``); ``beams[selected]`` is still the beam that lost."""
    quoted: bool = False
    """The segments written from passages are the passages' sentences that state them (each candidate's
    ``quote``; the generations stay in ``candidates``)."""
    selected: int | None
    """Index of the winning beam in ``beams``; None if nothing was generated."""
    beams: list[BeamTrace]
    """The beams that survived the search, best first."""
    steps: list[BeamStep]
    """Every beam expansion, depth by depth."""
    candidates: list[SegmentTrace]
    """Every candidate segment generated, kept or not."""
    reflector: str
    notes: list[str] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)

    def __str__(self) -> str:
        return self.answer

    @property
    def retrieved(self) -> bool:
        return self.retrievals > 0

    def candidate(self, segment_id: str) -> SegmentTrace:
        """The trace of one segment by id."""
        return next(c for c in self.candidates if c.id == segment_id)

    def summary_lines(self) -> list[str]:
        """One line per beam expansion and its candidates, for a terminal."""
        lines = []
        kept = set(self.beams[self.selected].segments) if self.selected is not None else set()
        for step in self.steps:
            d = step.decision
            p = f" p(Retrieve)={d.probability:.2f}" if d.probability is not None else ""
            query = f' query "{step.query}"' if step.query else ""
            lines.append(f"depth {step.depth} beam {step.beam or '-'}:{p} -> {step.action}{query}")
            for cid in step.candidates:
                c = self.candidate(cid)
                title = (c.passage.metadata.get("title") or c.passage.page_content[:30]) if c.passage else "no passage"
                mark = "*" if cid in kept else " "
                state = f" ({c.dropped})" if c.dropped else ""
                lines.append(f"  {mark} {cid} [{title}] score {c.scores.total:.3f}{state}: {c.answer[:60]}")
            lines.extend(f"  note: {n}" for n in step.notes)
        for i, beam in enumerate(self.beams):
            mark = "*" if i == self.selected else " "
            lines.append(f"{mark} beam {' > '.join(beam.segments) or '(empty)'}: score {beam.score:.3f}; "
                         f"{beam.finished or 'still growing'}")
        if self.quoted:
            lines.append("the segments are quoted from their passages (each candidate's quote; above, what it wrote)")
        return lines
