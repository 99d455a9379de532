"""Who built the Eiffel Tower, asked of a scripted Self-RAG model with known judgements: the distributions it
reads out, the short-form Runnable over two passages (one that answers, one that does not), and the scripts
the evaluation tests build their models from. Every score a test asserts can be computed by hand."""

from __future__ import annotations

from langchain_core.documents import Document

from selfrag_langchain import InlineReflector, SelfRAG
from selfrag_langchain.llms.base import GenerationStats
from selfrag_langchain.retrievers.passages import PassageRetriever
from selfrag_langchain.tokens import Group
from tests.fakes.scripted_llm import ScriptedSelfRAGLLM, reading

REL = {"[Relevant]": 0.9, "[Irrelevant]": 0.1}
IRR = {"[Relevant]": 0.2, "[Irrelevant]": 0.8}
FULL = {"[Fully supported]": 0.7, "[Partially supported]": 0.2, "[No support / Contradictory]": 0.1}
NOSUP = {"[Fully supported]": 0.1, "[Partially supported]": 0.1, "[No support / Contradictory]": 0.8}
USE5 = {"[Utility:1]": 0.0, "[Utility:2]": 0.0, "[Utility:3]": 0.1, "[Utility:4]": 0.2, "[Utility:5]": 0.7}
USE3 = {"[Utility:1]": 0.1, "[Utility:2]": 0.1, "[Utility:3]": 0.6, "[Utility:4]": 0.1, "[Utility:5]": 0.1}


def stats(rel: dict, sup: dict, use: dict, sum_lp: float, n: int = 10) -> GenerationStats:
    return GenerationStats(num_tokens=n, sum_logprob=sum_lp, readings=(
        reading(Group.ISREL, max(rel, key=rel.get), 0, rel),
        reading(Group.ISSUP, max(sup, key=sup.get), n - 2, sup),
        reading(Group.ISUSE, max(use, key=use.get), n - 1, use)))


def eiffel_llm() -> ScriptedSelfRAGLLM:
    return ScriptedSelfRAGLLM(
        script={
            "Eiffel Tower was built": ("[Relevant]Gustave Eiffel's company built it.[Fully supported][Utility:5]",
                       stats(REL, FULL, USE5, -2.0, 10)),
            "Louvre is a museum": ("[Irrelevant]It was built by Louis XIV.[No support / Contradictory][Utility:3]",
                       stats(IRR, NOSUP, USE3, -1.0, 10)),
            "[No Retrieval]": ("Nobody knows.[Utility:3]", GenerationStats(
                num_tokens=4, sum_logprob=-0.4,
                readings=(reading(Group.ISUSE, "[Utility:3]", 3, USE3),))),
        }
    )


def _passages() -> list[Document]:
    return [Document("The Louvre is a museum in Paris.", metadata={"title": "Louvre"}),
            Document("The Eiffel Tower was built by Gustave Eiffel's company.", metadata={"title": "Eiffel Tower"})]


def eiffel_rag(**kwargs) -> SelfRAG:
    llm = eiffel_llm()
    # The paper's score, sequence term included; the names rule off unless a test turns it on (the Louvre
    # passage names nothing of the question, and these tests are about the score).
    return SelfRAG(generator=llm, reflector=InlineReflector(llm), retriever=PassageRetriever(passages=_passages()),
                   **{"use_sequence_probability": True, "min_name_coverage": 0.0, **kwargs})


def scripted(script: dict[str, tuple[str, GenerationStats]]) -> ScriptedSelfRAGLLM:
    """``script`` with the scripted model's answer without retrieval added."""
    return ScriptedSelfRAGLLM(script={
        **script,
        "[No Retrieval]": ("Nobody knows.[Utility:3]", GenerationStats(
            num_tokens=4, sum_logprob=-0.4, readings=(reading(Group.ISUSE, "[Utility:3]", 3, USE3),))),
    })


# p(Retrieve) = e^-0.5 / (e^-0.5 + e^-2) = 0.818 with the scripted model's default log-probabilities.
EIFFEL = {
    "built by Gustave Eiffel's company": ("[Relevant]Gustave Eiffel's company built it.[Fully supported][Utility:5]",
                                          stats(REL, FULL, USE5, -2.0)),
    "Louvre is a museum": ("[Irrelevant]Louis XIV built it.[No support / Contradictory][Utility:3]",
                           stats(IRR, NOSUP, USE3, -1.0)),
}
