"""Long form with a plain instruct generator and a critic: one sentence per segment, the reply continued as
raw text, and the critic asked about each segment with the preceding sentences (the paper's prompts)."""

from __future__ import annotations

from selfrag_langchain.prompts import FROM_THE_PASSAGE
from tests.fakes.volcano import FIRST, QUESTION, volcano_long_form


def test_plain_generator_writes_one_sentence_per_segment_and_retrieves_per_segment() -> None:
    rag, generator, _, retriever = volcano_long_form()
    result = rag.invoke(QUESTION)
    assert result.answer == f"{FIRST[:-1]} [1]. Magma rises from below [2]."
    assert retriever.queries == [QUESTION, f"{QUESTION} {FIRST}"]
    assert result.retrievals == 2 and [s.action for s in result.steps[:2]] == ["retrieve", "retrieve"]
    # The reply is continued as raw text: the generator's own rendering of the request, then the answer so far.
    assert all(p.startswith(f"<user>{FROM_THE_PASSAGE}\n\nPassage: ") for p in generator.calls[1])
    assert all(p.endswith(f"</user><assistant>{FIRST}") for p in generator.calls[1])
    # A reply that ends after one sentence ends the answer.
    assert result.beams[0].finished == "the generator ended its answer"


def test_critic_judges_each_segment_with_the_preceding_sentences() -> None:
    rag, _, critic, _ = volcano_long_form()
    result = rag.invoke(QUESTION)
    later = [p for p in critic.prompts if f"Preceding sentences: {FIRST}" in p]
    # The depth-1 retrieve decision and the IsRel, IsSup, IsUse prompts of both depth-1 candidates.
    assert len([p for p in later if "encyclopedia" in p]) == 1
    assert len([p for p in later if "supported" in p]) == 2
    first_step = [p for p in critic.prompts if "Preceding sentences" not in p]
    assert len(first_step) == 1 + 2 * 3
    assert result.steps[1].decision_source == "judge" and result.steps[1].decision.probability > 0.9
    magma = next(c for c in result.candidates if c.passage.metadata["title"] == "Magma")
    assert magma.distributions["IsSup"]["[Fully supported]"] > 0.9


def test_unsupported_second_sentence_is_dropped_under_the_hard_constraint() -> None:
    rag, _, _, _ = volcano_long_form(drop_unsupported=True)
    result = rag.invoke(QUESTION)
    eruption = next(c for c in result.candidates if c.passage.metadata["title"] == "Eruption")
    assert eruption.dropped and "No support" in eruption.dropped
    assert "Eruptions" not in result.answer


def test_without_a_raw_text_mode_the_generator_is_asked_for_the_next_sentence() -> None:
    rag, generator, _, _ = volcano_long_form()
    rag._raw = False  # as for a chat model: no raw-text copy
    # Each request is a fresh reply (its depth, counted in the reply, is 0).
    generator.script[(0, "Magma")] = ("Magma rises from below.", "stop")
    generator.script[(0, "Eruption")] = ("Eruptions can be violent.", "stop")
    generator.script[(0, None)] = ("It is hot.", "stop")
    result = rag.invoke(QUESTION)
    followups = [p for p in generator.calls[1] if "Passage: Magma" in p or "Passage: Eruption" in p]
    assert len(followups) == 2
    assert all(f"Answer so far: {FIRST}\nWrite the next sentence of the answer, using the passage." in p
               for p in followups)
    # Without raw text a one-sentence reply says nothing about the answer's end: the search goes on.
    assert result.beams[0].finished != "the generator ended its answer"
    assert result.answer.startswith(f"{FIRST[:-1]} [1]. Magma rises from below [2].")
