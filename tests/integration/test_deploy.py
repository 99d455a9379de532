"""Two ``selfrag serve`` processes on shared real services, as docs/deploy.md describes: conversations in a
PostgreSQL server, passages on a Chroma server, client keys on both. One conversation is held across the
two processes, turn by turn, as when a load balancer sends each turn to whichever process is free, and
outlives an outage of the database."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from examples.corpus import PASSAGES
from selfrag_langchain.cli import main
from tests.servers import PostgresServer, running_postgres, start_selfrag_serve

pytestmark = pytest.mark.slow

ALICE, BOB = "alice-key-0123456789", "bob-key-0123456789"


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with running_postgres() as server:
        yield server


def _bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


def _ask(url: str, session: str, question: str) -> str:
    """The streamed answer's text, joined from its chunks."""
    text = []
    with httpx.stream("POST", f"{url}/v1/selfrag/sessions/{session}/messages", json={"content": question},
                      headers=_bearer(ALICE), timeout=600) as reply:
        assert reply.status_code == 200, reply.read()
        for line in reply.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                chunk = json.loads(line.removeprefix("data: "))
                assert "error" not in chunk, chunk
                text.append(chunk["choices"][0]["delta"].get("content") or "")
    return "".join(text)


def test_one_conversation_is_held_across_two_processes_on_postgres_and_chroma(
        postgres: PostgresServer, chroma: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"title": t, "text": x}) + "\n" for t, x in PASSAGES))
    assert main(["index", str(corpus), "--store", chroma]) == 0
    capsys.readouterr()
    flags = ("--store", chroma, "--history", postgres.url, "--client-key", ALICE, "--client-key", BOB,
             "--short", "--k", "2", "--mode", "always")
    first, one = start_selfrag_serve(*flags)
    try:
        second, two = start_selfrag_serve(*flags)
        try:
            session = httpx.post(f"{one}/v1/selfrag/sessions", headers=_bearer(ALICE), timeout=30).json()["session_id"]
            answer = _ask(one, session, "Who designed the Eiffel Tower?")
            seen = httpx.get(f"{two}/v1/selfrag/sessions/{session}", headers=_bearer(ALICE), timeout=30).json()
            assert [(m["role"], m["content"]) for m in seen["messages"]] == [
                ("user", "Who designed the Eiffel Tower?"), ("assistant", answer)]
            assert seen["messages"][1]["citations"][0]["title"] == "Eiffel Tower"

            _ask(two, session, "When was it built?")  # the next turn lands on the other process
            turns = httpx.get(f"{one}/v1/selfrag/sessions/{session}", headers=_bearer(ALICE), timeout=30).json()
            assert [m["role"] for m in turns["messages"]] == ["user", "assistant", "user", "assistant"]
            assert turns["messages"][2]["content"] == "When was it built?"

            postgres.stop()  # an outage: what needs the database fails, the rest answers, and nothing is lost
            down = httpx.get(f"{one}/v1/selfrag/sessions/{session}", headers=_bearer(ALICE), timeout=60)
            assert down.status_code == 500 and down.json()["error"]["message"].startswith("answering failed")
            plain = httpx.post(f"{two}/v1/chat/completions", headers=_bearer(ALICE), timeout=600,
                               json={"messages": [{"role": "user", "content": "Who designed the Eiffel Tower?"}]})
            assert plain.status_code == 200 and plain.json()["citations"]
            postgres.start()
            back = httpx.get(f"{one}/v1/selfrag/sessions/{session}", headers=_bearer(ALICE), timeout=60)
            assert back.status_code == 200 and len(back.json()["messages"]) == 4

            for url in (one, two):  # another key sees nothing on either process
                assert httpx.get(f"{url}/v1/selfrag/sessions/{session}", headers=_bearer(BOB),
                                 timeout=30).status_code == 404
            assert httpx.delete(f"{two}/v1/selfrag/sessions/{session}", headers=_bearer(ALICE),
                                timeout=30).status_code == 200
            assert httpx.get(f"{one}/v1/selfrag/sessions/{session}", headers=_bearer(ALICE),
                             timeout=30).status_code == 404
        finally:
            second.terminate()
            second.wait(timeout=30)
    finally:
        first.terminate()
        first.wait(timeout=30)
