"""Real models for integration tests, loaded once per test session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfrag_langchain.llms.transformers import TransformersLLM

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def selfrag_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Converted models are cached across sessions in the user's home unless SELFRAG_HOME is set;
    tests keep one cache per run so they never touch the user's files."""
    home = Path(os.environ.get("SELFRAG_TEST_HOME") or tmp_path_factory.mktemp("selfrag-home"))
    os.environ["SELFRAG_HOME"] = str(home)
    return home


@pytest.fixture(scope="session")
def smollm2(selfrag_home: Path) -> TransformersLLM:
    """SmolLM2-135M-Instruct, the embedded default, with short generations for speed."""
    return TransformersLLM(max_new_tokens=16).load()


@pytest.fixture(scope="session")
def smollm2_with_tokens(smollm2: TransformersLLM, tmp_path_factory: pytest.TempPathFactory) -> TransformersLLM:
    """SmolLM2 with the 15 reflection tokens added (untrained): a real model the inline path accepts."""
    from selfrag_langchain.trainer.vocabulary import save_with_reflection_tokens

    path = save_with_reflection_tokens(smollm2.hf_model, smollm2.tokenizer, tmp_path_factory.mktemp("smollm2-rt"))
    return TransformersLLM(model=str(path), max_new_tokens=8).load()


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server with SmolLM2 on loopback, one per session.

    Yields the base URL (``http://127.0.0.1:PORT/v1``); the served model is named
    ``smollm2-135m-instruct``. The server log is in the session's temp directory.
    """
    from tests.servers import start_llama_server

    server = start_llama_server(tmp_path_factory.mktemp("llama-server") / "server.log")
    try:
        yield server.base_url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def passages_store(tmp_path_factory: pytest.TempPathFactory, smollm2: TransformersLLM) -> Path:
    """A Chroma store of the examples' passages (Eiffel Tower, Mount Everest, ...), indexed by `selfrag index`
    once the model is loaded (what loading prints stays out of the tests' output)."""
    import contextlib
    import io
    import json

    from examples.corpus import PASSAGES
    from selfrag_langchain.cli import main

    root = tmp_path_factory.mktemp("passages")
    corpus = root / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"title": t, "text": x}) + "\n" for t, x in PASSAGES))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["index", str(corpus), "--store", str(root / "store")]) == 0  # not in a test's output
    return root / "store"


@pytest.fixture(scope="module")
def chroma(tmp_path_factory: pytest.TempPathFactory, selfrag_home: Path) -> Iterator[str]:
    """A Chroma server (``chroma run``) with a fresh database, one per test module; yields its URL."""
    from tests.servers import running_chroma

    with running_chroma(tmp_path_factory.mktemp("chroma-server")) as url:
        yield url
