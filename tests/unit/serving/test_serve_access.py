"""``selfrag serve`` for a team: client keys on every route but the health check and the page,
conversations private to the key that made them, retention, and limits that refuse oversize requests
at once, under concurrency, while normal requests are answered and memory stays bounded."""

from __future__ import annotations

import resource
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import openai
import pytest

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.history import HistoryDatabase
from selfrag_langchain.serving import create_app
from selfrag_langchain.serving.access import ANYONE, ClientKeys
from selfrag_langchain.serving.conversations import DAY, ConversationNotFound, Conversations
from selfrag_langchain.serving.settings import ServerLimits
from tests.fakes.mona_lisa_chat import ANSWER, FIRST, chat_model
from tests.servers import serving

ALICE, BOB = "alice-key-0123456789", "bob-key-9876543210"


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def keyed(tmp_path: Path) -> Iterator[str]:
    app = create_app(chat_model()[0], history=tmp_path / "chats.sqlite3", keys=ClientKeys([ALICE, BOB]))
    with serving(app) as url:
        yield url


# ---------------------------------------------------------------------- keys


@pytest.mark.parametrize("headers", [{}, bearer("wrong-key-000"), {"Authorization": ALICE},
                                     {"Authorization": f"Basic {ALICE}"}, {"Authorization": "Bearer"}])
def test_without_an_accepted_key_every_api_route_is_a_401(keyed: str, headers: dict[str, str]) -> None:
    for method, path, body in (("POST", "/v1/chat/completions", {"messages": [{"role": "user", "content": FIRST}]}),
                               ("GET", "/v1/models", None), ("POST", "/v1/selfrag/sessions", None),
                               ("POST", "/v1/selfrag/answer", {"messages": [{"role": "user", "content": FIRST}]}),
                               ("GET", "/openapi.json", None)):
        reply = httpx.request(method, f"{keyed}{path}", json=body, headers=headers, timeout=30)
        assert reply.status_code == 401, path
        assert reply.headers["www-authenticate"] == "Bearer"
        assert reply.json()["error"]["code"] == "invalid_api_key"
        assert "Authorization: Bearer" in reply.json()["error"]["message"]


def test_the_health_check_and_the_page_need_no_key(keyed: str) -> None:
    assert httpx.get(f"{keyed}/health").json()["keys_required"] is True
    assert httpx.get(f"{keyed}/").status_code == 200
    assert httpx.get(f"{keyed}/static/chat.js").status_code == 200


def test_an_openai_client_with_a_key_is_answered_and_without_one_is_refused(keyed: str) -> None:
    reply = openai.OpenAI(base_url=f"{keyed}/v1", api_key=BOB).chat.completions.create(
        model="selfrag", messages=[{"role": "user", "content": FIRST}])
    assert reply.choices[0].message.content == ANSWER
    with pytest.raises(openai.AuthenticationError, match="client key"):
        openai.OpenAI(base_url=f"{keyed}/v1", api_key="not-a-key-123").models.list()


def test_keys_come_from_flags_a_file_and_the_environment(tmp_path: Path) -> None:
    file = tmp_path / "keys.txt"
    file.write_text("# team keys\nfile-key-1234  # the ops team\n\n", encoding="utf-8")
    keys = ClientKeys.gather(["flag-key-1234"], file, environ={"SELFRAG_CLIENT_KEYS": "env-key-1234,env-key-5678"})
    assert len(keys) == 4 and keys.required
    for key in ("flag-key-1234", "file-key-1234", "env-key-1234", "env-key-5678"):
        assert keys.owner(f"Bearer {key}") not in (None, ANYONE)
    assert keys.owner("Bearer flag-key-1234") != keys.owner("Bearer file-key-1234")  # one owner per key
    assert keys.owner("bearer flag-key-1234") is not None  # the scheme's case does not matter
    assert ClientKeys.gather(environ={}).owner(None) == ANYONE  # no key asked: anyone


@pytest.mark.parametrize(("contents", "message"), [(None, "cannot read the client key file"),
                                                   ("# nothing\n", "holds no key"),
                                                   ("short\n", "at least 8 characters")])
