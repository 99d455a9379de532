"""Declining: an answer whose claims the judge finds neither relevant nor supported is replaced by "the sources
found do not answer", with the closest passages, in short form, in long form (never streamed as a claim
first) and through the server; each claim that stands carries the judge's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain.chains.annotations import annotations_for
from selfrag_langchain.chains.declining import DECLINED, grounded, verdict
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.judging import InlineReflector
from selfrag_langchain.results import CitedSegment, LongFormResult
from tests.fakes.eiffel import eiffel_rag as short_form
from tests.fakes.scripted_long_form import (
    FULL,
    IRR,
    NOSUP,
    PART,
    QUESTION,
    REL,
    RecordingRetriever,
    ScriptedLongFormLLM,
    judged,
)
from tests.fakes.scripted_long_form import doc as passage


@pytest.mark.parametrize(("rel", "sup", "expected", "stands"), [
    (REL, FULL, "supported", True),
    (REL, PART, "partially supported", True),
    (REL, NOSUP, "not supported", False),
    (IRR, FULL, "not supported", False),  # a claim from an irrelevant passage is not supported by it
    (None, FULL, "supported", False),  # not judged relevant: does not stand
    (REL, None, None, False),
])
def test_the_verdict_and_whether_a_claim_stands(rel: dict | None, sup: dict | None, expected: str | None,
                                                stands: bool) -> None:
    judgements = {"IsRel": rel, "IsSup": sup, "IsUse": None}
    assert verdict(judgements) == expected
    assert grounded(judgements) is stands


# ---------------------------------------------------------------------- short form


def test_short_form_declines_an_answer_judged_irrelevant_and_lists_the_closest_passages() -> None:
    # w_rel = w_sup = 0: the likelier Louvre branch wins, judged irrelevant and unsupported.
    result = short_form(w_rel=0.0, w_sup=0.0, w_use=0.0).invoke("Who built the Eiffel Tower?")
    assert result.declined and result.branches[result.selected].passage.metadata["title"] == "Louvre"
    assert result.answer == f"{DECLINED} Closest: Eiffel Tower [1]. Louvre [2]."  # the more relevant first
    assert [(d.metadata["title"], d.metadata["citation"]) for d in result.citations] == [("Eiffel Tower", 1),
                                                                                       ("Louvre", 2)]
    spans = [(result.answer[a["start_index"]:a["end_index"]], a["extras"]["citation"])
             for a in annotations_for(result)]
    assert spans == [("Closest: Eiffel Tower [1].", 1), ("Louvre [2].", 2)]
    assert all("support" not in a["extras"] or a["extras"]["support"] is None for a in annotations_for(result))


def test_short_form_answers_what_is_judged_grounded_with_its_verdict() -> None:
    result = short_form().invoke("Who built the Eiffel Tower?")
    assert not result.declined and result.answer == "Gustave Eiffel's company built it."
    (note,) = annotations_for(result)
    assert note["extras"]["support"] == "supported" and note["title"] == "Eiffel Tower"


def test_short_form_without_declining_answers_the_winner() -> None:
    result = short_form(w_rel=0.0, w_sup=0.0, w_use=0.0, decline=False).invoke("Who built the Eiffel Tower?")
    assert not result.declined and result.answer == "It was built by Louis XIV."
    assert annotations_for(result)[0]["extras"]["support"] == "not supported"


def test_a_closed_set_question_always_gets_an_option() -> None:
    result = short_form(w_rel=0.0, w_sup=0.0, w_use=0.0).invoke(
        {"question": "Who built it?", "choices": {"A": "Louis XIV", "B": "Gustave Eiffel"}})
    assert not result.declined and result.answer in {"A", "B"}


# ---------------------------------------------------------------------- long form


def _all_unfounded() -> tuple[ScriptedLongFormLLM, RecordingRetriever]:
    retriever = RecordingRetriever(results={QUESTION: [passage("Gustave Eiffel"), passage("Wrought iron")]})
    llm = ScriptedLongFormLLM(script={
        (0, "Gustave Eiffel"): judged("Gustave Eiffel was born in Dijon.", IRR, NOSUP),
        (0, "Wrought iron"): judged("Iron rusts.", REL, NOSUP),
    })
    return llm, retriever


def _long(llm: ScriptedLongFormLLM, retriever: RecordingRetriever, **kwargs: object) -> SelfRAGLongForm:
    return SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm), retriever=retriever,
                           k=2, max_depth=1,
                           **kwargs)


def test_long_form_declines_without_streaming_a_claim_first() -> None:
    llm, retriever = _all_unfounded()
    items = list(_long(llm, retriever).stream(QUESTION))
    *segments, result = items
    assert isinstance(result, LongFormResult) and result.declined
    assert all(isinstance(s, CitedSegment) for s in segments)
    assert segments[0].text == DECLINED and segments[0].citation is None  # the first thing streamed
    assert "Dijon" not in result.answer and "rusts" not in result.answer
    assert result.answer.startswith(DECLINED + " Closest: ")
    assert {d.metadata["title"] for d in result.citations} == {"Gustave Eiffel", "Wrought iron"}
    assert [s.citation for s in result.segments] == [None, 1, 2]
    assert result.beams[result.selected].segments  # the losing beam stays in the trace


def test_long_form_answers_when_a_segment_stands_and_marks_each_verdict() -> None:
    retriever = RecordingRetriever(results={QUESTION: [passage("Eiffel Tower"), passage("Paris")],
                                            f"{QUESTION} The Eiffel Tower is in Paris.": [passage("Gustave Eiffel")]})
    llm = ScriptedLongFormLLM(script={
        (0, "Eiffel Tower"): judged("The Eiffel Tower is in Paris.", REL, FULL),
        (0, "Paris"): judged("Paris is the capital of France.", REL, PART),
        (1, "Gustave Eiffel"): judged("It is made of cheese.", REL, NOSUP),
    })
    result = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm),
                             retriever=retriever, k=2, max_depth=2,
                             beam_width=1).invoke(QUESTION)
    assert not result.declined
    assert [(s.text, s.support) for s in result.segments] == [("The Eiffel Tower is in Paris.", "supported"),
                                                              ("It is made of cheese.", "not supported")]


def test_long_form_without_declining_answers_the_winner() -> None:
    llm, retriever = _all_unfounded()
    result = _long(llm, retriever, decline=False).invoke(QUESTION)
    assert not result.declined and "[1]" in result.answer and not result.answer.startswith(DECLINED)


# ---------------------------------------------------------------------- through the server


def test_the_server_reports_a_declined_answer_and_each_verdict(tmp_path: Path) -> None:
    import httpx

    from selfrag_langchain.chains.chat_model import ChatSelfRAG
    from selfrag_langchain.serving import create_app
    from tests.servers import serving

    llm, retriever = _all_unfounded()
    app = create_app(ChatSelfRAG(rag=_long(llm, retriever)), history=tmp_path / "chats.sqlite3")
    with serving(app) as url:
        whole = httpx.post(f"{url}/v1/chat/completions", timeout=30,
                           json={"messages": [{"role": "user", "content": QUESTION}]}).json()
        assert whole["declined"] is True and whole["support"] == []
        assert whole["choices"][0]["message"]["content"].startswith(DECLINED)
        with httpx.stream("POST", f"{url}/v1/chat/completions", timeout=30,
                          json={"messages": [{"role": "user", "content": QUESTION}], "stream": True}) as reply:
            events = [json.loads(line[6:]) for line in reply.iter_lines()
                      if line.startswith("data: ") and line != "data: [DONE]"]
    assert events[-1]["declined"] is True
    assert "".join(e["choices"][0]["delta"].get("content") or "" for e in events) == whole["choices"][0][
        "message"]["content"]

    retriever = RecordingRetriever(results={QUESTION: [passage("Eiffel Tower")]})
    llm = ScriptedLongFormLLM(script={(0, "Eiffel Tower"): judged("The Eiffel Tower is in Paris.", REL, PART)})
    app = create_app(ChatSelfRAG(rag=_long(llm, retriever)), history=tmp_path / "chats.sqlite3")
    with serving(app) as url:
        answered = httpx.post(f"{url}/v1/chat/completions", timeout=30,
                              json={"messages": [{"role": "user", "content": QUESTION}]}).json()
    text = answered["choices"][0]["message"]["content"]
    assert answered["declined"] is False and text == "The Eiffel Tower is in Paris [1]."
    (judgement,) = answered["support"]
    assert judgement["verdict"] == "partially supported" and judgement["citation"] == 1
    assert text[judgement["start_index"]:judgement["end_index"]] == text


def test_a_quote_stands_on_its_passages_relevance_and_on_answering_the_question() -> None:
    from langchain_core.documents import Document

    from selfrag_langchain.chains.declining import declines, unfounded
    from selfrag_langchain.results import BranchTrace, ScoreTerms

    def trace(rel: dict, sup: dict, quote: str | None, answering: float | None) -> BranchTrace:
        return BranchTrace(index=0, passage=Document(page_content="Jane Austen was an English novelist."),
                           raw_generation="x", answer="x", distributions={"IsRel": rel, "IsSup": sup},
                           scores=ScoreTerms(sequence_probability=None, relevance=None, support=None, utility=None,
                                             w_rel=1.0, w_sup=1.0, w_use=0.5, total=0.0),
                           quote=quote, quote_answering=answering)

    quote = "Jane Austen was an English novelist."
    assert unfounded(trace(REL, NOSUP, None, None))  # a generation judged unsupported falls
    assert not unfounded(trace(REL, NOSUP, quote, 0.8), 0.1)  # its quote is the passage's words: it stands
    assert unfounded(trace(REL, NOSUP, quote, 0.05), 0.1)  # ...unless it does not answer what was asked
    assert not unfounded(trace(REL, NOSUP, quote, 0.05), 0.0)  # the floor at 0 turns the reading off
    assert not unfounded(trace(REL, NOSUP, quote, None), 0.1)  # without a reader, the passage's relevance alone
    assert unfounded(trace(IRR, FULL, quote, 0.9), 0.1)  # a passage judged irrelevant gives no answer
    question = "When was Jane Austen born?"
    evidence = ["Jane Austen\nJane Austen was an English novelist."]
    assert declines(question, trace(REL, FULL, quote, 0.05), evidence, 0.6, 0.1)
    assert not declines(question, trace(REL, FULL, quote, 0.5), evidence, 0.6, 0.1)
    # A question asking for a year is not answered by a quote without a number, however it reads.
    assert declines("In what year was Jane Austen born?", trace(REL, FULL, quote, 0.9), evidence, 0.6, 0.1)
    born = "Jane Austen was born in 1775."
    assert not declines("In what year was Jane Austen born?", trace(REL, FULL, born, 0.9),
                        ["Jane Austen\nJane Austen was born in 1775."], 0.6, 0.1)
    assert declines("In what year was Jane Austen born?", trace(REL, FULL, None, None), evidence, 0.6, 0.1)  # "x"
    # A question asking in which town is not answered by a quote that names no place but its subject.
    assert declines("In which town was Jane Austen born?", trace(REL, FULL, quote, 0.9), evidence, 0.6, 0.1)
    steventon = "Jane Austen was born in Steventon, Hampshire."
    assert not declines("In which town was Jane Austen born?", trace(REL, FULL, steventon, 0.9),
                        ["Jane Austen\nJane Austen was born in Steventon, Hampshire."], 0.6, 0.1)


def test_long_form_declines_a_year_question_whose_segments_give_no_number() -> None:
    question = "In what year was the Eiffel Tower finished?"
    retriever = RecordingRetriever(results={question: [passage("Eiffel Tower")]})
    llm = ScriptedLongFormLLM(script={(0, "Eiffel Tower"): judged("The Eiffel Tower is in Paris.", REL, FULL)})
    result = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm),
                             retriever=retriever, k=1, max_depth=1, beam_width=1).invoke(question)
    assert result.declined and result.answer.startswith(DECLINED)
    llm = ScriptedLongFormLLM(script={(0, "Eiffel Tower"): judged("The Eiffel Tower was finished in 1889.", REL,
                                                                  FULL)})
    result = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm),
                             retriever=retriever, k=1, max_depth=1, beam_width=1).invoke(question)
    assert not result.declined and "1889" in result.answer


def test_long_form_declines_a_place_question_whose_segments_name_no_place() -> None:
    question = "In which city does the Eiffel Tower stand?"
    retriever = RecordingRetriever(results={question: [passage("Eiffel Tower")]})
    for segment, declined in (("The Eiffel Tower is a wrought-iron lattice tower.", True),
                              ("The Eiffel Tower stands in Paris.", False)):
        llm = ScriptedLongFormLLM(script={(0, "Eiffel Tower"): judged(segment, REL, FULL)})
        result = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm),
                                 retriever=retriever, k=1, max_depth=1, beam_width=1).invoke(question)
        assert result.declined is declined
        assert result.answer.startswith(DECLINED) if declined else "Paris" in result.answer


def test_a_quote_read_by_an_answer_finder_stands_on_holding_an_answer() -> None:
    from langchain_core.documents import Document

    from selfrag_langchain.chains.declining import declines, unfounded
    from selfrag_langchain.results import BranchTrace, ScoreTerms

    def trace(rel: dict, answering: float | None, holds: float | None) -> BranchTrace:
        return BranchTrace(index=0, passage=Document(page_content="Enceladus is the sixth-largest moon of Saturn."),
                           raw_generation="x", answer="x", distributions={"IsRel": rel, "IsSup": FULL},
                           scores=ScoreTerms(sequence_probability=None, relevance=None, support=None, utility=None,
                                             w_rel=1.0, w_sup=1.0, w_use=0.5, total=0.0),
                           quote="Enceladus is the sixth-largest moon of Saturn.", quote_answering=answering,
                           quote_holds_answer=holds)

    # The finder's reading decides, whatever the sentence reader's: a quote holding an answer stands ...
    assert not unfounded(trace(REL, 0.06, 0.9), 0.3, 0.05)
    # ... and one the finder reads as holding none falls, however the reader reads it.
    assert unfounded(trace(REL, 0.9, 0.01), 0.3, 0.05)
    assert not unfounded(trace(REL, 0.9, 0.01), 0.3, 0.0)  # the floor at 0 turns the finder's reading off
    assert unfounded(trace(REL, 0.06, None), 0.3, 0.05)  # without a finder, the reader's threshold
    assert unfounded(trace(IRR, 0.9, 0.9), 0.3, 0.05)  # a passage judged irrelevant gives no answer
    evidence = ["Enceladus\nEnceladus is the sixth-largest moon of Saturn."]
    assert not declines("Enceladus orbits which planet?", trace(REL, 0.06, 0.9), evidence, 0.6, 0.3, 0.05)
    assert declines("Enceladus orbits which planet?", trace(REL, 0.9, 0.01), evidence, 0.6, 0.3, 0.05)


def test_a_quote_of_another_articles_sentence_that_names_nothing_asked_is_declined() -> None:
    from langchain_core.documents import Document

    from selfrag_langchain.chains.declining import declines
    from selfrag_langchain.results import BranchTrace, ScoreTerms

    body = ("Dagestan is a republic of Russia. It borders the Russian republics of Chechnya and Kalmykia. "
            "Makhachkala is the republic's capital and largest city.")
    quote = "Makhachkala is the republic's capital and largest city."
    trace = BranchTrace(index=0, passage=Document(page_content=body, metadata={"title": "Dagestan"}),
                        raw_generation="x", answer="x", distributions={"IsRel": REL, "IsSup": FULL},
                        scores=ScoreTerms(sequence_probability=None, relevance=None, support=None, utility=None,
                                          w_rel=1.0, w_sup=1.0, w_use=0.5, total=0.0),
                        quote=quote, quote_answering=0.9, quote_holds_answer=0.9)
    evidence = [f"Dagestan\n{body}"]
    assert declines("What is the capital of Chechnya?", trace, evidence, 0.6, 0.3, 0.05)
    assert not declines("What is the capital of Dagestan?", trace, evidence, 0.6, 0.3, 0.05)
    assert not declines("What is the capital of Chechnya?", trace, evidence, 0.0, 0.3, 0.05)  # names rules off
