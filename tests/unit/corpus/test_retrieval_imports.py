"""The retrieval layer's public names import from where the docs say they live."""

from __future__ import annotations

import importlib
from pathlib import Path

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
    "selfrag_langchain.corpus": ["answering_store", "default_retriever", "has_store", "index_documents",
                                 "index_paths", "load_documents", "open_store"],
    "selfrag_langchain.corpus.answering": ["answering_store", "answers_from_demo", "default_retriever"],
    "selfrag_langchain.corpus.store": [
        "COLLECTION_NAME",
        "has_store",
        "is_server",
        "open_store",
        "resolve_store_dir",
        "store_metadata",
        "store_size",
        "update_store_metadata",
    ],
    "selfrag_langchain.corpus.indexing": [
        "SUPPORTED_SUFFIXES",
        "IndexReport",
        "LoadedCorpus",
        "chunk_id",
        "collect_files",
        "index_documents",
        "index_paths",
        "load_documents",
    ],
    "selfrag_langchain.corpus.reading": [
        "DOCUMENT_LOADERS",
        "SUPPORTED_SUFFIXES",
        "LoadedCorpus",
        "chunk_id",
        "collect_files",
        "load_documents",
    ],
    "selfrag_langchain.corpus.loaders": ["DocxLoader", "HtmlLoader", "PdfLoader"],
    "selfrag_langchain.corpus.demo": [
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


ROOT_MODULES = {"__init__", "cli", "errors", "history", "pipeline", "prompts", "results", "scoring", "tokens"}
"""The package root holds only its public entry modules; everything else lives in a package named for its job."""


def test_the_package_root_holds_only_public_entry_modules() -> None:
    import selfrag_langchain

    root = Path(selfrag_langchain.__file__).parent
    assert {p.stem for p in root.glob("*.py")} == ROOT_MODULES


def test_the_corpus_names_resolve_lazily_and_unknown_names_fail() -> None:
    import selfrag_langchain.corpus as corpus
    from selfrag_langchain.corpus.answering import default_retriever

    assert corpus.default_retriever is default_retriever
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = corpus.nope


def test_the_default_retriever_returns_as_many_passages_as_self_rag_judges_by_default() -> None:
    import inspect

    from selfrag_langchain.chains.controls import LoopSettings
    from selfrag_langchain.corpus.answering import default_retriever

    assert inspect.signature(default_retriever).parameters["k"].default == LoopSettings().k
