"""A Self-RAG answer as LangChain 1.x content: one text block whose citation annotations point into the text.

Pure functions over the results, shared by ``ChatSelfRAG``'s invoke and stream, so a streamed answer and an
invoked one carry the same text and the same annotations. Indices are character offsets into the text block
(``TextContentBlock.text``), as ``langchain_core.messages.content.Citation`` defines them:

- long form: ``start_index``/``end_index`` span the cited segment as it stands in the answer, its ``[n]``
  marker and final punctuation included ("Lava is molten rock [1]."); ``extras["marker_start"]`` and
  ``extras["marker_end"]`` span the ``[n]`` marker alone, so a UI can turn it into a link;
- short form: the answer has no marker and cites one passage, so the citation spans the whole answer.

``extras["support"]`` is the judge's verdict on the claim against the passage it cites (``supported``,
``partially supported``, ``not supported``); a declined answer's citations list the closest passages
and carry none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.messages.content import Citation, TextContentBlock, create_citation

from selfrag_langchain.chains.declining import DECLINED, quote_verdict, verdict
from selfrag_langchain.results import CitedSegment, LongFormResult, SelfRAGResult, join_segments


def added_text(previous: Sequence[CitedSegment], segment: CitedSegment) -> str:
    """What ``segment`` adds to the answer written from ``previous``: its marked text, with the space
    ``join_segments`` puts before it, so the pieces of a stream concatenate to the answer exactly."""
    before = join_segments(list(previous))
    return join_segments([*previous, segment])[len(before):]


def citation(doc: Document, start: int, end: int, **extras: Any) -> Citation:
    """A citation annotation of ``doc`` over ``text[start:end]``: the passage's title, its text as
    ``cited_text``, ``url`` when its metadata has one (``url``, or a ``source`` with a scheme), and its
    ``source``, citation number and, for a file's passage, ``page`` (PDF) or ``section`` in ``extras``."""
    meta = doc.metadata
    source = meta.get("source")
    url = meta.get("url") or (source if isinstance(source, str) and "://" in source else None)
    return create_citation(
        url=str(url) if url else None,
        title=str(meta["title"]) if meta.get("title") else None,
        start_index=start,
        end_index=end,
        cited_text=doc.page_content,
        citation=meta.get("citation"),
        source=str(source) if source is not None else None,
        **{key: meta[key] for key in ("page", "section") if meta.get(key) is not None},
        **extras,
    )


def long_form_annotations(segments: Sequence[CitedSegment], citations: Sequence[Document]) -> list[Citation]:
    """One citation per cited segment, in answer order (a passage cited by two segments is annotated
    twice, once where each segment stands)."""
    annotations: list[Citation] = []
    offset = 0
    for i, segment in enumerate(segments):
        piece = added_text(segments[:i], segment)
        offset += len(piece)
        if segment.citation is None:
            continue
        marked = segment.marked()
        start = offset - len(marked)
        marker = marked.rfind(f"[{segment.citation}]")
        annotations.append(citation(
            citations[segment.citation - 1], start, offset,
            marker_start=start + marker, marker_end=start + marker + len(f"[{segment.citation}]"),
            segment_id=segment.segment_id or None, support=segment.support,
        ))
    return annotations


def declined_annotations(answer: str, passages: Sequence[Document]) -> list[Citation]:
    """The citations of a declined short-form answer (``declining.declined_segments`` joined): each closest
    passage's title and marker, found in order after the statement, its final punctuation included."""
    annotations: list[Citation] = []
    start = len(DECLINED) + 1
    for doc in passages:
        marker = f"[{doc.metadata['citation']}]"
        at = answer.find(f" {marker}", start) + 1
        if at <= 0:
            break
        end = at + len(marker)
        while end < len(answer) and answer[end] != " ":  # the punctuation with_marker put after it
            end += 1
        annotations.append(citation(doc, start, end, marker_start=at, marker_end=at + len(marker)))
        start = end + 1
    return annotations


def annotations_for(result: LongFormResult | SelfRAGResult) -> list[Citation]:
    """The citations of a result's answer: per segment (long form), or the passage over the whole
    answer (short form)."""
    if isinstance(result, LongFormResult):
        return long_form_annotations(result.segments, result.citations)
    if result.declined:
        return declined_annotations(result.answer, result.citations)
    chosen = result.branches[result.selected] if result.selected is not None else None
    judge = quote_verdict if result.quoted else verdict
    support = judge(chosen.distributions) if chosen is not None and chosen.passage is not None else None
    return [citation(doc, 0, len(result.answer), support=support) for doc in result.citations]


def text_block(text: str, annotations: list[Citation] | None = None, index: int | None = None
               ) -> TextContentBlock:
    """The text content block; ``index`` 0 on streamed chunks, so LangChain merges them into one block."""
    block = TextContentBlock(type="text", text=text)
    if annotations:
        block["annotations"] = annotations
    if index is not None:
        block["index"] = index
    return block


def cited_sources(message: BaseMessage) -> list[dict[str, Any]]:
    """``[{"citation": n, "title": ...}]`` of the passages an answer's annotations cite, each once, in
    order: what ``SelfRAGConversation`` reads from an earlier answer to find the conversation's subject."""
    sources: dict[Any, dict[str, Any]] = {}
    notes = [note for block in message.content_blocks if block["type"] == "text"
             for note in block.get("annotations") or []]
    for note in notes:
        if note.get("type") != "citation":
            continue
        number = (note.get("extras") or {}).get("citation")
        key = number if number is not None else note.get("title")
        sources.setdefault(key, {"citation": number, "title": note.get("title")})
    return list(sources.values())
