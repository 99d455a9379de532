"""Who painted the Mona Lisa, asked of ChatSelfRAG over scripted models: a long-form chat model whose answer
cites two passages and whose follow-up (made standalone by a recording condense model) cites the Louvre, and a
short-form one that cites its one passage."""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document
from langchain_core.language_models.fake import FakeListLLM
from pydantic import Field

from selfrag_langchain import ChatSelfRAG, InlineReflector, SelfRAG
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.llms.base import GenerationStats
from selfrag_langchain.tokens import Group
from tests.fakes.scripted_llm import ScriptedSelfRAGLLM, reading
from tests.fakes.scripted_long_form import FULL, REL, RecordingRetriever, ScriptedLongFormLLM, judged

FIRST = "Who painted the Mona Lisa?"
FOLLOW_UP = "Where is it shown?"
STANDALONE = "Where is the Mona Lisa shown?"
MONA_LISA = Document("The Mona Lisa is a portrait by Leonardo da Vinci.",
                     metadata={"title": "Mona Lisa", "source": "https://en.wikipedia.org/wiki/Mona_Lisa"})
LOUVRE = Document("The Louvre is a museum in Paris.", metadata={"title": "Louvre", "source": "museums.txt"})
LEONARDO = Document("Leonardo da Vinci was an Italian painter.", metadata={"title": "Leonardo"})


class RecordingLLM(FakeListLLM):
    """Answers from a list and records the prompts it was given."""

    prompts: list[str] = Field(default_factory=list)

    def _call(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        self.prompts.append(prompt)
        return super()._call(prompt, *args, **kwargs)


def _long_form() -> tuple[SelfRAGLongForm, RecordingRetriever]:
    """Depth 0 cites Mona Lisa, depth 1 Leonardo (first question); the follow-up cites the Louvre twice."""
    llm = ScriptedLongFormLLM(script={
        (0, "Mona Lisa"): judged("Leonardo da Vinci painted it.", REL, FULL),
        (1, "Leonardo"): judged("He was an Italian painter.", REL, FULL),
        (0, "Louvre"): judged("It hangs in the Louvre.", REL, FULL),
        (1, "Louvre"): judged("The Louvre is in Paris.", REL, FULL),
    })
    retriever = RecordingRetriever(results={
        FIRST: [MONA_LISA], f"{FIRST} Leonardo da Vinci painted it.": [LEONARDO],
    }, default=[LOUVRE])
    rag = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm), retriever=retriever,
                          k=1, beam_width=1,
                          max_depth=2)
    return rag, retriever


def chat_model(rewrites: list[str] | None = None, **knobs: Any) -> tuple[ChatSelfRAG, RecordingRetriever, RecordingLLM]:
    rag, retriever = _long_form()
    condense = RecordingLLM(responses=rewrites or [STANDALONE])
    return ChatSelfRAG(rag=rag, condense_llm=condense, **knobs), retriever, condense


def short_form_chat() -> ChatSelfRAG:
    use = {"[Utility:1]": 0.0, "[Utility:2]": 0.0, "[Utility:3]": 0.1, "[Utility:4]": 0.2, "[Utility:5]": 0.7}
    stats = GenerationStats(num_tokens=8, sum_logprob=-1.0, readings=(
        reading(Group.ISREL, "[Relevant]", 0, REL), reading(Group.ISSUP, "[Fully supported]", 6, FULL),
        reading(Group.ISUSE, "[Utility:5]", 7, use)))
    llm = ScriptedSelfRAGLLM(script={
        "portrait by Leonardo": ("[Relevant]Leonardo da Vinci painted it.[Fully supported][Utility:5]", stats)})
    rag = SelfRAG(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm),
                  retriever=RecordingRetriever(default=[MONA_LISA]),
                  k=1, mode="always")
    return ChatSelfRAG(rag=rag)


ANSWER = "Leonardo da Vinci painted it [1]. He was an Italian painter [2]."
"""What ``chat_model()`` answers to :data:`FIRST`."""
