"""The loop guard of the transformers backend: n-grams are not repeated within a generation, the prompt is free."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from selfrag_langchain.llms.transformers import NoRepeatInGeneration, TransformersLLM  # noqa: E402


def _banned(ids: list[list[int]], prompt_length: int, size: int = 3, vocab: int = 10,
            keep: tuple[int, ...] = ()) -> list[set[int]]:
    scores = torch.zeros(len(ids), vocab)
    out = NoRepeatInGeneration(size, prompt_length, keep=keep)(torch.tensor(ids), scores)
    assert bool((scores == 0).all())  # the scores given are left as they were
    return [{int(t) for t in torch.nonzero(row == -float("inf")).flatten()} for row in out]


def test_the_token_that_would_repeat_a_generated_ngram_is_banned() -> None:
    # prompt: 9 9 | generated: 1 2 3 1 2 -> writing 3 would repeat "1 2 3"
    assert _banned([[9, 9, 1, 2, 3, 1, 2]], prompt_length=2) == [{3}]


def test_an_ngram_of_the_prompt_may_be_written() -> None:
    # prompt: 1 2 3 | generated: 1 2 -> "1 2 3" is the prompt's, so 3 stays allowed (a passage may be quoted)
    assert _banned([[1, 2, 3, 1, 2]], prompt_length=3) == [set()]
    # the same ids read whole would ban it: the prompt is what is left out
    assert _banned([[1, 2, 3, 1, 2]], prompt_length=0) == [{3}]


def test_kept_tokens_are_never_banned() -> None:
    # generated: 1 7 3 1 7 -> writing 3 would repeat "1 7 3", but 3 is kept (a reflection token)
    assert _banned([[1, 7, 3, 1, 7]], prompt_length=0, keep=(3,)) == [set()]
    assert _banned([[1, 7, 3, 1, 7]], prompt_length=0, keep=(5,)) == [{3}]


def test_each_row_of_a_batch_is_guarded_on_its_own() -> None:
    assert _banned([[0, 4, 5, 4], [0, 4, 5, 6]], prompt_length=1, size=2) == [{5}, set()]


def test_the_guard_is_off_by_default_and_cannot_be_negative() -> None:
    assert TransformersLLM().no_repeat_ngram_size == 0
    with pytest.raises(ValueError, match="no_repeat_ngram_size"):
        TransformersLLM(no_repeat_ngram_size=-1)