def test_a_bad_key_source_is_one_clear_error(tmp_path: Path, contents: str | None, message: str) -> None:
    file = tmp_path / "keys.txt"
    if contents is not None:
        file.write_text(contents, encoding="utf-8")
    with pytest.raises(ConfigurationError, match=message):
        ClientKeys.gather(file=file, environ={})


# ---------------------------------------------------------------------- private conversations


def test_a_conversation_belongs_to_the_key_that_made_it(keyed: str) -> None:
    made = httpx.post(f"{keyed}/v1/selfrag/sessions", headers=bearer(ALICE), timeout=30)
    assert made.status_code == 201
    session = made.json()["session_id"]
    asked = httpx.post(f"{keyed}/v1/selfrag/sessions/{session}/messages", json={"content": FIRST},
                       headers=bearer(ALICE), timeout=30)
    assert asked.status_code == 200 and asked.text.rstrip().endswith("[DONE]")
    # Bob knows the id, and still sees nothing: the same 404 as for a conversation that does not exist.
    for method, path, body in (("GET", "", None), ("POST", "/messages", {"content": FIRST}), ("DELETE", "", None)):
        reply = httpx.request(method, f"{keyed}/v1/selfrag/sessions/{session}{path}", json=body,
                              headers=bearer(BOB), timeout=30)
        assert reply.status_code == 404 and reply.json()["error"]["message"] == f"no conversation {session!r}"
    mine = httpx.get(f"{keyed}/v1/selfrag/sessions/{session}", headers=bearer(ALICE)).json()["messages"]
    assert [m["role"] for m in mine] == ["user", "assistant"]  # Bob's tries changed nothing
    assert httpx.delete(f"{keyed}/v1/selfrag/sessions/{session}", headers=bearer(ALICE)).status_code == 200
    assert httpx.get(f"{keyed}/v1/selfrag/sessions/{session}", headers=bearer(ALICE)).status_code == 404


def test_conversations_unused_past_the_retention_are_deleted_with_their_messages(tmp_path: Path) -> None:
    from langchain_core.messages import HumanMessage

    path = tmp_path / "chats.sqlite3"
    registry = Conversations(HistoryDatabase(path), retention_days=2)
    old, recent = registry.create("owner"), registry.create("owner")
    registry.history(old, "owner").add_messages([HumanMessage("old question")])
    registry.history(recent, "owner").add_messages([HumanMessage("recent question")])
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE selfrag_conversations SET used_at = ? WHERE id = ?", (time.time() - 3 * DAY, old))
        conn.execute("UPDATE selfrag_conversations SET used_at = ? WHERE id = ?", (time.time() - 1 * DAY, recent))
    assert Conversations(HistoryDatabase(path), retention_days=2).expire() == 0  # a new registry expires at start
    with pytest.raises(ConversationNotFound):
        registry.history(old, "owner")
    assert [m.text for m in registry.history(recent, "owner").messages] == ["recent question"]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM selfrag_messages WHERE session_id = ?", (old,)).fetchone() == (0,)
    kept = Conversations(HistoryDatabase(path), retention_days=0)  # 0 keeps everything
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE selfrag_conversations SET used_at = 0")
    assert kept.expire() == 0 and kept.history(recent, "owner").messages


# ---------------------------------------------------------------------- limits


LIMITS = ServerLimits(max_body_bytes=20_000, max_question_chars=200, max_messages=4)


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[str]:
    with serving(create_app(chat_model()[0], history=tmp_path / "chats.sqlite3", limits=LIMITS)) as url:
        yield url


def test_a_long_question_and_too_many_messages_are_400_before_the_model_is_asked(tmp_path: Path) -> None:
    chat, retriever, condense = chat_model()
    long_question = [{"role": "user", "content": "Who painted " + "the Mona Lisa " * 20 + "?"}]
    many = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}] * 2 + [
        {"role": "user", "content": FIRST}]
    with serving(create_app(chat, history=tmp_path / "chats.sqlite3", limits=LIMITS)) as limited:
        for messages, message in ((long_question, "the server admits at most 200"), (many, "at most 4 messages")):
            reply = httpx.post(f"{limited}/v1/chat/completions", json={"messages": messages}, timeout=30)
            assert reply.status_code == 400 and message in reply.json()["error"]["message"]
        session = httpx.post(f"{limited}/v1/selfrag/sessions").json()["session_id"]
        reply = httpx.post(f"{limited}/v1/selfrag/sessions/{session}/messages",
                           json={"content": long_question[0]["content"]})
        assert reply.status_code == 400 and "at most 200" in reply.json()["error"]["message"]
        assert retriever.queries == [] and condense.prompts == []  # refused before any model work
        reply = httpx.post(f"{limited}/v1/chat/completions", json={"messages": many[-1:]}, timeout=30)
        assert reply.status_code == 200 and retriever.queries  # an admitted question does reach the retriever


