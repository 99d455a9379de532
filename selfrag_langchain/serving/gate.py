"""The gate every HTTP request passes before the app sees it: the client key, then the body size.

A pure ASGI middleware, so that nothing is parsed before it has decided: a request without an accepted
key gets 401 from its headers alone, a ``Content-Length`` over the limit gets 413 before a byte of the
body is read, and a body sent without a length is read only up to the limit. The body it admits (at most
``max_body_bytes``) is handed to the app as read; the owner of the key goes into the request's state.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from selfrag_langchain.serving.access import ClientKeys
from selfrag_langchain.serving.openai_api import error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

OPEN_PATHS = ("/health", "/")
"""Paths answered without a key: the health check and the web chat's page (which then asks for one)."""
OPEN_PREFIXES = ("/static/",)


def is_open(path: str) -> bool:
    return path in OPEN_PATHS or path.startswith(OPEN_PREFIXES)


async def _reply(send: Send, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
    body = json.dumps(payload).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
           (b"connection", b"close")]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class Gate:
    """Checks the key and bounds the body of every HTTP request to ``app``."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], keys: ClientKeys,
                 max_body_bytes: int) -> None:
        self.app = app
        self.keys = keys
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not is_open(scope["path"]):
            owner = self.keys.owner(_header(scope, b"authorization"))
            if owner is None:
                await _reply(send, 401, error_body(
                    "this server needs a client key: send 'Authorization: Bearer <key>'",
                    code="invalid_api_key"), {"WWW-Authenticate": "Bearer"})
                return
            scope.setdefault("state", {})["owner"] = owner
        else:
            scope.setdefault("state", {})["owner"] = None
        too_large = error_body(f"the request body is larger than the server admits ({self.max_body_bytes} bytes)",
                               code="request_too_large")
        length = _header(scope, b"content-length")
        if length is not None and length.strip().isdigit() and int(length) > self.max_body_bytes:
            await _reply(send, 413, too_large)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.max_body_bytes:
                await _reply(send, 413, too_large)
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(bytes(body), receive), send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the app the body already read, then listens on (for a disconnect)."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
