"""An HTTP server on loopback whose answers a test scripts, for the OpenAI-compatible backend's tests."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, Any]
"""(HTTP status, JSON payload, raw bytes, or :data:`DROP`)."""
DROP = object()
"""A reply that closes the connection without answering, as a server that went down does."""


class Loopback:
    """An HTTP server on loopback whose answers a test scripts; it records every request."""

    def __init__(self, answer: Callable[[int], Reply], delay: float = 0.0) -> None:
        self.answer, self.delay, self.requests = answer, delay, []
        loopback = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                loopback.requests.append((self.path, body))
                time.sleep(loopback.delay)
                status, payload = loopback.answer(len(loopback.requests))
                if payload is DROP:  # the server process dies: the connection closes without an answer
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                kind = "text/html" if data.startswith(b"<") else "application/json"
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    self.send_header("retry-after-ms", "10")  # keep the client's backoff short in tests
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> Loopback:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
