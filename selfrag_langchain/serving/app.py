"""The HTTP app of ``selfrag serve``: Self-RAG's chat model (:class:`ChatSelfRAG`) behind an
OpenAI-compatible ``/v1/chat/completions`` (whole or streamed as server-sent events), the whole result and
trace at ``/v1/selfrag/answer``, and ``/health``.

One model serves every request: requests wait their turn for it (the backends take one call at a time on
a loaded model), and at most ``max_pending`` are admitted at once, so memory stays bounded; one more gets
HTTP 503 with ``Retry-After``. Before any of that, the gate (``gate.py``) turns away a request without an
accepted client key (401) or with a body over the limit (413); the question's length and the number of
messages are checked next (400), all before any model work. A bad request gets a 4xx JSON error saying
what is wrong, and a fault while answering one request is that request's HTTP 500 (or an error event in
its stream), never the server's end.

The web chat's conversations have ids the server issues, bound to the key that created them
(``conversations.py``): another key's conversation is a 404, as a missing one is.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from selfrag_langchain.chains.chat_model import RESULT_KEY, ChatSelfRAG
from selfrag_langchain.errors import ConfigurationError, InputError
from selfrag_langchain.history import HistoryDatabase
from selfrag_langchain.serving.access import ClientKeys
from selfrag_langchain.serving.conversations import ConversationNotFound, Conversations
from selfrag_langchain.serving.gate import Gate
from selfrag_langchain.serving.openai_api import (
    ChatCompletionRequest,
    ChatMessageIn,
    chunk,
    citations_of,
    cited_passages,
    completion,
    completion_id,
    declined,
    error_body,
    judgements,
    support_of,
    to_messages,
    turn_view,
    url_citations,
)
from selfrag_langchain.serving.settings import ServerLimits

log = logging.getLogger("selfrag.serve")
STATIC = Path(__file__).with_name("static")
"""The web chat: one page, its script and its style, no framework."""


class SessionQuestion(BaseModel):
    """A question asked in a web-chat conversation."""

    content: str


class Busy(Exception):
    """Every admission slot is taken."""


class Admission:
    """At most ``limit`` requests admitted at once; the others are turned away, not queued without end."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._slots = threading.BoundedSemaphore(limit)
        self._lock = threading.Lock()
        self.in_flight = 0

    def enter(self) -> Callable[[], None]:
        """Take a slot; returns the function that gives it back (once, however often it is called)."""
        if not self._slots.acquire(blocking=False):
            raise Busy
        with self._lock:
            self.in_flight += 1
        given_back = threading.Event()

        def leave() -> None:
            with self._lock:
                if given_back.is_set():
                    return
                given_back.set()
                self.in_flight -= 1
            self._slots.release()

        return leave

    @contextmanager
    def slot(self) -> Iterator[None]:
        leave = self.enter()
        try:
            yield
        finally:
            leave()


class AdmittedStream(StreamingResponse):
    """A streamed answer that gives its admission slot back when the response ends, however it ends: a
    client that goes away before the first event cancels the stream before its generator ever runs."""

    def __init__(self, content: Iterator[str], leave: Callable[[], None]) -> None:
        super().__init__(content, media_type="text/event-stream")
        self.leave = leave

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.leave()


def error_response(status: int, message: str, kind: str = "invalid_request_error", param: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(message, kind, param), status_code=status, headers=headers)


def _fault(error: Exception) -> JSONResponse:
    """The response for an error raised while answering: the caller's mistake (4xx) or a fault (500)."""
    if isinstance(error, Busy):
        return error_response(503, "the server is answering as many questions as it admits: retry shortly",
                              "server_busy", headers={"Retry-After": "2"})
    if isinstance(error, ConversationNotFound):
        return error_response(404, str(error), "not_found")
    if isinstance(error, InputError | ConfigurationError):  # the request's fault
        return error_response(400, str(error))
    log.exception("answering a request failed")
    return error_response(500, f"answering failed: {type(error).__name__}: {error}", "server_error")


