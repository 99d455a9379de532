"""Faults of an OpenAI-compatible server, against a real loopback HTTP server that misbehaves on purpose:
unreachable, slow, HTTP 429/500 (retried, then a clear error naming the URL), no log-probabilities, down in
the middle of an answer, answering garbage."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from selfrag_langchain.errors import BackendError
from selfrag_langchain.llms.base import stats_of
from selfrag_langchain.llms.openai import OpenAICompatibleLLM
from tests.fakes.loopback import DROP, Loopback, Reply
from tests.servers import free_port


def completion(text: str = " Paris", logprobs: bool = True) -> dict[str, Any]:
    lp = {"tokens": [text], "token_logprobs": [-0.25], "top_logprobs": [{text: -0.25}], "text_offset": [0]}
    return {"id": "c", "object": "text_completion", "created": 0, "model": "m",
            "choices": [{"text": text, "index": 0, "finish_reason": "stop", "logprobs": lp if logprobs else None}]}


@pytest.fixture
def serve() -> Iterator[Callable[..., Loopback]]:
    started: list[Loopback] = []

    def start(answer: Callable[[int], Reply], delay: float = 0.0) -> Loopback:
        server = Loopback(answer, delay).__enter__()
        started.append(server)
        return server

    yield start
    for server in started:
        server.__exit__()


def _llm(url: str, **kwargs: Any) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(base_url=url, model="m", api_key="k", **kwargs)


def test_unreachable_server_names_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(BackendError, match=f"cannot reach the server at {url}.*--base-url"):
        _llm(url, max_retries=0).invoke("hi")


@pytest.mark.parametrize(("status", "message"), [
    (429, r"kept refusing with HTTP 429 \(rate limit\) after 2 retries"),
    (500, "failed with HTTP 500 after 2 retries: boom"),
])
def test_http_errors_are_retried_then_reported(serve: Callable[..., Loopback], status: int, message: str) -> None:
    server = serve(lambda n: (status, {"error": {"message": "boom"}}))
    with pytest.raises(BackendError, match=f"server at {server.base_url} .*{message}"):
        _llm(server.base_url, max_retries=2).invoke("hi")
    assert len(server.requests) == 3  # the first try and two retries


def test_a_transient_failure_is_retried_and_the_answer_used(serve: Callable[..., Loopback]) -> None:
    server = serve(lambda n: (503, {"error": {"message": "busy"}}) if n == 1 else (200, completion()))
    result = _llm(server.base_url, max_retries=2).generate(["hi"])
    assert result.generations[0][0].text == " Paris"
    assert stats_of(result.generations[0][0]).sum_logprob == pytest.approx(-0.25)
    assert len(server.requests) == 2
    path, body = server.requests[-1]
    assert path == "/v1/completions" and body["logprobs"] == 5 and body["model"] == "m"


def test_a_slow_server_times_out_with_a_clear_error(serve: Callable[..., Loopback]) -> None:
    server = serve(lambda n: (200, completion()), delay=1.5)
    start = time.monotonic()
    with pytest.raises(BackendError, match=f"server at {server.base_url} did not answer within 0.3 s"):
        _llm(server.base_url, timeout=0.3, max_retries=0).invoke("hi")
    assert time.monotonic() - start < 1.4


def test_a_client_error_is_not_retried(serve: Callable[..., Loopback]) -> None:
    server = serve(lambda n: (404, {"error": {"message": "The model `m` does not exist."}}))
    with pytest.raises(BackendError, match="rejected the request with HTTP 404: The model `m` does not exist"):
        _llm(server.base_url, max_retries=2).invoke("hi")
    assert len(server.requests) == 1


def test_a_server_without_logprobs_says_which_option_to_enable(serve: Callable[..., Loopback]) -> None:
    server = serve(lambda n: (200, completion(logprobs=False)))
    with pytest.raises(BackendError, match=r"returned no token log-probabilities.*--logits_all True.*--max-logprobs"):
        _llm(server.base_url).invoke("hi")


async def test_async_generation_fails_the_same_way(serve: Callable[..., Loopback]) -> None:
    server = serve(lambda n: (500, {"error": {"message": "boom"}}))
    with pytest.raises(BackendError, match=f"server at {server.base_url} failed with HTTP 500 after 1 retry"):
        await _llm(server.base_url, max_retries=1).ainvoke("hi")
    assert len(server.requests) == 2


async def test_concurrency_limit_bounds_requests_in_flight(serve: Callable[..., Loopback]) -> None:
    in_flight, peak, lock = [0], [0], threading.Lock()

    def answer(n: int) -> Reply:
        return 200, completion()

    server = serve(answer, delay=0.1)
    original = server.server.RequestHandlerClass.do_POST

    def counting(handler: Any) -> None:
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        try:
            original(handler)
        finally:
            with lock:
                in_flight[0] -= 1

    server.server.RequestHandlerClass.do_POST = counting
    llm = _llm(server.base_url, concurrency=2)
    start = time.monotonic()
    result = await llm.agenerate([f"q{i}" for i in range(6)])
    elapsed = time.monotonic() - start
    assert len(result.generations) == 6 and peak[0] == 2
    assert elapsed >= 0.3 - 0.05  # 6 requests, 2 at a time, 0.1 s each


def test_a_server_that_goes_down_mid_answer_is_named_and_nothing_is_half_returned(
        serve: Callable[..., Loopback]) -> None:
    """The first branch is answered, then the server dies: the call fails as a whole, in one line."""
    server = serve(lambda n: (200, completion()) if n == 1 else (200, DROP))
    llm = _llm(server.base_url, max_retries=1, concurrency=1)
    with pytest.raises(BackendError, match=f"^cannot reach the server at {server.base_url} \\(after 1 retry\\)"):
        llm.generate(["first branch", "second branch"])
    assert len(server.requests) == 3  # the answered one, then the dropped one and its retry


def test_selfrag_stops_with_the_servers_error_when_it_dies_during_a_question(serve: Callable[..., Loopback]) -> None:
    from selfrag_langchain import CriticReflector, SelfRAG

    server = serve(lambda n: (200, completion()) if n == 1 else (200, DROP))
    llm = _llm(server.base_url, max_retries=0)
    rag = SelfRAG(generator=llm, reflector=CriticReflector(llm), mode="never")
    with pytest.raises(BackendError, match=f"^cannot reach the server at {server.base_url}"):
        rag.invoke("Who?")


@pytest.mark.parametrize(("payload", "what"), [
    (b"<html>502 Bad Gateway</html>", "not JSON"),  # sent as text/html
    (b'{"choices": [', "not JSON"),  # sent as application/json
    ({"id": "c", "object": "text_completion"}, "a completion without choices"),
    ({"choices": [{"text": None, "index": 0}]}, "a completion choice without text"),
])
def test_garbage_from_the_server_is_a_clear_error(serve: Callable[..., Loopback], payload: Any, what: str) -> None:
    server = serve(lambda n: (200, payload))
    with pytest.raises(BackendError, match=f"server at {server.base_url} returned a malformed response \\({what}"):
        _llm(server.base_url, max_retries=0).invoke("hi")
