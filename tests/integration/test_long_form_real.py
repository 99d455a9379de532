"""Long-form Self-RAG on the real SmolLM2-135M with the critic reflector, over a few demo-corpus passages in
an in-memory store: beam 2, depth 2, short segments. The model's words are not asserted; what the search
must guarantee is."""

from __future__ import annotations

import pytest
from langchain_core.vectorstores import InMemoryVectorStore

from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.corpus.demo import load_demo_documents
from selfrag_langchain.judging import CriticReflector
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.results import CitedSegment, LongFormResult, join_segments
from selfrag_langchain.text.sentences import split_sentences

pytestmark = pytest.mark.slow

TITLES = ("Volcano", "Lava", "Magma", "Plate tectonics", "Earthquake", "Mona Lisa", "Eiffel Tower")
QUESTION = "What is a volcano?"


@pytest.fixture(scope="module")
def retriever(minilm):
    docs = [d for d in load_demo_documents() if d.metadata["title"] in TITLES]
    return InMemoryVectorStore.from_documents(docs, minilm).as_retriever(search_kwargs={"k": 2})


def test_long_form_on_the_default_model(smollm2: TransformersLLM, retriever) -> None:
    rag = SelfRAGLongForm(generator=smollm2, reflector=CriticReflector(smollm2), retriever=retriever, k=2,
                          beam_width=2, max_depth=2, max_segment_tokens=48)
    items = list(rag.stream(QUESTION))
    *segments, result = items
    assert isinstance(result, LongFormResult) and all(isinstance(s, CitedSegment) for s in segments)
    assert segments == result.segments and result.answer == join_segments(segments)
    assert result.segments and all(s.text for s in result.segments)

    # Per-segment retrieval: the first step retrieves for the question; a beam that goes on retrieves
    # (when its critic asks for it) with the question and its own previous segment.
    first = result.steps[0]
    assert first.query == QUESTION and first.decision_source == "judge" and first.decision.probability is not None
    for step in result.steps[1:]:
        if step.action == "retrieve":
            previous = result.candidate(step.beam).answer
            assert step.query == f"{QUESTION} {previous}"
    assert result.retrievals >= 2, "\n".join(result.summary_lines())
    assert result.retrievals == len({s.query for s in result.steps if s.action == "retrieve"})

    # Every candidate was judged by the critic and scored; later ones with the preceding sentences.
    for c in result.candidates:
        if not c.dropped:
            assert c.distributions["IsUse"] and (c.passage is None or c.distributions["IsSup"])
    # Each citation number points at the passage its segment was generated from, numbered by first use.
    for segment in result.segments:
        trace = result.candidate(segment.segment_id)
        if segment.citation is None:
            assert trace.passage is None
        else:
            assert result.citations[segment.citation - 1].page_content == trace.passage.page_content
    assert [d.metadata["citation"] for d in result.citations] == list(range(1, len(result.citations) + 1))
    # Markers stay with their sentences.
    assert all(s.marked() in result.answer for s in result.segments)
    assert len(split_sentences(result.answer)) >= len([s for s in result.segments if s.text[:1].isupper()])
    assert LongFormResult.model_validate_json(result.model_dump_json()) == result
