"""SelfRAGRetriever with the default judge on real MiniLM embeddings: of passages on different subjects, the
on-topic one comes back first and the off-topic ones are dropped, with titles or without."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from selfrag_langchain import CalibratedReflector, SelfRAGRetriever
from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.retrievers import PassageRetriever

pytestmark = pytest.mark.slow

PHOTOSYNTHESIS = ("Photosynthesis", "Photosynthesis is the process by which plants use sunlight, water and carbon "
                                    "dioxide to make glucose and release oxygen.")

# Each question with passages in which the on-topic one is never first, as a retriever may rank them.
CASES = [
    ("Who painted the Mona Lisa?", "Mona Lisa", [
        PHOTOSYNTHESIS,
        ("Mona Lisa", "The Mona Lisa is a half-length portrait painting by the Italian artist Leonardo da Vinci. "
                      "It hangs in the Louvre."),
        ("Volcano", "A volcano is a rupture in the crust of a planet that allows hot lava, ash and gases to escape "
                    "from below the surface."),
    ]),
    ("When did the Apollo 11 astronauts land on the Moon?", "Apollo 11", [
        ("Sourdough", "Sourdough bread is made by the fermentation of dough using wild yeast and lactic acid "
                      "bacteria."),
        ("Offside rule", "In football, a player is in an offside position if any part of the head, body or feet is "
                         "in the opponents' half."),
        ("Apollo 11", "Apollo 11 was the spaceflight that first landed humans on the Moon. Neil Armstrong and Buzz "
                      "Aldrin landed on 20 July 1969."),
    ]),
    ("How do plants make their food?", "Photosynthesis", [
        ("Mount Everest", "Mount Everest is Earth's highest mountain above sea level, located in the Himalayas."),
        PHOTOSYNTHESIS,
    ]),
]


@pytest.fixture(scope="module")
def judge(minilm: MiniLMEmbeddings) -> CalibratedReflector:
    return CalibratedReflector(embeddings=minilm)


def _retriever(passages: list[tuple[str, str]], judge: CalibratedReflector, *, titled: bool = True,
               threshold: float = 0.5) -> SelfRAGRetriever:
    docs = [Document(page_content=text, metadata={"title": title} if titled else {"subject": title})
            for title, text in passages]
    return SelfRAGRetriever(retriever=PassageRetriever(passages=docs), judge=judge, threshold=threshold)


@pytest.mark.parametrize("titled", [True, False], ids=["titled", "untitled"])
@pytest.mark.parametrize(("question", "subject", "passages"), CASES, ids=[c[1] for c in CASES])
def test_the_on_topic_passage_is_kept_and_the_off_topic_ones_dropped(
    judge: CalibratedReflector, question: str, subject: str, passages: list[tuple[str, str]], titled: bool,
) -> None:
    docs = _retriever(passages, judge, titled=titled).invoke(question)
    key = "title" if titled else "subject"
    assert [d.metadata[key] for d in docs] == [subject]
    verdict = docs[0].metadata["selfrag"]
    assert verdict["relevance"] > 0.6 and verdict["judge"] == "calibrated"
    assert verdict["retrieved_rank"] == 1 + [title for title, _ in passages].index(subject)


async def test_async_gives_the_sync_judgement(judge: CalibratedReflector) -> None:
    question, _, passages = CASES[0]
    retriever = _retriever(passages, judge)
    assert await retriever.ainvoke(question) == retriever.invoke(question)


def test_the_off_topic_passages_are_judged_well_below_the_default_threshold(judge: CalibratedReflector) -> None:
    question, subject, passages = CASES[1]
    docs = _retriever(passages, judge, threshold=0.0).invoke(question)
    assert docs[0].metadata["title"] == subject and len(docs) == len(passages)
    relevances = [d.metadata["selfrag"]["relevance"] for d in docs]
    assert relevances == sorted(relevances, reverse=True) and max(relevances[1:]) < 0.35
