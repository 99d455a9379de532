"""Long form's answer, assembled from the segments its search settled on.

The beam search (:mod:`~selfrag_langchain.chains.beam`) decides which segments are final and whether the answer
stands; :class:`LongFormAnswer` turns them into what the reader gets: each segment cited (a passage keeps the
number of its first use), shown as its quote when it has one, with the judge's verdict; the declined answer
when no segment stands; and the :class:`~selfrag_langchain.results.LongFormResult`.
"""

from __future__ import annotations

from collections.abc import Sequence

from selfrag_langchain.chains.citations import CitationNumbers
from selfrag_langchain.chains.declining import (
    closest_passages,
    declined_segments,
    quote_verdict,
    shown_answer,
    verdict,
)
from selfrag_langchain.chains.search_config import SearchConfig
from selfrag_langchain.results import (
    BeamStep,
    BeamTrace,
    CitedSegment,
    LongFormResult,
    SegmentTrace,
    join_segments,
)


class LongFormAnswer:
    """One question's answer as its segments are settled; each segment is given as its candidate's trace
    (its text, passage, quote and the judge's distributions)."""

    def __init__(self, question: str, config: SearchConfig) -> None:
        self.question = question
        self.config = config
        self.numbers = CitationNumbers()

    def cite(self, segments: Sequence[SegmentTrace]) -> list[CitedSegment]:
        """Segments with their citation numbers; a passage keeps the number of its first use, so the streamed
        segments and the final answer agree. A segment with a quote is its quote: supported by its passage word
        for word."""
        cited = []
        for trace in segments:
            judge = quote_verdict if trace.quote is not None else verdict
            n = self.numbers.number(trace.passage)
            cited.append(CitedSegment(text=shown_answer(trace), citation=n,
                                      source=self.numbers.document(n) if n is not None else None,
                                      segment_id=trace.id,
                                      support=judge(trace.distributions) if trace.passage is not None else None))
        return cited

    def declined(self, candidates: Sequence[SegmentTrace]) -> list[CitedSegment]:
        """The declined answer: the statement, then the passages of all ``candidates`` judged most relevant."""
        return declined_segments(closest_passages(candidates), self.config.boundary)

    def result(self, winner: Sequence[SegmentTrace], declined: list[CitedSegment] | None = None, *,
               beams: list[BeamTrace], steps: list[BeamStep], candidates: list[SegmentTrace], retrievals: int,
               notes: list[str]) -> LongFormResult:
        """The result: the ``winner`` beam's segments cited (or the ``declined`` answer), with the search's trace."""
        segments = declined if declined is not None else self.cite(winner)
        return LongFormResult(
            question=self.question,
            answer=join_segments(segments),
            segments=segments,
            citations=[s.source for s in segments if s.source is not None] if declined is not None
            else list(self.numbers.documents),
            retrievals=retrievals,
            declined=declined is not None,
            quoted=declined is None and any(trace.quote for trace in winner),
            selected=0 if winner else None,
            beams=beams,
            steps=steps,
            candidates=candidates,
            reflector=self.config.reflector,
            notes=notes,
            settings=dict(self.config.settings),
        )
