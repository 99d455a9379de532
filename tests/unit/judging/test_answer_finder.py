"""The answer finder's arithmetic (no model): the odds as a probability, and the best phrase's bounds."""

from __future__ import annotations

import math

import pytest

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.judging.finder import MAX_SPAN, AnswerFinder, AnswerSpan, best_span


def test_odds_read_as_a_probability() -> None:
    assert AnswerSpan("Saturn", 0.0).probability == 0.5
    assert math.isclose(AnswerSpan("Saturn", 3.0).probability, 1 / (1 + math.exp(-3.0)))
    assert AnswerSpan("", float("-inf")).probability == 0.0
    assert AnswerSpan("", -1000.0).probability == 0.0  # no overflow
    assert AnswerSpan("x", 1000.0).probability == 1.0


def test_the_best_phrase_ends_after_it_starts_within_the_sentence_and_the_longest_allowed() -> None:
    torch = pytest.importorskip("torch")
    generator = torch.Generator().manual_seed(0)
    for first, last in [(3, 70), (5, 20), (3, 70), (1, 79), (2, 2)] * 4:  # sentences of several lengths, again
        start, end = torch.randn(80, generator=generator), torch.randn(80, generator=generator)
        start[0] = end[0] = 100.0  # the "no answer" piece lies outside the sentence's pieces: never a phrase
        phrases = [(i, j, float(start[i] + end[j])) for i in range(first, last + 1)
                   for j in range(i, min(i + MAX_SPAN, last + 1))]
        expected = max(phrases, key=lambda found: found[2])
        i, j, score = best_span(start, end, first, last)
        assert (i, j) == expected[:2] and math.isclose(score, expected[2], rel_tol=1e-6)


def test_a_directory_without_a_finder_is_one_clear_error(tmp_path) -> None:
    with pytest.raises(ModelLoadError, match="no answer finder in"):
        AnswerFinder(tmp_path)