class Upload:
    """A request body of ``size`` bytes sent in pieces, counting what the client got to send."""

    def __init__(self, size: int, piece: int = 65_536) -> None:
        self.size, self.piece, self.sent = size, piece, 0

    def __iter__(self) -> Iterator[bytes]:
        chunk = b" " * self.piece
        for _ in range(self.size // self.piece):
            self.sent += self.piece
            yield chunk


def test_an_oversize_body_is_413_with_or_without_a_length(limited: str) -> None:
    """The server stops reading at its limit: the client is answered 413 long before it has sent 40 MB (the
    socket buffers between them hold a few MB at most)."""
    for headers in ({}, {"content-length": str(40_000_000)}):
        upload = Upload(40_000_000)
        reply = httpx.post(f"{limited}/v1/chat/completions", content=upload, timeout=30,
                           headers={"content-type": "application/json", **headers})
        assert reply.status_code == 413 and reply.json()["error"]["code"] == "request_too_large"
        assert upload.sent < 20_000_000, f"{upload.sent} bytes were read before the refusal"


class RSSWatch:
    """The most this process's resident memory rose above its level at the start, sampled every 5 ms
    (the peak counter of ``getrusage`` would hide growth below an earlier test's peak)."""

    def __init__(self) -> None:
        self.grown = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    @staticmethod
    def rss() -> int:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * resource.getpagesize()

    def _sample(self) -> None:
        start = self.rss()
        while not self._done.wait(0.005):
            self.grown = max(self.grown, self.rss() - start)

    def __enter__(self) -> RSSWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()


def test_oversize_requests_at_once_leave_the_server_answering_and_its_memory_bounded(tmp_path: Path) -> None:
    """Twelve clients send 40 MB each (480 MB in all) while others ask normal questions: every oversize
    request gets its 413, every normal one its answer, and the process (server and clients alike) grows
    by far less than what was sent."""
    app = create_app(chat_model()[0], history=tmp_path / "chats.sqlite3", max_pending=16)
    with serving(app) as url, RSSWatch() as watch, ThreadPoolExecutor(16) as pool:
        oversize = [pool.submit(httpx.post, f"{url}/v1/chat/completions", content=Upload(40_000_000),
                                headers={"content-type": "application/json"}, timeout=60) for _ in range(12)]
        normal = [pool.submit(httpx.post, f"{url}/v1/chat/completions", timeout=60,
                              json={"messages": [{"role": "user", "content": FIRST}]}) for _ in range(4)]
        assert [f.result().status_code for f in oversize] == [413] * 12
        assert [f.result().json()["choices"][0]["message"]["content"] for f in normal] == [ANSWER] * 4
        assert httpx.get(f"{url}/health").json()["in_flight"] == 0
    assert watch.grown < 100_000_000, f"memory grew by {watch.grown / 1e6:.0f} MB"


def test_limits_are_checked_where_they_are_declared() -> None:
    with pytest.raises(ValueError, match="greater than or equal to 1000"):
        ServerLimits(max_body_bytes=10)
    assert ServerLimits().max_body_bytes == 1_000_000


def test_the_gate_lets_a_body_within_the_limit_through_whole(limited: str) -> None:
    """A chunked body under the limit reaches the app as sent (the gate reads it and hands it on)."""
    import json

    payload = json.dumps({"messages": [{"role": "user", "content": FIRST}]}).encode()

    def pieces() -> Iterator[bytes]:
        for start in range(0, len(payload), 7):
            yield payload[start:start + 7]

    reply = httpx.post(f"{limited}/v1/chat/completions", content=pieces(), timeout=30,
                       headers={"content-type": "application/json"})
    assert reply.status_code == 200 and reply.json()["choices"][0]["message"]["content"] == ANSWER
