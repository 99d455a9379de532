"""What the OpenAI-compatible backend asks a server for, against a loopback server that answers as vLLM
does: label scoring by prefix-cacheable generation requests (never echoing the prompt once token ids are
known), and long-form segments stopped at the end of their sentence when the server keeps stop strings."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from selfrag_langchain.llms.base import ContinuationRequest, stats_of
from selfrag_langchain.llms.openai import OpenAICompatibleLLM
from selfrag_langchain.llms.openai_scoring import PROBE_PROMPT
from tests.fakes.loopback import Loopback, Reply

VOCAB = {"Yes": 11, "No": 12, "Part": 13, "ly": 14}
TOP = {"Yes": -0.1, "No": -3.0}
"""The top log-probabilities after any prompt; a forced token outside them gets ``OTHERS``."""
OTHERS = {"Part": -2.0, "ly": -0.5}


def completion(tokens: list[str], logprobs: list[float], top: dict[str, float] | None = None,
               stop_reason: str | None = None) -> dict[str, Any]:
    text = "".join(tokens)
    starts = [sum(len(t) for t in tokens[:i]) for i in range(len(tokens))]
    lp = {"tokens": tokens, "token_logprobs": logprobs, "top_logprobs": [top or {}] * len(tokens),
          "text_offset": [100 + s for s in starts]}  # offsets count from the prompt's start, as servers do
    choice = {"text": text, "index": 0, "finish_reason": "stop", "logprobs": lp, "stop_reason": stop_reason}
    return {"id": "c", "object": "text_completion", "created": 0, "model": "m", "choices": [choice]}


class VllmLike:
    """Answers ``/tokenize`` from :data:`VOCAB`, a forced request with its forced token, and a plain
    scoring request with the top log-probabilities after the prompt."""

    def __init__(self, biased: bool = False) -> None:
        self.server = Loopback(self.answer)
        self.biased = biased
        """Report a forced token's log-probability after the bias (0), as a server that cannot be forced."""

    def answer(self, n: int) -> Reply:
        path, body = self.server.requests[n - 1]
        if path.endswith("/extras/tokenize"):  # llama-cpp-python's path: vLLM has none
            return 404, {"error": {"message": "not found"}}
        if path.endswith("/tokenize"):
            return 200, {"tokens": [VOCAB[w] for w in re.findall("|".join(VOCAB), body["prompt"])]}
        names = {v: k for k, v in VOCAB.items()}
        if body.get("logit_bias"):
            token = names[int(next(iter(body["logit_bias"])))]
            return 200, completion([token], [0.0 if self.biased else {**TOP, **OTHERS}[token]])
        return 200, completion(["Yes"], [TOP["Yes"]], top=TOP)


@pytest.fixture
def server() -> Iterator[VllmLike]:
    fake = VllmLike()
    with fake.server:
        yield fake


def _llm(url: str, **kwargs: Any) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(base_url=url, model="m", api_key="k", max_retries=0, **kwargs)


def test_labels_are_scored_without_echoing_the_prompt_once_token_ids_are_known(server: VllmLike) -> None:
    llm = _llm(server.server.base_url)
    assert llm.scorer.forced_is_faithful()
    assert llm.scoring_mode() == "forced"
    scores = llm.score_continuations([ContinuationRequest("judge this passage", ("Yes", "No", "Partly"),
                                                          chat=False)])
    assert scores == [[pytest.approx(-0.1), pytest.approx(-3.0), pytest.approx(-2.5)]]
    completions = [body for path, body in server.server.requests
                   if path.endswith("/completions") and body["prompt"] != PROBE_PROMPT]
    assert not any(body.get("echo") for body in completions)
    # One read of the prompt for the top-k, then only the two tokens of the label outside it.
    assert [body["prompt"] for body in completions] == ["judge this passage", "judge this passage",
                                                        "judge this passagePart"]


def test_a_server_that_reports_the_biased_value_is_not_scored_by_forcing() -> None:
    fake = VllmLike(biased=True)
    with fake.server:
        llm = _llm(fake.server.base_url)
        assert not llm.scorer.forced_is_faithful()


def test_sentence_stops_are_sent_and_kept_only_when_the_server_is_said_to_keep_them(server: VllmLike) -> None:
    def answer(n: int) -> Reply:
        return 200, completion(["Paris", " is", " big", ". "], [-1.0, -0.5, -0.25, -0.125], stop_reason=". ")

    server.server.answer = answer
    plain = _llm(server.server.base_url)
    assert not plain.stops_at_sentence_end
    plain.generate(["Tell me about Paris."], stop_at_sentence_end=True)
    assert "stop" not in server.server.requests[-1][1]

    keeping = _llm(server.server.base_url, sentence_stops=True)
    assert keeping.stops_at_sentence_end
    generation = keeping.generate(["Tell me about Paris."], stop_at_sentence_end=True).generations[0][0]
    body = server.server.requests[-1][1]
    assert ". " in body["stop"] and body["include_stop_str_in_output"] is True
    stats = stats_of(generation)
    assert stats is not None and stats.finish_reason == "sentence"
    assert stats.token_ends == (5, 8, 12, 14)
    assert stats.upto(len("Paris is")).sum_logprob == pytest.approx(-1.5)
