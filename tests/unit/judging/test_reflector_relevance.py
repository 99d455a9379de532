"""Every judge reads IsRel for (question, passage) alone, before any answer exists, as it reads IsRel in a
critique: the interface a relevance filter in front of a retriever uses."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.judging import CalibratedReflector, CriticReflector, InlineReflector
from selfrag_langchain.llms.base import ContinuationRequest
from selfrag_langchain.prompts import format_passage, selfrag_branch_prompt
from selfrag_langchain.tokens import IRRELEVANT, RELEVANT
from tests.fakes.bag_of_words import BagOfWords
from tests.fakes.calibrated_judge import MATISSE, MONA, QUESTION, branch, calibration
from tests.fakes.scripted_long_form import ScriptedCritic
from tests.fakes.selfrag_vocabulary import SelfRAGVocabulary


class TokenScorer(SelfRAGVocabulary):
    """A Self-RAG model's next-token log-probabilities: [Relevant] is likely after a passage naming Mona Lisa."""

    def __init__(self, *, with_tokens: bool = True) -> None:
        self.with_tokens = with_tokens
        self.calls: list[list[ContinuationRequest]] = []

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        self.calls.append(list(requests))
        on_topic, off_topic = {RELEVANT: -0.1, IRRELEVANT: -2.5}, {RELEVANT: -3.0, IRRELEVANT: -0.2}
        return [[(on_topic if "Mona Lisa is" in r.prompt else off_topic)[c] for c in r.continuations]
                for r in requests]

    def has_tokens(self, strings: Sequence[str]) -> bool:
        return self.with_tokens and super().has_tokens(strings)


def test_inline_reads_the_next_token_after_each_branch_prompt_in_one_call() -> None:
    llm = TokenScorer()
    on_topic, off_topic = InlineReflector(llm).relevance_distributions(QUESTION, [MONA, MATISSE])
    (requests,) = llm.calls
    assert [r.prompt for r in requests] == [selfrag_branch_prompt(QUESTION, MONA),
                                            selfrag_branch_prompt(QUESTION, MATISSE)]
    assert on_topic[RELEVANT] == pytest.approx(1 / (1 + math.exp(-2.4)))
    assert off_topic[RELEVANT] == pytest.approx(1 / (1 + math.exp(2.8)))


def test_inline_refuses_a_model_without_the_reflection_tokens() -> None:
    with pytest.raises(ModelLoadError, match="critic reflector"):
        InlineReflector(TokenScorer(with_tokens=False)).relevance_distributions(QUESTION, [MONA])


def test_critic_asks_its_isrel_question_without_an_output() -> None:
    critic = ScriptedCritic(judge=lambda p: {"Yes": -0.2, "No": -1.8} if "Leonardo" in p else {"Yes": -2.0, "No": -0.1})
    reflector = CriticReflector(critic, calibrate=False, relevance="labels")
    on_topic, off_topic = reflector.relevance_distributions(QUESTION, [MONA, MATISSE])
    assert on_topic[RELEVANT] == pytest.approx(1 / (1 + math.exp(-1.6)))
    assert off_topic[RELEVANT] == pytest.approx(1 / (1 + math.exp(1.9)))
    assert len(critic.prompts) == 2 and all("Output:" not in p for p in critic.prompts)


def test_critic_by_question_likelihood_reads_the_question_after_each_passage() -> None:
    # log p(question | passage): -3 after the Mona Lisa passage, -9 after the other and with no passage.
    critic = ScriptedCritic(judge=lambda p: {" " + QUESTION: -3.0 if "Leonardo" in p else -9.0})
    reflector = CriticReflector(critic, relevance="question_likelihood")
    on_topic, off_topic = reflector.relevance_distributions(QUESTION, [MONA, MATISSE])
    words = len(QUESTION.split())
    assert on_topic[RELEVANT] == pytest.approx(1 / (1 + math.exp(-6.0 / words)))
    assert off_topic[RELEVANT] == pytest.approx(0.5)


def test_calibrated_reads_relevance_exactly_as_its_critique_does() -> None:
    judge = CalibratedReflector(calibration(), embeddings=BagOfWords())
    critiques = judge.critique(QUESTION, [branch(MONA, "Leonardo."), branch(MATISSE, "Matisse.")])
    assert judge.relevance_distributions(QUESTION, [MONA, MATISSE]) == [c.relevance for c in critiques]


@pytest.mark.parametrize("judge", [
    InlineReflector(TokenScorer()),
    CriticReflector(ScriptedCritic(judge=lambda p: {}), relevance="labels"),
    CalibratedReflector(calibration(), embeddings=BagOfWords()),
], ids=["inline", "critic", "calibrated"])
async def test_no_passages_no_judgements_sync_or_async(judge: object) -> None:
    assert judge.relevance_distributions(QUESTION, []) == []  # type: ignore[attr-defined]
    assert await judge.arelevance_distributions(QUESTION, []) == []  # type: ignore[attr-defined]


async def test_the_async_twin_gives_the_sync_reading() -> None:
    judge = CalibratedReflector(calibration(), embeddings=BagOfWords())
    passages = [format_passage("Mona Lisa", MONA.split("\n", 1)[1]), MATISSE]
    assert await judge.arelevance_distributions(QUESTION, passages) == judge.relevance_distributions(
        QUESTION, passages)
