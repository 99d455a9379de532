"""The settings one long-form search reads, as a frozen value.

:class:`SearchConfig` exists so the beam search (:mod:`~selfrag_langchain.chains.beam`) reads plain values rather
than the Runnable that runs it: :meth:`SelfRAGLongForm.search_config
<selfrag_langchain.chains.long_form.SelfRAGLongForm.search_config>` builds one per question from its fields, and
nothing the search reads can change under it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from selfrag_langchain.scoring import HardConstraints, ScoringWeights
from selfrag_langchain.text.boundary import Boundary


@dataclass(frozen=True)
class SearchConfig:
    """What one long-form search reads of its settings (:class:`~selfrag_langchain.chains.controls.BeamSettings`,
    :class:`~selfrag_langchain.chains.controls.LoopSettings`), resolved for its generator and judge."""

    max_depth: int
    """Most segments in an answer."""
    beam_width: int
    """Beams kept after each segment."""
    beam_score: Literal["sum", "mean"]
    """How beams are ranked: the sum or the mean of their segment scores."""
    answer_first: bool
    """The first step keeps one candidate, chosen as short form chooses its answer; later steps extend it."""
    retrieval_order_margin: float
    """With ``answer_first``: of the first step's candidates within this much of the best, the one whose passage the
    retriever ranked first is kept."""
    max_new_tokens: int
    """Token budget of the whole answer: a beam stops growing once its segments reach it."""
    max_segment_tokens: int
    """Generation budget of one segment."""
    later_k: int | None
    """Passages judged for each segment after the first (the first of those found or given); None: all."""
    max_passage_tokens: int | None
    """Passages are cut to this many tokens (and always to fit the generator's context window)."""
    stop_at_segment_end: bool
    """Ask the backend to stop a plain-prompt segment once its sentence has ended."""
    prompt_format: Literal["selfrag", "rag"]
    """The generator's prompt format, resolved (``auto`` is never left)."""
    raw_continuation: bool
    """A plain-prompt generator continues its own reply as raw text (a raw-text copy of it exists)."""
    inline: bool
    """The generator judges itself: the Retrieve reading it ends a segment with decides the next step."""
    judges_retrieval: bool
    """The retrieve decision reads the judge's Retrieve distribution (``adaptive`` and ``hard`` modes)."""
    quoting: bool
    """A quoter answers each segment written from a passage with that passage's sentence."""
    decline: bool
    """Decline an answer none of whose segments stands."""
    min_name_coverage: float
    """The share of the question's names a segment's passage (or the passages found) must hold."""
    min_quote_answering: float
    """The least probability that a quote answers the question for a quoted segment to stand (read when the quote
    was not read by an answer finder)."""
    min_quote_holds_answer: float
    """The least probability that a quote holds an answer, read by an answer finder, for a quoted segment to
    stand."""
    bounds_holding: bool
    """Decline at the first step, before writing, when no sentence of its passages holds an answer as the answer
    finder reads it (declining, quoting with a finder, ``min_quote_holds_answer`` set)."""
    writing_margin: float | None
    """Leave unwritten a candidate whose beam, even with its passage's best-read sentence, would score more than
    this below the ``beam_width``-th best (:mod:`~selfrag_langchain.chains.prospects`); None: every candidate is
    written (the setting is off, or no quoter reads sentences)."""
    weights: ScoringWeights
    """The weights of a segment's score."""
    constraints: HardConstraints
    """The hard constraints that drop candidates."""
    boundary: Boundary
    """Where passages are neutralised for the generator and the judge."""
    reflector: str
    """The judge's name, recorded in the result."""
    settings: Mapping[str, Any]
    """The knobs of the run, recorded in the result."""