def create_app(model: ChatSelfRAG, *, model_name: str = "selfrag", max_pending: int = 16,
               history: HistoryDatabase | Path | str | None = None, about: dict[str, Any] | None = None,
               keys: ClientKeys | None = None, limits: ServerLimits | None = None) -> FastAPI:
    """The app serving ``model``. ``history`` is the database of the web chat's conversations (a SQLite
    file or a database URL; default: the user data directory's file); ``about`` is shown by ``/health``
    (the store, the settings); ``keys`` are the client keys it asks for (none: anyone may ask);
    ``limits`` bound each request."""
    app = FastAPI(title="Self-RAG", summary="Self-RAG answers with citations, OpenAI-compatible")
    admission = Admission(max_pending)
    limits = limits or ServerLimits()
    keys = keys or ClientKeys()
    database = history if isinstance(history, HistoryDatabase) else HistoryDatabase(history)
    conversations = Conversations(database, retention_days=limits.retention_days)  # tables made at start
    app.add_middleware(Gate, keys=keys, max_body_bytes=limits.max_body_bytes)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def checked(messages: list[ChatMessageIn]) -> list[BaseMessage]:
        if len(messages) > limits.max_messages:
            raise InputError(f"a request holds at most {limits.max_messages} messages, got {len(messages)}")
        converted = to_messages(messages)
        check_question(converted[-1].text)
        return converted

    def check_question(question: str) -> None:
        if len(question) > limits.max_question_chars:
            raise InputError(f"the question is {len(question)} characters long; the server admits at most "
                             f"{limits.max_question_chars}")

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        return error_response(400, f"{where}: {first['msg']}" if where else str(first["msg"]), param=where or None)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return error_response(error.status_code, str(error.detail), "not_found" if error.status_code == 404 else
                              "invalid_request_error")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        """The web chat."""
        return FileResponse(STATIC / "index.html")

    @app.post("/v1/selfrag/sessions", status_code=201, response_model=None)
    def new_session(request: Request) -> Any:
        """A new web-chat conversation of the caller's key: ``{"session_id": ...}``, an id the server chose."""
        try:
            return {"session_id": conversations.create(request.state.owner)}
        except Exception as error:  # as above
            return _fault(error)

    @app.get("/v1/selfrag/sessions/{session_id}")
    def session(session_id: str, request: Request) -> Any:
        """A web-chat conversation as it was stored: each question, and each answer with its citations,
        cited passages and judgements."""
        try:
            store = conversations.history(session_id, request.state.owner)
            return {"session_id": session_id, "messages": [turn_view(m) for m in store.messages]}
        except Exception as error:  # as above
            return _fault(error)

    @app.delete("/v1/selfrag/sessions/{session_id}", response_model=None)
    def delete_session(session_id: str, request: Request) -> Any:
        """Delete a conversation and every message of it."""
        try:
            conversations.delete(session_id, request.state.owner)
        except Exception as error:  # as above
            return _fault(error)
        return {"session_id": session_id, "deleted": True}

    @app.post("/v1/selfrag/sessions/{session_id}/messages", response_model=None)
    def ask_in_session(session_id: str, body: SessionQuestion, request: Request) -> Any:
        """Answer ``body.content`` in the conversation ``session_id`` (streamed as ``/v1/chat/completions``
        streams); the finished turn is stored, so the conversation survives a reload and a restart."""
        try:
            if not body.content.strip():
                raise InputError("the question is empty")
            check_question(body.content)
            store = conversations.history(session_id, request.state.owner)
            messages = [*store.messages, HumanMessage(body.content)]
            leave = admission.enter()
        except Exception as error:  # as above
            return _fault(error)

        def keep(answer: AIMessage) -> None:
            store.add_messages([HumanMessage(body.content), answer])
            conversations.touch(session_id)

        return AdmittedStream(_events(messages, leave, keep), leave)

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"status": "ok", "model": model_name, "in_flight": admission.in_flight,
                "max_pending": admission.limit, "keys_required": keys.required, **(about or {})}

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": model_name, "object": "model", "created": 0,
                                            "owned_by": "selfrag"}]}

    @app.post("/v1/chat/completions", response_model=None)
    def chat_completions(body: ChatCompletionRequest) -> Any:
        try:
            messages = checked(body.messages)
            if body.stream:
                leave = admission.enter()
                return AdmittedStream(_events(messages, leave), leave)
            with admission.slot():
                return completion(model.invoke(messages), model_name)
        except Exception as error:  # every fault becomes this request's error response
            return _fault(error)

    @app.post("/v1/selfrag/answer", response_model=None)
    def answer(body: ChatCompletionRequest) -> Any:
        """The whole answer with its citations, Self-RAG's result and its trace (JSON)."""
        try:
            messages = checked(body.messages)
            with admission.slot():
                message = model.invoke(messages)
        except Exception as error:  # as above
            return _fault(error)
        notes = citations_of(message)
        return {"answer": message.text, "annotations": url_citations(notes), "citations": cited_passages(notes),
                "support": support_of(notes), "declined": declined(message.response_metadata.get(RESULT_KEY)),
                RESULT_KEY: message.response_metadata.get(RESULT_KEY)}

    def _events(messages: list[BaseMessage], leave: Callable[[], None],
                keep: Callable[[AIMessage], None] | None = None) -> Iterator[str]:
        """The answer as server-sent events: the role, each piece as it becomes final, then the citations
        and the judgements. Admitted by the caller; ``leave`` gives the slot back when the answer is done
        (the response gives it back too, if the stream never ran). ``keep`` stores the finished answer
        (a web-chat turn)."""
        cid, created = completion_id(), int(time.time())
        try:
            yield _sse(chunk(cid, created, model_name, {"role": "assistant", "content": ""}))
            full: AIMessageChunk | None = None
            for piece in model.stream(messages):
                full = piece if full is None else full + piece
                if piece.text:
                    yield _sse(chunk(cid, created, model_name, {"content": piece.text}))
            asked = (full.response_metadata if full is not None else {}).get(RESULT_KEY) or {}
            judged = _judged(asked)
            # Stored with what the chat model needs of an earlier turn (its subject), not the whole trace.
            context = {key: asked.get(key) for key in ("question", "standalone_question", "subject")}
            refused = declined(asked)
            answer = AIMessage(content=full.content if full is not None else "",
                               additional_kwargs={"judgements": judged, "declined": refused},
                               response_metadata={RESULT_KEY: context})
            notes = citations_of(answer)
            if keep is not None:
                keep(answer)
            yield _sse(chunk(cid, created, model_name, {"annotations": url_citations(notes)}, "stop",
                             citations=cited_passages(notes), support=support_of(notes), declined=refused,
                             judgements=judged))
        except Exception as error:  # the stream ends with an error event; the server goes on
            response = _fault(error)
            yield _sse(json.loads(bytes(response.body)))
        finally:
            leave()
        yield "data: [DONE]\n\n"

    return app


def _judged(asked: dict[str, Any]) -> list[str]:
    """The judgement lines of an answer; an answer is never lost for want of them."""
    try:
        return judgements(asked)
    except Exception:
        log.exception("reading the judgements of an answer failed")
        return []


def _sse(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"
