"""Passage windows: each passage cut to its sentences nearest the query, in one embedding call, and what the
generator of SelfRAG, of the long form and of the eval baselines is given."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from pydantic import Field

from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.chains.windows import PassageWindow
from selfrag_langchain.judging import CalibratedReflector
from selfrag_langchain.pipeline import PipelineSettings, build_passage_window
from tests.fakes.bag_of_words import BagOfWords

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
    assert build_passage_window(PipelineSettings()) is None  # whole passages by default, as the paper reads
    window = build_passage_window(PipelineSettings(window_sentences=2))
    assert window is not None and window.sentences == 2 and not window.keep_whole
    both = build_passage_window(PipelineSettings(window_sentences=3, keep_whole=True))
    assert both is not None and both.sentences == 3 and both.keep_whole


def test_keeping_the_whole_passages_gives_them_first_and_then_the_windows_of_those_cut() -> None:
    window = PassageWindow(embeddings=BagOfWords(), sentences=2, keep_whole=True)
    docs = window.views("Where do climbers reach it from?", [EVEREST, SHORT])
    assert docs[:2] == [EVEREST, SHORT]  # the whole passages first, in the order given
    assert len(docs) == 3  # SHORT is no longer than the window: it has no second branch
    assert docs[2].page_content == "Its summit height is 8,849 metres. Climbers reach it from Nepal and from Tibet."
    assert docs[2].id == "everest" and docs[2].metadata["window"] == 2
    short = PassageWindow(embeddings=BagOfWords(), sentences=2, keep_whole=True).views("Where is it?", [SHORT])
    assert short == [SHORT]  # nothing cut: no second branch of the same text


def test_selfrag_judges_the_whole_passage_and_its_window_as_two_branches() -> None:
    llm = RecordingLLM(responses=["Mount Everest is the highest mountain above sea level.",
                                  "Climbers reach it from Nepal and from Tibet."])
    rag = SelfRAG(generator=llm, reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always", k=1,
                  passage_window=PassageWindow(embeddings=BagOfWords(), sentences=1, keep_whole=True))
    result = rag.invoke({"question": "Where do climbers reach it from?", "passages": [EVEREST]})
    assert len(llm.prompts) == 2 and "Mahalangur" in llm.prompts[0] and "Mahalangur" not in llm.prompts[1]
    assert [b.passage.metadata.get("window") for b in result.branches if b.passage is not None] == [None, 3]
    assert all(b.distributions["IsSup"] is not None for b in result.branches)  # both judged
    assert result.settings["window_sentences"] == 1 and result.settings["keep_whole"] is True


def test_the_command_line_defaults_are_the_settings_and_keep_whole_is_a_flag() -> None:
    import argparse

    from selfrag_langchain.commands.options import add_selfrag_options, settings_from_args

    parser = argparse.ArgumentParser()
    add_selfrag_options(parser)
    default = settings_from_args(parser.parse_args([]))
    assert (default.window_sentences, default.keep_whole) == (0, False) == (
        PipelineSettings().window_sentences, PipelineSettings().keep_whole)
    both = settings_from_args(parser.parse_args(["--window-sentences", "1", "--keep-whole"]))
    assert (both.window_sentences, both.keep_whole) == (1, True)


@pytest.mark.parametrize(("keep_whole", "read"), [(False, "Climbers reach it from Nepal and from Tibet."),
                                                   (True, EVEREST.page_content)])
def test_plain_rag_reads_the_window_and_with_keep_whole_the_whole_passage(keep_whole: bool, read: str) -> None:
    from selfrag_langchain.eval.examples import EvalExample
    from selfrag_langchain.eval.methods import BaselineMethod
    from selfrag_langchain.eval.tasks import TASKS

    llm = RecordingLLM(responses=["Nepal."])
    rag = BaselineMethod(name="rag_top1", generator=llm, passage_window=PassageWindow(
        embeddings=BagOfWords(), sentences=1, keep_whole=keep_whole))
    example = EvalExample(key="q", line=1, question="Where do climbers reach it from?", answers=("Nepal",),
                          passages=[EVEREST, SHORT])
    outcome = rag.answer(example, TASKS["popqa"])
    (prompt,) = llm.prompts
    assert read in prompt and "Karakoram" not in prompt  # the top passage only
    assert ("Mahalangur" in prompt) is keep_whole
    assert outcome.prediction == "Nepal." and outcome.retrieved
    assert rag.settings()["window_sentences"] == (0 if keep_whole else 1)
