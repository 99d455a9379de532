"""Pure conversion of OpenAI-compatible completions responses into the backend contract."""

from __future__ import annotations

import math

import pytest

from selfrag_langchain.errors import BackendError
from selfrag_langchain.llms.openai import server_root, stats_from_logprobs
from selfrag_langchain.llms.openai_scoring import span_logprob
from selfrag_langchain.tokens import FULLY_SUPPORTED, IRRELEVANT, NO_SUPPORT, PARTIALLY_SUPPORTED, RELEVANT, Group


def test_reading_at_a_reflection_token_uses_that_positions_top_logprobs() -> None:
    tokens = ["[Retrieval]", RELEVANT, " Paris", FULLY_SUPPORTED]
    token_logprobs = [-0.1, math.log(0.6), -0.5, math.log(0.5)]
    top = [
        {"[Retrieval]": -0.1},
        {RELEVANT: math.log(0.6), IRRELEVANT: math.log(0.2), " The": math.log(0.1)},
        {" Paris": -0.5, " London": -2.0},
        {FULLY_SUPPORTED: math.log(0.5), PARTIALLY_SUPPORTED: math.log(0.25), " and": math.log(0.2)},
    ]
    stats = stats_from_logprobs(tokens, token_logprobs, top, "stop")
    assert stats.num_tokens == 4
    assert stats.sum_logprob == pytest.approx(sum(token_logprobs))
    rel = stats.first(Group.ISREL)
    assert rel is not None and rel.index == 1 and rel.exact and rel.missing == ()
    assert rel.probs[RELEVANT] == pytest.approx(0.75)
    assert rel.mass == pytest.approx(0.8)
    sup = stats.first(Group.ISSUP)
    assert sup is not None and sup.index == 3
    assert not sup.exact and sup.missing == (NO_SUPPORT,)
    assert sup.probs == pytest.approx({FULLY_SUPPORTED: 2 / 3, PARTIALLY_SUPPORTED: 1 / 3, NO_SUPPORT: 0.0})
    assert sup.mass == pytest.approx(0.75)  # a lower bound: [No support / Contradictory] was not returned


def test_the_emitted_token_counts_even_when_the_top_list_omits_it() -> None:
    """Servers always return the chosen token's log-probability; a top-k list may lack it (sampling)."""
    stats = stats_from_logprobs([IRRELEVANT], [math.log(0.1)], [{RELEVANT: math.log(0.8)}], "length")
    reading = stats.first(Group.ISREL)
    assert reading is not None and reading.exact
    assert reading.probs[IRRELEVANT] == pytest.approx(0.1 / 0.9)
    assert stats.finish_reason == "length"


def test_missing_entries_and_missing_top_lists_are_tolerated() -> None:
    stats = stats_from_logprobs([" a", RELEVANT], [None, -0.2], None, "stop")
    assert stats.sum_logprob == pytest.approx(-0.2)
    reading = stats.first(Group.ISREL)
    assert reading is not None and reading.missing == (IRRELEVANT,) and reading.probs[RELEVANT] == 1.0


def test_span_logprob_sums_the_continuation_tokens_only() -> None:
    # prompt "Q: x A:" (7 chars) + continuation " Yes please" -> tokens after offset 7
    tokens = ["Q", ":", " x", " A", ":", " Yes", " please", "!"]
    offsets = [0, 1, 2, 4, 6, 7, 11, 18]
    lps = [None, -1.0, -2.0, -0.5, -0.1, -0.7, -1.3, -9.0]
    assert span_logprob(tokens, offsets, lps, 7, 18) == pytest.approx(-2.0)
    # a token straddling the boundary counts with the continuation
    assert span_logprob(["Q", ": Yes"], [0, 1], [None, -0.4], 3, 6) == pytest.approx(-0.4)


def test_span_logprob_refuses_a_continuation_without_log_probabilities() -> None:
    with pytest.raises(BackendError, match="no log-probability"):
        span_logprob(["Yes"], [0], [None], 0, 3)


@pytest.mark.parametrize(("url", "root"), [
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000"),
    ("http://host/v1/", "http://host"),
    ("https://api.example.com/openai", "https://api.example.com/openai"),
])
def test_server_root(url: str, root: str) -> None:
    assert server_root(url) == root


def test_control_tokens_come_from_the_local_tokenizer_when_one_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from selfrag_langchain.llms.openai import OpenAICompatibleLLM

    without = OpenAICompatibleLLM(base_url="http://127.0.0.1:9/v1", model="m", api_key="k")
    assert without.control_tokens == ()  # the boundary's chat-template patterns stand in
    local = SimpleNamespace(all_special_tokens=["<|im_end|>"],
                            added_tokens_decoder={5: SimpleNamespace(content="<filename>"),
                                                  6: SimpleNamespace(content="  "),
                                                  7: SimpleNamespace(content="hello")})
    monkeypatch.setattr(OpenAICompatibleLLM, "_local_tokenizer", lambda self: local)
    with_tokenizer = OpenAICompatibleLLM(base_url="http://127.0.0.1:9/v1", model="m", api_key="k", tokenizer="t")
    # Whitespace and plain-word added tokens are ordinary text, not controls.
    assert with_tokenizer.control_tokens == ("<filename>", "<|im_end|>")
