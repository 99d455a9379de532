"""The retrieval layer's public names import from where the docs say they live."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "selfrag_langchain.embeddings": ["EmbeddingRuntime", "MiniLMEmbeddings", "default_model_path"],
    "selfrag_langchain.retrievers": [
        "EvalFileRetriever",
        "PassageRetriever",
        "SelfRAGRetriever",
        "documents_from_ctxs",
        "normalize_question",
    ],
    "selfrag_langchain.store": [
        "COLLECTION_NAME",
        "answering_store",
        "default_retriever",
        "has_store",
        "is_server",
        "open_store",
        "resolve_store_dir",
        "store_metadata",
        "store_size",
        "update_store_metadata",
    ],
    "selfrag_langchain.indexing": [
        "SUPPORTED_SUFFIXES",
        "IndexReport",
        "LoadedCorpus",
        "chunk_id",
        "collect_files",
        "index_documents",
        "index_paths",
        "load_documents",
    ],
    "selfrag_langchain.demo_corpus": [
        "DEMO_MARKER_KEY",
        "demo_data_path",
        "ensure_demo_store",
        "load_demo_documents",
    ],
}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_public_names(module: str) -> None:
    imported = importlib.import_module(module)
    assert sorted(imported.__all__) == sorted(PUBLIC[module])
    for name in PUBLIC[module]:
        assert hasattr(imported, name)
