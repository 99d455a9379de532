"""Scoring continuations in one forward pass (the layout, checked by hand) and tokenizing a text once."""

from __future__ import annotations

import pytest

from selfrag_langchain.llms.packed_scoring import packed_layout


def test_two_prompt_tokens_then_a_one_token_and_a_two_token_continuation() -> None:
    # packed: r0 r1 | a0 | b0 b1
    layout = packed_layout(2, [1, 2])
    t, f = True, False
    assert layout.visible().tolist() == [
        [t, f, f, f, f],  # r0
        [t, t, f, f, f],  # r1
        [t, t, t, f, f],  # a0 sees the prompt and itself
        [t, t, f, t, f],  # b0 sees the prompt, not a0
        [t, t, f, t, t],  # b1
    ]
    assert layout.positions == [0, 1, 2, 2, 3]  # each continuation starts right after the prompt
    assert layout.keep == [1, 3]  # r1 predicts a0 and b0; b0 predicts b1
    assert layout.picks == [(0, 0, 0), (0, 1, 0), (1, 1, 1)]
    assert layout.totals([-1.0, -2.0, -3.0], 2) == [-1.0, -5.0]


def test_an_empty_continuation_scores_zero() -> None:
    layout = packed_layout(1, [0, 1])
    assert layout.picks == [(0, 1, 0)]
    assert layout.totals([-0.5], 2) == [0.0, -0.5]


def test_a_layout_needs_a_prompt_token_to_predict_from() -> None:
    with pytest.raises(ValueError, match="at least one unread prompt token"):
        packed_layout(0, [1])


def test_recent_tokens_tokenize_a_text_once_and_stay_bounded() -> None:
    from selfrag_langchain.llms.base import RecentTokens

    seen: list[str] = []

    def encode(text: str) -> list[int]:
        seen.append(text)
        return [len(text)]

    recent = RecentTokens(limit=2)
    assert recent.get("passage", encode) == recent.get("passage", encode) == [7]
    assert seen == ["passage"]
    recent.get("a", encode)
    recent.get("bb", encode)  # full: starts again
    recent.get("passage", encode)
    assert seen == ["passage", "a", "bb", "passage"]
