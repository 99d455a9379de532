"""`selfrag serve` as a user starts it, on the real models and a real store: an OpenAI client gets a cited
answer, whole and streamed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openai import OpenAI

from tests.servers import start_selfrag_serve

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def store(passages_store: Path) -> Path:
    return passages_store


@pytest.fixture(scope="module")
def server(store: Path) -> Iterator[str]:
    process, url = start_selfrag_serve("--store", str(store), "--k", "2", "--max-depth", "2",
                                       "--history", str(store.parent / "chats.sqlite3"))
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_an_openai_client_gets_a_cited_answer_whole_and_streamed(server: str) -> None:
    client = OpenAI(base_url=f"{server}/v1", api_key="unused", timeout=300)
    question = [{"role": "user", "content": "Who designed the Eiffel Tower?"}]
    reply = client.chat.completions.create(model="selfrag", messages=question)  # type: ignore[arg-type]
    message = reply.choices[0].message
    assert "Gustave Eiffel" in (message.content or "") and "[1]" in (message.content or "")  # not the question's word
    titles = [a.url_citation.title for a in message.annotations or []]
    assert "Eiffel Tower" in titles
    cited = {p["title"]: p["text"] for p in (reply.model_extra or {})["citations"]}
    assert "Gustave Eiffel" in cited["Eiffel Tower"]

    chunks = list(client.chat.completions.create(model="selfrag", messages=question, stream=True))  # type: ignore[arg-type]
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert streamed == message.content  # greedy: the same answer, written as it became final
    assert chunks[-1].choices[0].finish_reason == "stop"
    health = httpx.get(f"{server}/health").json()
    assert health["answers"] == "long" and health["in_flight"] == 0
