"""``selfrag serve``'s HTTP app on a real loopback server, with scripted models: an OpenAI client gets the
cited answer whole and streamed, a follow-up is answered from the conversation, bad requests get 4xx JSON
errors, a fault in one request is that request's error only, and concurrent requests are bounded."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from openai import OpenAI

from selfrag_langchain.serving import create_app
from tests.fakes.mona_lisa_chat import ANSWER, FIRST, FOLLOW_UP, MONA_LISA, STANDALONE, chat_model
from tests.servers import serving


class Faulty(BaseRetriever):
    """The scripted retriever, except that a query naming ``boom`` fails and every query waits ``delay``."""

    inner: BaseRetriever
    delay: float = 0.0

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        time.sleep(self.delay)
        if "boom" in query:
            raise RuntimeError("the store went away")
        return self.inner.invoke(query)


def _app(delay: float = 0.0, **kwargs: Any) -> tuple[Any, Any]:
    model, retriever, _ = chat_model()
    model.rag.retriever = Faulty(inner=retriever, delay=delay)
    return create_app(model, **kwargs), retriever


@pytest.fixture
def server(tmp_path: Any) -> Iterator[tuple[str, Any]]:
    app, retriever = _app(history=tmp_path / "chats.sqlite3")
    with serving(app) as url:
        yield url, retriever


def _ask(url: str, question: str = FIRST) -> httpx.Response:
    return httpx.post(f"{url}/v1/chat/completions", timeout=30,
                      json={"model": "selfrag", "messages": [{"role": "user", "content": question}]})


def test_an_openai_client_gets_the_answer_with_its_citations(server: tuple[str, Any]) -> None:
    url, _ = server
    client = OpenAI(base_url=f"{url}/v1", api_key="unused")
    reply = client.chat.completions.create(model="selfrag", messages=[{"role": "user", "content": FIRST}])
    message = reply.choices[0].message
    assert message.content == ANSWER and reply.choices[0].finish_reason == "stop"
    first, second = message.annotations or []
    assert first.url_citation.title == "Mona Lisa" and first.url_citation.url == MONA_LISA.metadata["source"]
    assert ANSWER[first.url_citation.start_index:first.url_citation.end_index] == "Leonardo da Vinci painted it [1]."
    assert second.url_citation.title == "Leonardo" and second.url_citation.url == "passage:2"
    passages = (reply.model_extra or {})["citations"]
    assert [(p["index"], p["title"]) for p in passages] == [(1, "Mona Lisa"), (2, "Leonardo")]
    assert passages[0]["text"] == MONA_LISA.page_content
    assert [m.id for m in client.models.list().data] == ["selfrag"]


def test_a_streamed_answer_arrives_piece_by_piece_then_its_citations(server: tuple[str, Any]) -> None:
    url, _ = server
    client = OpenAI(base_url=f"{url}/v1", api_key="unused")
    chunks = list(client.chat.completions.create(model="selfrag", stream=True,
                                                 messages=[{"role": "user", "content": FIRST}]))
    pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert len(pieces) == 2 and "".join(pieces) == ANSWER  # one piece per segment, as each becomes final
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    notes = (last.choices[0].delta.model_extra or {})["annotations"]
    assert [n["url_citation"]["title"] for n in notes] == ["Mona Lisa", "Leonardo"]
    assert [p["title"] for p in (last.model_extra or {})["citations"]] == ["Mona Lisa", "Leonardo"]


def test_a_follow_up_is_answered_from_the_conversation_it_comes_with(server: tuple[str, Any]) -> None:
    url, retriever = server
    reply = httpx.post(f"{url}/v1/chat/completions", timeout=30, json={"messages": [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": FIRST}, {"role": "assistant", "content": ANSWER},
        {"role": "user", "content": [{"type": "text", "text": FOLLOW_UP}]}]})
    assert reply.status_code == 200
    assert STANDALONE in retriever.queries
    assert "Louvre" in reply.json()["choices"][0]["message"]["content"]


def test_the_whole_result_and_trace_and_health(server: tuple[str, Any]) -> None:
    url, _ = server
    body = httpx.post(f"{url}/v1/selfrag/answer", timeout=30,
                      json={"messages": [{"role": "user", "content": FIRST}]}).json()
    assert body["answer"] == ANSWER and body["citations"][0]["title"] == "Mona Lisa"
    assert body["selfrag"]["result"]["answer"] == ANSWER and body["selfrag"]["result"]["candidates"]
    health = httpx.get(f"{url}/health").json()
    assert health["status"] == "ok" and health["in_flight"] == 0


@pytest.mark.parametrize(("payload", "message"), [
    ({}, "messages: Field required"),
    ({"messages": []}, "messages: List should have at least 1 item"),
    ({"messages": [{"role": "robot", "content": "hi"}]}, "messages.0.role"),
    ({"messages": [{"role": "assistant", "content": "hi"}]}, "the last message must be the user's question"),
    ({"messages": [{"role": "user", "content": "  "}]}, "the question (the last user message) is empty"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]},
     "only text content is supported"),
])
def test_a_bad_request_gets_a_400_saying_what_is_wrong(server: tuple[str, Any], payload: dict[str, Any],
                                                         message: str) -> None:
    url, _ = server
    reply = httpx.post(f"{url}/v1/chat/completions", json=payload, timeout=30)
    assert reply.status_code == 400
    assert message in reply.json()["error"]["message"]


def test_a_body_that_is_not_json_and_an_unknown_path_are_json_errors(server: tuple[str, Any]) -> None:
    url, _ = server
    reply = httpx.post(f"{url}/v1/chat/completions", content=b"{not json", timeout=30,
                       headers={"content-type": "application/json"})
    assert reply.status_code == 400 and "JSON" in reply.json()["error"]["message"]
    missing = httpx.get(f"{url}/v2/nothing")
    assert missing.status_code == 404 and missing.json()["error"]["message"] == "Not Found"


def test_a_fault_in_one_request_is_that_requests_error_and_the_server_goes_on(server: tuple[str, Any]) -> None:
    url, _ = server
    failed = _ask(url, "boom: what now?")
    assert failed.status_code == 500
    assert failed.json()["error"]["type"] == "server_error"
    assert failed.json()["error"]["message"].startswith("answering failed: ")
    streamed = httpx.post(f"{url}/v1/chat/completions", timeout=30, json={
        "stream": True, "messages": [{"role": "user", "content": "boom again"}]})
    assert '"error"' in streamed.text and streamed.text.rstrip().endswith("data: [DONE]")
    assert _ask(url).json()["choices"][0]["message"]["content"] == ANSWER
    assert httpx.get(f"{url}/health").json()["in_flight"] == 0  # every slot was given back


def test_concurrent_requests_are_all_answered(tmp_path: Any) -> None:
    app, _ = _app(delay=0.05, history=tmp_path / "chats.sqlite3")
    with serving(app) as url, ThreadPoolExecutor(6) as pool:
        replies = list(pool.map(lambda _: _ask(url), range(6)))
    assert [r.status_code for r in replies] == [200] * 6
    assert {r.json()["choices"][0]["message"]["content"] for r in replies} == {ANSWER}


def _until(condition: Any, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_client_that_leaves_mid_stream_gives_its_slot_back(tmp_path: Any) -> None:
    app, _ = _app(delay=1.0, max_pending=1, history=tmp_path / "chats.sqlite3")
    with serving(app) as url:
        with httpx.stream("POST", f"{url}/v1/chat/completions", timeout=30, json={
                "stream": True, "messages": [{"role": "user", "content": FIRST}]}) as stream:
            assert stream.status_code == 200
            _until(lambda: httpx.get(f"{url}/health").json()["in_flight"] == 1)
        # Gone before the answer: the slot comes back, and the next question is answered.
        _until(lambda: httpx.get(f"{url}/health").json()["in_flight"] == 0)
        assert _ask(url).status_code == 200


def test_the_callers_mistakes_are_400_and_faults_of_the_machinery_500() -> None:
    from selfrag_langchain.errors import BackendError, ConfigurationError, InputError, StoreError
    from selfrag_langchain.serving.app import _fault

    assert _fault(InputError("empty")).status_code == _fault(ConfigurationError("k")).status_code == 400
    assert _fault(BackendError("down")).status_code == _fault(StoreError("gone")).status_code == 500


def test_requests_beyond_the_admission_limit_are_turned_away_with_503(tmp_path: Any) -> None:
    app, _ = _app(delay=0.5, max_pending=1, history=tmp_path / "chats.sqlite3")
    with serving(app) as url:
        first: list[httpx.Response] = []
        thread = threading.Thread(target=lambda: first.append(_ask(url)))
        thread.start()
        _until(lambda: httpx.get(f"{url}/health").json()["in_flight"] == 1)  # the first holds the only slot
        second = _ask(url)
        thread.join()
    assert first[0].status_code == 200
    assert second.status_code == 503 and second.headers["retry-after"] == "2"
    assert "retry shortly" in second.json()["error"]["message"]


# ---------------------------------------------------------------------- the web chat's conversations


def _new_session(url: str, headers: dict[str, str] | None = None) -> str:
    reply = httpx.post(f"{url}/v1/selfrag/sessions", headers=headers, timeout=30)
    assert reply.status_code == 201
    return reply.json()["session_id"]


def _session_ask(url: str, session: str, question: str, headers: dict[str, str] | None = None) -> str:
    return httpx.post(f"{url}/v1/selfrag/sessions/{session}/messages", json={"content": question},
                      headers=headers, timeout=30).text


def test_a_web_chat_conversation_is_stored_with_its_citations_and_judgements(tmp_path: Any) -> None:
    model, retriever, _ = chat_model()
    with serving(create_app(model, history=tmp_path / "chats.sqlite3")) as url:
        alice = _new_session(url)
        assert httpx.get(f"{url}/v1/selfrag/sessions/{alice}").json()["messages"] == []
        stream = _session_ask(url, alice, FIRST)
        assert '"judgements"' in stream and stream.rstrip().endswith("data: [DONE]")
        _session_ask(url, alice, FOLLOW_UP)  # answered from the stored conversation
        assert STANDALONE in retriever.queries
        page = httpx.get(f"{url}/").text
    # Another server on the same file (a restart) shows the same conversation.
    with serving(create_app(chat_model()[0], history=tmp_path / "chats.sqlite3")) as url:
        messages = httpx.get(f"{url}/v1/selfrag/sessions/{alice}").json()["messages"]
        assert httpx.get(f"{url}/v1/selfrag/sessions/{_new_session(url)}").json()["messages"] == []
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    first = messages[1]
    assert messages[0]["content"] == FIRST and first["content"] == ANSWER
    assert [c["title"] for c in first["citations"]] == ["Mona Lisa", "Leonardo"]
    assert first["annotations"][0]["url_citation"]["end_index"] == 33
    assert any("Mona Lisa" in line for line in first["judgements"])  # the search, one line per candidate
    assert "/static/chat.js" in page


def test_a_short_form_web_chat_answer_carries_its_branches_judgements(tmp_path: Any) -> None:
    from tests.fakes.mona_lisa_chat import short_form_chat

    with serving(create_app(short_form_chat(), history=tmp_path / "chats.sqlite3")) as url:
        carol = _new_session(url)
        _session_ask(url, carol, FIRST)
        asked, answered = httpx.get(f"{url}/v1/selfrag/sessions/{carol}").json()["messages"]
    assert asked == {"role": "user", "content": FIRST}
    assert answered["content"] == "Leonardo da Vinci painted it."
    assert answered["citations"][0]["title"] == "Mona Lisa"
    assert answered["judgements"] and any("Mona Lisa" in line for line in answered["judgements"])


def test_conversation_ids_are_issued_by_the_server_and_unguessable(server: tuple[str, Any]) -> None:
    url, _ = server
    ids = {_new_session(url) for _ in range(5)}
    assert len(ids) == 5 and all(len(i) == 32 for i in ids)
    for chosen in ("alice", "0" * 32):  # an id the client makes up is nobody's conversation
        assert httpx.get(f"{url}/v1/selfrag/sessions/{chosen}").status_code == 404
        reply = httpx.post(f"{url}/v1/selfrag/sessions/{chosen}/messages", json={"content": FIRST}, timeout=30)
        assert reply.status_code == 404 and reply.json()["error"]["type"] == "not_found"


def test_a_deleted_conversation_is_gone_with_its_messages(tmp_path: Any) -> None:
    import sqlite3

    path = tmp_path / "chats.sqlite3"
    with serving(_app(history=path)[0]) as url:
        kept, dropped = _new_session(url), _new_session(url)
        _session_ask(url, kept, FIRST)
        _session_ask(url, dropped, FIRST)
        deleted = httpx.delete(f"{url}/v1/selfrag/sessions/{dropped}")
        assert deleted.status_code == 200 and deleted.json()["deleted"] is True
        assert httpx.get(f"{url}/v1/selfrag/sessions/{dropped}").status_code == 404
        assert httpx.delete(f"{url}/v1/selfrag/sessions/{dropped}").status_code == 404
        assert len(httpx.get(f"{url}/v1/selfrag/sessions/{kept}").json()["messages"]) == 2
    with sqlite3.connect(path) as conn:
        sessions = {row[0] for row in conn.execute("SELECT DISTINCT session_id FROM selfrag_messages")}
    assert sessions == {kept}


@pytest.mark.parametrize(("path", "payload", "message"), [
    ("/v1/selfrag/sessions/{session}/messages", {"content": " "}, "the question is empty"),
    ("/v1/selfrag/sessions/{session}/messages", {}, "content: Field required"),
])
def test_a_bad_web_chat_request_gets_a_400(server: tuple[str, Any], path: str, payload: dict[str, Any],
                                           message: str) -> None:
    url, _ = server
    reply = httpx.post(f"{url}{path.format(session=_new_session(url))}", json=payload, timeout=30)
    assert reply.status_code == 400 and message in reply.json()["error"]["message"]
