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


MOVED = {"selfrag_langchain.store": ["selfrag_langchain.corpus.store", "selfrag_langchain.corpus.answering"],
         "selfrag_langchain.indexing": ["selfrag_langchain.corpus.indexing"],
         "selfrag_langchain.demo_corpus": ["selfrag_langchain.corpus.demo"]}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_moved_modules_still_export_the_same_objects_for_one_release(old: str) -> None:
    shim = importlib.import_module(old)
    homes = [importlib.import_module(m) for m in MOVED[old]]
    exported = {name for home in homes for name in home.__all__} - {"answers_from_demo"}  # new, not re-exported
    assert sorted(shim.__all__) == sorted(exported)
    for home in homes:
        for name in set(home.__all__) & exported:
            assert getattr(shim, name) is getattr(home, name)


def test_the_corpus_names_resolve_lazily_and_unknown_names_fail() -> None:
    import selfrag_langchain.corpus as corpus
    from selfrag_langchain.corpus.answering import default_retriever

    assert corpus.default_retriever is default_retriever
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = corpus.nope
