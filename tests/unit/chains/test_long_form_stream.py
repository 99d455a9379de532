"""Streaming long-form answers: segments come as soon as every surviving beam shares them, in answer order,
then the result; a reader that stops stops the generation; astream_events reports the search."""

from __future__ import annotations

from langchain_core.output_parsers import StrOutputParser
from langchain_core.runnables import RunnableLambda

from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.judging import InlineReflector
from selfrag_langchain.results import CitedSegment, LongFormResult
from tests.fakes.scripted_long_form import (
    FULL,
    QUESTION,
    REL,
    RecordingRetriever,
    ScriptedLongFormLLM,
    doc,
    greedy_trap,
    judged,
)


def _chain_of(depth: int) -> tuple[SelfRAGLongForm, ScriptedLongFormLLM]:
    """Beam 1 over ``depth`` steps, one passage each."""
    llm = ScriptedLongFormLLM(script={(d, "Eiffel Tower"): judged(f"Fact number {d}.", REL, FULL)
                                      for d in range(depth)})
    retriever = RecordingRetriever(default=[doc("Eiffel Tower")])
    rag = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm), retriever=retriever,
                          k=1, beam_width=1,
                          max_depth=depth)
    return rag, llm


def test_with_one_beam_each_segment_arrives_right_after_its_step() -> None:
    rag, llm = _chain_of(3)
    seen = []
    for item in rag.stream(QUESTION):
        seen.append((type(item).__name__, len(llm.calls)))
    assert seen == [("CitedSegment", 1), ("CitedSegment", 2), ("CitedSegment", 3), ("LongFormResult", 3)]


def test_a_reader_that_stops_stops_the_generation() -> None:
    rag, llm = _chain_of(4)
    stream = rag.stream(QUESTION)
    first = next(stream)
    assert isinstance(first, CitedSegment) and first.text == "Fact number 0." and first.citation == 1
    stream.close()
    assert len(llm.calls) == 1
    # Breaking out of a for loop is the same.
    rag, llm = _chain_of(4)
    for _ in rag.stream(QUESTION):
        break
    assert len(llm.calls) == 1


def test_with_two_beams_a_segment_waits_until_every_beam_shares_it() -> None:
    llm, retriever = greedy_trap()
    rag = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm), retriever=retriever,
                          k=2, max_depth=2, answer_first=False)
    order = [(item.text if isinstance(item, CitedSegment) else "result", len(llm.calls))
             for item in rag.stream(QUESTION)]
    # After depth 0 the beams start with different segments: nothing is final. After depth 1 both surviving
    # beams start with the Paris segment; the second segment is final at the end.
    assert order == [("Paris is the capital of France.", 2), ("The Louvre is in Paris.", 2), ("result", 2)]


def test_the_first_segment_chosen_alone_arrives_right_after_the_first_step() -> None:
    llm, retriever = greedy_trap()
    rag = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm), retriever=retriever,
                          k=2, max_depth=2)  # answer_first, the default
    order = [(item.text if isinstance(item, CitedSegment) else "result", len(llm.calls))
             for item in rag.stream(QUESTION)]
    assert order[0] == ("The Eiffel Tower is in Paris.", 1)
    assert order[-1] == ("result", 2)


def test_streamed_segments_equal_the_final_answer() -> None:
    llm, retriever = greedy_trap()
    rag = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm), retriever=retriever,
                          k=2, max_depth=2)
    *segments, result = list(rag.stream(QUESTION))
    assert isinstance(result, LongFormResult)
    assert " ".join(s.marked() for s in segments) == result.answer
    assert segments == result.segments
    assert result == rag.invoke(QUESTION)


def test_stream_inside_an_lcel_chain() -> None:
    rag, _ = _chain_of(2)
    chain = rag | RunnableLambda(lambda r: r.answer) | StrOutputParser()
    assert chain.invoke(QUESTION) == "Fact number 0 [1]. Fact number 1 [1]."
    assert "".join(chain.stream(QUESTION)) == "Fact number 0 [1]. Fact number 1 [1]."


async def test_astream_and_ainvoke_match_the_sync_run() -> None:
    llm, retriever = greedy_trap()
    rag = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm), retriever=retriever,
                          k=2, max_depth=2)
    items = [item async for item in rag.astream(QUESTION)]
    assert [type(i).__name__ for i in items] == ["CitedSegment", "CitedSegment", "LongFormResult"]
    assert items[-1] == await rag.ainvoke(QUESTION) == rag.invoke(QUESTION)


async def test_async_reader_that_stops_stops_the_generation() -> None:
    rag, llm = _chain_of(4)
    stream = rag.astream(QUESTION)
    first = await anext(stream)
    await stream.aclose()
    assert isinstance(first, CitedSegment) and len(llm.calls) == 1


async def test_astream_events_reports_the_search_as_it_goes() -> None:
    llm, retriever = greedy_trap()
    rag = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm), retriever=retriever,
                          k=2, max_depth=2, answer_first=False)
    events = [e async for e in rag.astream_events(QUESTION, version="v2")]
    custom = [(e["name"], e["data"].get("depth")) for e in events if e["event"] == "on_custom_event"]
    assert custom == [
        ("selfrag_retrieve_decision", 0), ("selfrag_retrieval", 0), ("selfrag_beams", 0),
        ("selfrag_retrieve_decision", 1), ("selfrag_retrieve_decision", 1),
        ("selfrag_retrieval", 1), ("selfrag_retrieval", 1), ("selfrag_beams", 1),
        ("selfrag_segment", None), ("selfrag_segment", None),
    ]
    retrievals = [e["data"] for e in events if e["name"] == "selfrag_retrieval"]
    assert retrievals[1]["query"] == f"{QUESTION} The Eiffel Tower is in Paris."
    assert retrievals[1]["passages"] == ["Gustave Eiffel", "Wrought iron"]
    beams = [e["data"] for e in events if e["name"] == "selfrag_beams"]
    assert beams[0]["beams"][0]["text"] == "The Eiffel Tower is in Paris." and beams[0]["beams"][0]["score"] > 0
    children = [e["name"] for e in events if e["event"] == "on_chain_end" and e["name"] != "SelfRAGLongForm"]
    assert children == ["retrieve_decision", "retrieve", "generate_segments", "critique"] * 2
    streamed = [e["data"]["chunk"] for e in events
                if e["event"] == "on_chain_stream" and e["name"] == "SelfRAGLongForm"]
    assert [type(c).__name__ for c in streamed] == ["CitedSegment", "CitedSegment", "LongFormResult"]
    # Each custom event is dispatched before the next step's child runs start.
    names = [e["name"] for e in events if e["event"] in ("on_custom_event", "on_chain_start")]
    assert names.index("selfrag_beams") < names.index("retrieve_decision", names.index("selfrag_retrieval") + 1)
