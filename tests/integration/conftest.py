"""Real models for integration tests, loaded once per test session."""

from __future__ import annotations

import copy
import os
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
    from selfrag_langchain.trainer.vocabulary import add_reflection_tokens

    model, tokenizer = copy.deepcopy(smollm2.hf_model), copy.deepcopy(smollm2.tokenizer)
    add_reflection_tokens(model, tokenizer)
    path = tmp_path_factory.mktemp("smollm2-reflection")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return TransformersLLM(model=str(path), max_new_tokens=8).load()
