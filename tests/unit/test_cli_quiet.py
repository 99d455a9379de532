"""The command line's output is its own: no third-party progress bars in the middle of answers."""

from __future__ import annotations

import os

import pytest

from selfrag_langchain import cli


def test_transformers_progress_bars_are_off_once_the_command_line_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    from transformers.utils import logging as hf_logging

    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "0")  # recorded, so the test leaves the environment as it was
    monkeypatch.delenv("HF_HUB_DISABLE_PROGRESS_BARS")
    hf_logging.enable_progress_bar()
    try:
        cli._quiet_libraries()
        assert not hf_logging.is_progress_bar_enabled()
        assert os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] == "1"
    finally:
        hf_logging.enable_progress_bar()
