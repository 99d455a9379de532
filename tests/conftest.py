"""Shared pytest fixtures. Tests never touch the user's home and never reach a model hub."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfrag_langchain.embeddings import MiniLMEmbeddings


def pytest_configure(config: pytest.Config) -> None:
    # Before any test module imports huggingface_hub, which reads these once.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def store_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh, empty SELFRAG_HOME for one test: the default store lives under it."""
    home = tmp_path / "selfrag-home"
    monkeypatch.setenv("SELFRAG_HOME", str(home))
    yield home


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbeddings:
    """The real all-MiniLM-L6-v2 embeddings, loaded once for the whole session."""
    embeddings = MiniLMEmbeddings()
    embeddings.embed_query("warm up")
    return embeddings
