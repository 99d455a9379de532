"""``selfrag serve`` answers one question before it listens (``--no-warm-up`` skips it); a warm-up that fails is one
warning line, and the server goes on to start."""

from __future__ import annotations

import pytest

from selfrag_langchain.cli import build_parser
from selfrag_langchain.commands.serve import _warm_up


class _Failing:
    def warm_up(self) -> None:
        raise ConnectionError("backend at http://127.0.0.1:9 refused")


class _Counting:
    calls = 0

    def warm_up(self) -> None:
        self.calls += 1


def test_serve_warms_up_unless_told_not_to() -> None:
    assert build_parser().parse_args(["serve"]).warm_up is True
    assert build_parser().parse_args(["serve", "--no-warm-up"]).warm_up is False


def test_a_warm_up_that_fails_is_one_warning_and_no_exception(capsys: pytest.CaptureFixture[str]) -> None:
    _warm_up(_Failing())
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("selfrag: warming up")
    assert lines[1:] == ["selfrag: warning: the warm-up question failed (ConnectionError: backend at "
                         "http://127.0.0.1:9 refused); the first request loads what it needs"]


def test_the_warm_up_asks_once(capsys: pytest.CaptureFixture[str]) -> None:
    rag = _Counting()
    _warm_up(rag)
    assert rag.calls == 1
    assert "warning" not in capsys.readouterr().err
