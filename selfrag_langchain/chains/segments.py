"""Long-form segments: the prompt of each step, and cutting one segment out of a generation.

A segment is what a Self-RAG generator writes up to its next reflection token (the released format:
``[Relevant]text[Fully supported]`` and then the next Retrieve token or ``[Utility:k]``), or one sentence
(pysbd) of a plain instruct generator. Generations are asked to stop at the Retrieve tokens; a
generation that never ends a segment is cut at the step's token budget, and the trace says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from selfrag_langchain.prompts import FROM_THE_PASSAGE, generator_prompt
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.tokens import (
    CONTINUE_EVIDENCE,
    NO_RETRIEVAL,
    PARAGRAPH_END,
    PARAGRAPH_START,
    RETRIEVAL,
    parse_generation,
    strip_reflection_tokens,
)

RETRIEVE_STOPS: tuple[str, ...] = (RETRIEVAL, NO_RETRIEVAL, CONTINUE_EVIDENCE)
"""Where a Self-RAG generator's segment ends: the Retrieve token that opens the next one."""

ACTION_TOKENS = {"retrieve": RETRIEVAL, "no_retrieval": NO_RETRIEVAL, "continue_evidence": CONTINUE_EVIDENCE}


def selfrag_step_prefix(action: str, evidence: str | None) -> str:
    """What opens a step in the released format: ``[Retrieval]<paragraph>...</paragraph>``, ``[No Retrieval]``
    or ``[Continue to Use Evidence]`` (the passage it keeps is already in the prompt)."""
    if action == "retrieve":
        return f"{RETRIEVAL}{PARAGRAPH_START}{evidence}{PARAGRAPH_END}"
    return ACTION_TOKENS[action]


def selfrag_step_prompt(instruction: str, context: str, action: str, evidence: str | None) -> str:
    """The released generator's prompt, the answer so far as it wrote it (``context``), and the step's opening."""
    return generator_prompt(instruction) + context + selfrag_step_prefix(action, evidence)


def rag_step_prompt(instruction: str, evidence: str | None) -> str:
    """The request a plain instruct generator answers; the answer so far continues it as the reply.

    With a passage it is short form's request (:func:`~selfrag_langchain.prompts.rag_prompt`) asking for a
    few sentences: told only to "use" the passage, SmolLM2-135M's first sentence wandered from it, and the
    sentence quoted for it with it (on three question lists, 87 of 120 long-form answers right against 96
    with this wording).
    """
    if evidence is None:
        return f"Question: {instruction}\nAnswer the question in a few sentences."
    return f"{FROM_THE_PASSAGE}\n\nPassage: {evidence}\n\nQuestion: {instruction}\nAnswer in a few sentences."


def rag_followup_prompt(instruction: str, evidence: str | None, answer_so_far: str) -> str:
    """For a generator whose reply cannot be continued as raw text (chat models): ask for the next sentence."""
    if not answer_so_far:
        return rag_step_prompt(instruction, evidence)
    source = "" if evidence is None else f"Passage: {evidence}\n\n"
    return (f"{source}Question: {instruction}\nAnswer so far: {answer_so_far}\n"
            "Write the next sentence of the answer" + (", using the passage." if evidence else "."))


def raw_continuation(generator: Any) -> Any | None:
    """A copy of ``generator`` that reads prompts as raw text, so a reply can be continued where it stops.

    The step prompt is then the generator's own chat rendering of the request followed by the answer so
    far. None when the backend cannot do that (chat models, backends without ``format_prompt``), or when
    the copy still wraps prompts.
    """
    fields = getattr(type(generator), "model_fields", {})
    if "chat_template" not in fields or not hasattr(generator, "format_prompt"):
        return None
    copy = generator.model_copy(update={"chat_template": False})
    try:
        return copy if copy.format_prompt("probe") == "probe" else None
    except Exception:  # a backend that cannot tell without a server: use the follow-up prompt instead
        return None


@dataclass(frozen=True)
class CutSegment:
    """One segment cut out of a generation."""

    text: str
    """What a person reads: no reflection tokens, stripped."""
    raw: str
    """The segment as the generator wrote it, to continue the prompt of the next step."""
    ended: str | None = None
    """Why the answer ends with this segment, if it does."""
    capped: bool = False
    """The generation reached its token budget before the segment ended."""
    rest_dropped: bool = False
    """The generation went on past the segment end; the rest was dropped."""


def cut_selfrag(text: str, finish_reason: str | None) -> CutSegment:
    """The first segment of a released-format generation (``[Relevant]text[Fully supported]``)."""
    parsed = parse_generation(text)
    segments = [s for s in parsed.segments if s.text.strip() or s.support or s.relevance]
    if not segments:
        return CutSegment("", "", ended="the generator wrote nothing more")
    first = segments[0]
    raw = (first.relevance or "") + first.text + (first.support or "")
    clean = strip_reflection_tokens(first.text)
    ended = None
    if parsed.utility is not None:
        ended = f"the generator judged the answer complete ({parsed.utility})"
    elif not clean:
        ended = "the generator wrote nothing more"
    capped = finish_reason == "length" and first.support is None and parsed.utility is None
    return CutSegment(clean, raw, ended, capped, rest_dropped=len(segments) > 1)


def cut_plain(text: str, finish_reason: str | None, *, end_of_reply_ends_answer: bool) -> CutSegment:
    """The first sentence of a plain generation.

    With ``end_of_reply_ends_answer`` (the reply is continued as raw text), a generation that ends after
    one sentence means the generator finished its answer there.
    """
    clean = strip_reflection_tokens(text)
    sentences = split_sentences(clean)
    if not sentences:
        return CutSegment("", "", ended="the generator wrote nothing more")
    first = sentences[0]
    capped = finish_reason == "length" and len(sentences) == 1
    ended = None
    if end_of_reply_ends_answer and finish_reason not in {"length", "sentence"} and len(sentences) == 1:
        ended = "the generator ended its answer"
    # The raw form keeps the space the generator put before the sentence, so the reply reads on as written.
    lead = text[: len(text) - len(text.lstrip())]
    return CutSegment(first, lead + first, ended, capped, rest_dropped=len(sentences) > 1)


def repeat_key(text: str) -> str:
    """A segment's words, lower-cased: two segments with the same key say the same thing."""
    return " ".join(re.findall(r"\w+", text.lower()))
