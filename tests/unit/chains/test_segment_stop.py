"""Long form generates only what it keeps: the sentence-end rule, a segment's sequence term over the tokens
it keeps, and the chain asking backends that can stop at the end of the sentence to do so."""

from __future__ import annotations

import math

import pytest

from selfrag_langchain.chains.segments import cut_plain
from selfrag_langchain.llms.base import GenerationStats
from selfrag_langchain.text.sentences import sentence_finished
from tests.fakes.volcano import FIRST, QUESTION, volcano_long_form


@pytest.mark.parametrize(("text", "finished"), [
    ("", False),
    ("Jane Austen was an English novelist", False),
    ("Jane Austen was an English novelist.", False),  # the sentence may still be followed by a quote
    ("Jane Austen was an English novelist. She", True),
    (" She wrote six novels.\nHer", True),
    ("He met Mr. Darcy at the ball", False),  # an abbreviation ends no sentence
    ("Mount Everest is 8.8 km", False),
    ("Is it? Yes", True),
])
def test_a_sentence_is_finished_once_the_next_has_begun(text: str, finished: bool) -> None:
    assert sentence_finished(text) is finished


STATS = GenerationStats(num_tokens=3, sum_logprob=-6.0, finish_reason="sentence",
                        token_logprobs=(-1.0, -2.0, -3.0), token_ends=(3, 7, 10))


@pytest.mark.parametrize(("chars", "tokens", "total"), [(10, 3, -6.0), (7, 2, -3.0), (5, 2, -3.0), (3, 1, -1.0)])
def test_upto_keeps_the_tokens_that_wrote_the_kept_text(chars: int, tokens: int, total: float) -> None:
    kept = STATS.upto(chars)
    assert (kept.num_tokens, kept.sum_logprob) == (tokens, total)
    assert kept.token_ends == STATS.token_ends[:tokens]
    assert kept.finish_reason == "sentence"


def test_upto_without_per_token_logprobs_changes_nothing_and_the_lists_survive_a_round_trip() -> None:
    bare = GenerationStats(num_tokens=3, sum_logprob=-6.0)
    assert bare.upto(1) is bare
    assert GenerationStats.from_dict(STATS.to_dict()) == STATS
    assert "token_logprobs" not in bare.to_dict()


def test_a_sentence_stop_does_not_end_the_answer_and_the_end_of_the_reply_does() -> None:
    stopped = cut_plain("She wrote six novels. Her", "sentence", end_of_reply_ends_answer=True)
    assert (stopped.text, stopped.ended, stopped.rest_dropped) == ("She wrote six novels.", None, True)
    one = cut_plain("She wrote six novels.", "sentence", end_of_reply_ends_answer=True)
    assert one.ended is None
    ended = cut_plain("She wrote six novels.", "stop", end_of_reply_ends_answer=True)
    assert ended.ended == "the generator ended its answer"


def _first_segment(result, title: str):  # type: ignore[no-untyped-def]
    return next(c for c in result.candidates if c.depth == 0 and c.passage.metadata["title"] == title)


@pytest.mark.parametrize("stop", [True, False])
def test_the_sequence_term_covers_the_kept_sentence_only(stop: bool) -> None:
    rag, generator, _, _ = volcano_long_form(stop_at_segment_end=stop, use_sequence_probability=True)
    generator.sentence_stop = True
    result = rag.invoke(QUESTION)
    assert generator.asked_sentence_stop == [stop] * len(generator.calls)
    crust = _first_segment(result, "Crust")
    assert crust.answer == FIRST
    # The words after the first sentence are scripted at -2.0 each; none of them enters the term.
    assert crust.scores.sequence_probability == pytest.approx(math.exp(-0.1))
    assert crust.kept_tokens == len(FIRST.split())
    # Generated: the whole reply without the stop, the sentence and one word of the next with it.
    assert crust.num_tokens == (len(FIRST.split()) + 1 if stop else len(f"{FIRST} It erupts lava.".split()))
    assert result.answer.startswith(FIRST[:-1])


def test_a_generator_that_cannot_stop_at_a_sentence_is_not_asked_to() -> None:
    rag, generator, _, _ = volcano_long_form()
    assert not generator.sentence_stop
    rag.invoke(QUESTION)
    assert generator.asked_sentence_stop and not any(generator.asked_sentence_stop)


def test_a_plain_generator_is_asked_to_answer_from_each_passage_in_its_words_as_short_form_asks() -> None:
    from selfrag_langchain.prompts import FROM_THE_PASSAGE, rag_prompt

    rag, generator, _, _ = volcano_long_form()
    rag.invoke(QUESTION)
    first_step = generator.calls[0]
    assert len(first_step) == 2  # one prompt per passage
    for prompt in first_step:
        assert prompt.startswith(f"<user>{FROM_THE_PASSAGE}\n\nPassage: ")
        assert prompt.count("Question: What is a volcano?") == 1
    assert rag_prompt(QUESTION, "A passage.").startswith(FROM_THE_PASSAGE)
