"""A store named by a Chroma server's URL stays a URL from the command line to the pipeline, and
``selfrag serve``'s own flags are checked before anything loads."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from selfrag_langchain.cli import main, parse_command_line
from selfrag_langchain.commands.options import settings_from_args
from selfrag_langchain.files.paths import is_server, store_location
from selfrag_langchain.pipeline import PipelineSettings


@pytest.mark.parametrize(("given", "expected"), [
    ("http://127.0.0.1:8001", "http://127.0.0.1:8001"),
    ("https://chroma.example.org", "https://chroma.example.org"),
    ("./store", Path("store")),
    ("http", Path("http")),
])
def test_a_store_is_a_server_url_or_a_directory(given: str, expected: object) -> None:
    assert store_location(given) == expected
    assert is_server(store_location(given)) is isinstance(expected, str)


def test_the_url_survives_the_flags_and_the_settings() -> None:
    args = parse_command_line(["ask", "q", "--store", "http://127.0.0.1:8001"])
    assert settings_from_args(args).store == "http://127.0.0.1:8001"  # not mangled into a path
    assert PipelineSettings(store="./here").store == Path("here")


@pytest.mark.parametrize(("argv", "message"), [
    (["serve", "--port", "70000"], "--port must be in 1..65535, got 70000"),
    (["serve", "--max-pending", "0"], "--max-pending must be in 1..32, got 0"),
    (["serve", "--max-pending", "100"], "--max-pending must be in 1..32, got 100"),
    (["serve", "--max-body-bytes", "10"], "--max-body-bytes: input should be greater than or equal to 1000, got 10"),
    (["serve", "--retention-days", "-1"], "--retention-days: input should be greater than or equal to 0, got -1.0"),
    (["serve", "--client-key", "short"], "a client key is at least 8 characters with no spaces: got one of 5 "
                                         "character(s)"),
    (["serve", "--client-keys-file", "/nonexistent/keys.txt"],
     "cannot read the client key file /nonexistent/keys.txt: [Errno 2] No such file or directory: "
     "'/nonexistent/keys.txt'"),
])
def test_serve_flags_out_of_range_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
                                               ) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"selfrag: error: {message}"


def test_serve_on_a_taken_port_is_one_line_before_any_model_loads(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert main(["serve", "--port", str(taken.getsockname()[1])]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("selfrag: error: port ") and err.endswith("choose another with --port")


def test_serve_with_an_unreachable_history_database_is_one_line_before_any_model_loads(
        capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    started = time.perf_counter()
    assert main(["serve", "--port", str(port), "--history", "postgresql://selfrag:secret@127.0.0.1:1/chats"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("selfrag: error: cannot open the chat history postgresql+psycopg://selfrag:***@127.0.0.1:1/chats")
    assert "\n" not in err and "secret" not in err and time.perf_counter() - started < 10
