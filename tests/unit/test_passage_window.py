"""Passage windows: each passage cut to its sentences nearest the query, in one embedding call, and what the
generator of SelfRAG, of the long form and of the eval baselines is given."""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from pydantic import Field

from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.chains.windows import PassageWindow
from selfrag_langchain.judging import CalibratedReflector
from selfrag_langchain.pipeline import PipelineSettings, build_passage_window
from tests.bag_of_words import BagOfWords

EVEREST = Document(page_content="Mount Everest is the highest mountain above sea level. It lies in the Mahalangur "
                                "Himal of the Himalayas. Its summit height is 8,849 metres. Climbers reach it from "
                                "Nepal and from Tibet.", metadata={"title": "Mount Everest", "source": "wiki"},
                   id="everest")
SHORT = Document(page_content="K2 is the second-highest mountain. It is in the Karakoram.", metadata={"title": "K2"})


def test_each_passage_keeps_its_run_nearest_the_query_with_its_metadata() -> None:
    embeddings = BagOfWords()
    window = PassageWindow(embeddings=embeddings, sentences=2)
    everest, k2 = window.narrow("What is the summit height of Mount Everest in metres?", [EVEREST, SHORT])
    assert everest.page_content == ("It lies in the Mahalangur Himal of the Himalayas. Its summit height is 8,849 "
                                    "metres.") or everest.page_content == (
        "Its summit height is 8,849 metres. Climbers reach it from Nepal and from Tibet.")
    assert "8,849" in everest.page_content and "highest mountain above" not in everest.page_content
    assert everest.metadata == {"title": "Mount Everest", "source": "wiki", "window": everest.metadata["window"]}
    assert everest.metadata["window"] in (1, 2) and everest.id == "everest"
    assert k2 is SHORT  # no longer than the window: kept whole
    assert len(embeddings.calls) == 1  # the query and every run of every passage in one call


def test_a_window_of_one_sentence_keeps_the_sentence_that_answers() -> None:
    (everest,) = PassageWindow(embeddings=BagOfWords(), sentences=1).narrow("Where do climbers reach it from?",
                                                                          [EVEREST])
    assert everest.page_content == "Climbers reach it from Nepal and from Tibet."
    assert everest.metadata["window"] == 3


class RecordingLLM(FakeListLLM):
    """Answers from its list and keeps every prompt it was given."""

    prompts: list[str] = Field(default_factory=list)

    def _call(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        self.prompts.append(prompt)
        return super()._call(prompt, *args, **kwargs)


def test_selfrag_gives_its_generator_and_judge_the_window() -> None:
    llm = RecordingLLM(responses=["Its summit height is 8,849 metres."])
    rag = SelfRAG(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always", k=1,
                  passage_window=PassageWindow(embeddings=BagOfWords(), sentences=1))
    result = rag.invoke({"question": "How many metres is its summit height?", "passages": [EVEREST]})
    (branch,) = result.branches
    (prompt,) = llm.prompts
    assert "Its summit height is 8,849 metres." in prompt and "Mahalangur" not in prompt
    assert branch.passage is not None and branch.passage.metadata["window"] == 2
    assert result.citations[0].page_content == "Its summit height is 8,849 metres."
    assert result.settings["window_sentences"] == 1


def test_the_settings_choose_the_window() -> None:
    assert build_passage_window(PipelineSettings()) is None  # whole passages by default
    window = build_passage_window(PipelineSettings(window_sentences=2))
    assert window is not None and window.sentences == 2


def test_a_window_with_its_lead_keeps_the_first_sentence_and_the_nearest_later_run() -> None:
    window = PassageWindow(embeddings=BagOfWords(), sentences=1, lead=True)
    (everest,) = window.narrow("Where do climbers reach it from?", [EVEREST])
    assert everest.page_content == ("Mount Everest is the highest mountain above sea level. Climbers reach it from "
                                    "Nepal and from Tibet.")
    assert everest.metadata["window"] == 3
    (k2,) = PassageWindow(embeddings=BagOfWords(), sentences=1, lead=True).narrow("Where is it?", [SHORT])
    assert k2 is SHORT  # a lead and one sentence: nothing to cut
