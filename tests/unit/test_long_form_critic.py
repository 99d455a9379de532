"""Long form with a plain instruct generator and a critic: one sentence per segment, the reply continued as
raw text, and the critic asked about each segment with the preceding sentences (the paper's prompts)."""

from __future__ import annotations

import re

from langchain_core.documents import Document

from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.judging import CriticReflector
from tests.scripted_long_form import RecordingRetriever, ScriptedCritic, ScriptedPlainLLM

QUESTION = "What is a volcano?"
FIRST = "A volcano is an opening in the crust."
PASSAGES = {
    "Crust": "A volcano is an opening in the Earth's crust.",
    "Lava": "Lava is molten.",
    "Magma": "Magma rises from below the crust.",
    "Eruption": "An eruption throws out ash.",
}


def doc(title: str) -> Document:
    return Document(page_content=PASSAGES[title], metadata={"title": title})


def _judge(prompt: str) -> dict[str, float]:
    """Retrieve: yes. IsRel: yes. IsSup: Fully when the output's last word is in the evidence title's line.
    IsUse: 4."""
    if "encyclopedia" in prompt:
        return {"Yes": -0.1, "No": -3.0}
    if "relevant" in prompt:
        return {"Yes": -0.2, "No": -2.0}
    if "supported" in prompt:
        evidence = re.search(r"Evidence: (.*?)\nOutput:", prompt, re.S).group(1).lower()
        output = re.search(r"Output: ([^\n]*)", prompt).group(1).lower()
        key = re.findall(r"\w+", output)[-1]
        return {"Fully": -0.1, "Partially": -3.0, "No": -4.0} if key in evidence else \
            {"Fully": -4.0, "Partially": -3.0, "No": -0.1}
    return {"1": -4.0, "2": -4.0, "3": -2.0, "4": -0.2, "5": -2.0}


def _setup(**kwargs) -> tuple[SelfRAGLongForm, ScriptedPlainLLM, ScriptedCritic, RecordingRetriever]:
    generator = ScriptedPlainLLM(script={
        (0, "Crust"): (f"{FIRST} It erupts lava.", "stop"),
        (0, "Lava"): ("Lava is molten rock.", "stop"),
        (1, "Magma"): (" Magma rises from below.", "stop"),
        (1, "Eruption"): (" Eruptions can be violent and deadly for people nearby.", "stop"),
    })
    critic = ScriptedCritic(judge=_judge)
    retriever = RecordingRetriever(results={
        QUESTION: [doc("Crust"), doc("Lava")],
        f"{QUESTION} {FIRST}": [doc("Magma"), doc("Eruption")],
    })
    rag = SelfRAGLongForm(generator=generator, reflector=CriticReflector(critic, calibrate=False, relevance="labels"),
                          retriever=retriever, k=2, max_depth=3, **kwargs)
    return rag, generator, critic, retriever


def test_plain_generator_writes_one_sentence_per_segment_and_retrieves_per_segment() -> None:
    rag, generator, _, retriever = _setup()
    result = rag.invoke(QUESTION)
    assert result.answer == f"{FIRST[:-1]} [1]. Magma rises from below [2]."
    assert retriever.queries == [QUESTION, f"{QUESTION} {FIRST}"]
    assert result.retrievals == 2 and [s.action for s in result.steps[:2]] == ["retrieve", "retrieve"]
    # The reply is continued as raw text: the generator's own rendering of the request, then the answer so far.
    assert all(p.startswith("<user>Passage: ") for p in generator.calls[1])
    assert all(p.endswith(f"</user><assistant>{FIRST}") for p in generator.calls[1])
    # A reply that ends after one sentence ends the answer.
    assert result.beams[0].finished == "the generator ended its answer"


def test_critic_judges_each_segment_with_the_preceding_sentences() -> None:
    rag, _, critic, _ = _setup()
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
    rag, _, _, _ = _setup(drop_unsupported=True)
    result = rag.invoke(QUESTION)
    eruption = next(c for c in result.candidates if c.passage.metadata["title"] == "Eruption")
    assert eruption.dropped and "No support" in eruption.dropped
    assert "Eruptions" not in result.answer


def test_without_a_raw_text_mode_the_generator_is_asked_for_the_next_sentence() -> None:
    rag, generator, _, _ = _setup()
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
