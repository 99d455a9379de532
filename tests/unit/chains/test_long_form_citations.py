"""Citations of long-form answers: numbers in order of first use, a passage used twice keeps its number,
a segment written without a passage has none, markers sit where sentence splitters keep them."""

from __future__ import annotations

import pytest

from selfrag_langchain.chains.citations import CitationNumbers
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.judging import InlineReflector
from selfrag_langchain.results import LongFormResult, with_marker
from selfrag_langchain.tokens import NO_RETRIEVAL, RETRIEVAL
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


def _four_segments() -> tuple[SelfRAGLongForm, RecordingRetriever]:
    """Eiffel passage, then no passage, then the Eiffel passage again, then Paris."""
    s1, s2, s3 = "The tower is in Paris.", "It is tall.", "It was built for a fair."
    retriever = RecordingRetriever(results={
        QUESTION: [doc("Eiffel Tower")],
        f"{QUESTION} {s2}": [doc("Eiffel Tower")],
        f"{QUESTION} {s3}": [doc("Paris")],
    })
    llm = ScriptedLongFormLLM(
        script={
            (0, "Eiffel Tower"): judged(s1, REL, FULL),
            (1, None): judged(s2, REL, FULL),
            (2, "Eiffel Tower"): judged(s3, REL, FULL),
            (3, "Paris"): judged("Paris is in France.", REL, FULL),
        },
        # Retrieve, then not, then retrieve twice.
        retrieve_logprobs={1: {RETRIEVAL: -3.0, NO_RETRIEVAL: 0.0}, 2: {RETRIEVAL: 0.0, NO_RETRIEVAL: -3.0}},
    )
    rag = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm), retriever=retriever,
                          k=1, beam_width=1,
                          max_depth=4)
    return rag, retriever


def test_numbers_follow_first_use_and_a_reused_passage_keeps_its_number() -> None:
    rag, _ = _four_segments()
    result = rag.invoke(QUESTION)
    assert [s.citation for s in result.segments] == [1, None, 1, 2]
    assert result.answer == ("The tower is in Paris [1]. It is tall. It was built for a fair [1]. "
                             "Paris is in France [2].")
    assert [(d.metadata["title"], d.metadata["citation"]) for d in result.citations] == [("Eiffel Tower", 1),
                                                                                       ("Paris", 2)]
    assert result.segments[3].source.metadata["citation"] == 2
    assert [s.text for s in result.segments][1] == "It is tall."


def test_the_winning_beam_numbers_only_what_it_cites() -> None:
    llm, retriever = greedy_trap()
    result = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm),
                             retriever=retriever, k=2, answer_first=False,
                             max_depth=2).invoke(QUESTION)
    # Passages of beams that lost (Eiffel Tower, Gustave Eiffel, ...) are in the trace, not in the citations.
    assert [d.metadata["title"] for d in result.citations] == ["Paris", "Louvre"]
    assert {c.passage.metadata["title"] for c in result.candidates} >= {"Eiffel Tower", "Gustave Eiffel"}


def test_result_round_trips_through_json() -> None:
    rag, _ = _four_segments()
    result = rag.invoke(QUESTION)
    again = LongFormResult.model_validate_json(result.model_dump_json())
    assert again == result
    assert again.citations[1].metadata["citation"] == 2
    assert again.candidates[0].distributions["IsSup"] == FULL
    assert again.steps[1].decision.retrieve is False


@pytest.mark.parametrize(("text", "n", "marked"), [
    ("Lava is molten rock.", 1, "Lava is molten rock [1]."),
    ("Is it hot?!", 2, "Is it hot [2]?!"),
    ('He said "yes."', 3, 'He said "yes [3]."'),
    ("No final stop", 4, "No final stop [4]"),
    ("Uncited.", None, "Uncited."),
])
def test_marker_goes_before_the_final_punctuation(text: str, n: int | None, marked: str) -> None:
    assert with_marker(text, n) == marked


def test_marked_answer_splits_into_sentences_with_their_markers() -> None:
    from selfrag_langchain.text.sentences import split_sentences

    rag, _ = _four_segments()
    sentences = split_sentences(rag.invoke(QUESTION).answer)
    assert sentences == ["The tower is in Paris [1].", "It is tall.", "It was built for a fair [1].",
                         "Paris is in France [2]."]


def test_citation_numbers_are_stable() -> None:
    numbers = CitationNumbers()
    a, b = doc("A"), doc("B")
    assert [numbers.number(a), numbers.number(None), numbers.number(b), numbers.number(doc("A"))] == [1, None, 2, 1]
    assert numbers.document(2).metadata == {"title": "B", "citation": 2}


def test_summary_lines_show_each_step_and_the_winning_beam() -> None:
    llm, retriever = greedy_trap()
    result = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm),
                             retriever=retriever, k=2, answer_first=False,
                             max_depth=2, use_sequence_probability=True).invoke(QUESTION)
    lines = result.summary_lines()
    assert lines[0] == f'depth 0 beam -: p(Retrieve)=0.82 -> retrieve query "{QUESTION}"'
    assert any(line.startswith("  * 0.1 [Paris] score 2.355") for line in lines)
    assert lines[-2].startswith("* beam 0.1 > 1.2: score 2.480; reached max_depth (2)")
