"""What is a volcano, asked of long form with a plain instruct generator and a critic: the generator's reply
at each depth for each passage, the critic's judgement of each prompt, and the retriever's passages for the
question and for the question with the first sentence."""

from __future__ import annotations

import re

from langchain_core.documents import Document

from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.judging import CriticReflector
from tests.fakes.scripted_long_form import RecordingRetriever, ScriptedCritic, ScriptedPlainLLM

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


def volcano_long_form(**kwargs) -> tuple[SelfRAGLongForm, ScriptedPlainLLM, ScriptedCritic, RecordingRetriever]:
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
