"""The embedded store with real Chroma (and real MiniLM for the tests marked slow)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings

from selfrag_langchain.corpus.answering import default_retriever
from selfrag_langchain.corpus.demo import DEMO_COMPLETE_KEY, ensure_demo_store, load_demo_documents
from selfrag_langchain.corpus.indexing import index_documents, index_paths, load_documents
from selfrag_langchain.corpus.store import (
    COLLECTION_NAME,
    SEARCH_BREADTH,
    has_store,
    open_store,
    store_size,
    update_store_metadata,
)
from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.errors import StoreError

TEXTS = {
    "volcano.md": "# Volcanoes\n\n"
    + " ".join(
        f"Volcano fact {i}: lava, volcanic ash and gases escape from a magma chamber through a "
        f"rupture in the crust, and eruption number {i} built a cone of cooled rock."
        for i in range(14)
    ),
    "tea.txt": " ".join(
        f"Tea note {i}: green tea leaves of Camellia sinensis are steamed or pan-fired soon "
        f"after picking, so unlike black tea they do not oxidise (batch {i})."
        for i in range(14)
    ),
    "chess.txt": " ".join(
        f"Chess rule {i}: castling moves the king two squares towards a rook and puts the "
        f"rook on the square the king crossed; it moves two pieces at once (case {i})."
        for i in range(14)
    ),
}
PASSAGES = [
    {
        "id": "p1",
        "title": "Saturn",
        "text": "Saturn is the sixth planet from the Sun and has "
        "the most spectacular ring system of the Solar System.",
        "year": 2020,
    },
    {
        "id": "p2",
        "title": "Bread",
        "text": "Sourdough bread rises because wild yeast and lactic "
        "acid bacteria ferment the dough.",
    },
]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for name, text in TEXTS.items():
        (root / name).write_text(text)
    (root / "passages.jsonl").write_text("\n".join(json.dumps(p) for p in PASSAGES) + "\n")
    return root


class FailingAfter(Embeddings):
    """Real embeddings that raise KeyboardInterrupt on call number ``after + 1``."""

    def __init__(self, inner: Embeddings, after: int) -> None:
        self.inner, self.after, self.calls, self.texts = inner, after, 0, 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        if self.calls > self.after:
            raise KeyboardInterrupt
        self.texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


class NoEmbedding(Embeddings):
    """Fails the test if anything gets embedded."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise AssertionError(f"embedded {len(texts)} texts")

    def embed_query(self, text: str) -> list[float]:
        raise AssertionError("embedded a query")


def stored(store_dir: Path) -> dict:
    return open_store(store_dir, create=False).get(include=["documents"])


# --- errors: real Chroma, no model ----------------------------------------------------------


def test_missing_store_says_to_index_and_creates_nothing(store_home: Path) -> None:
    with pytest.raises(StoreError, match=r"No store at .*: run `selfrag index PATH` first"):
        open_store(create=False)
    with pytest.raises(StoreError, match="No store at"):
        default_retriever(store_home / "elsewhere")
    assert not store_home.exists()


@pytest.mark.slow
def test_default_retriever_answers_from_the_demo_corpus_until_the_user_indexes(
    store_home: Path, files: Path, minilm: MiniLMEmbeddings
) -> None:
    # A small demo store marked complete stands in for the full corpus (indexing it all takes minutes).
    demo = ensure_demo_store(limit=12, progress=False)
    update_store_metadata(demo, **{DEMO_COMPLETE_KEY: True})
    demo_titles = {d.metadata["title"] for d in load_demo_documents(limit=12)}

    assert not has_store()
    before = default_retriever(k=3).invoke("a famous painting")
    assert before and {d.metadata["title"] for d in before} <= demo_titles
    assert not (store_home / "store").exists(), "the fallback must not create the user's store"

    index_paths([files], progress=False)
    assert has_store()
    after = default_retriever(k=1).invoke("how is green tea processed after harvest")
    assert after[0].metadata["source"] == str(files / "tea.txt")


def test_empty_store_is_no_store(tmp_path: Path) -> None:
    open_store(tmp_path / "store", create=True)
    with pytest.raises(StoreError, match="No store at"):
        open_store(tmp_path / "store", create=False)


def _search_breadth(store_dir: Path) -> int:
    return open_store(store_dir, create=True)._collection.configuration_json["hnsw"]["ef_search"]


def _old_store(store_dir: Path) -> None:
    """A store written with Chroma's own search breadth (100)."""
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=str(store_dir), settings=Settings(anonymized_telemetry=False))
    client.create_collection(COLLECTION_NAME, configuration={"hnsw": {"space": "cosine"}})


def _refuse_writes(monkeypatch: pytest.MonkeyPatch, times: int) -> list[int]:
    """Make Chroma refuse a collection's first ``times`` configuration writes as SQLite does when locked."""
    from chromadb.api.models.Collection import Collection
    from chromadb.errors import InternalError

    modify, refused = Collection.modify, []

    def locked_at_first(self: Collection, **changes: Any) -> None:
        if len(refused) < times:
            refused.append(1)
            raise InternalError("Database error: error returned from database: (code: 5) database is locked")
        modify(self, **changes)

    monkeypatch.setattr(Collection, "modify", locked_at_first)
    return refused


def test_a_store_weighs_enough_candidates_for_its_nearest_passages(tmp_path: Path) -> None:
    import chromadb
    from chromadb.config import Settings

    assert _search_breadth(tmp_path / "new") == SEARCH_BREADTH > 100
    # A store written with Chroma's own breadth (100) is widened when it is opened for writing.
    _old_store(tmp_path / "old")
    client = chromadb.PersistentClient(path=str(tmp_path / "old"), settings=Settings(anonymized_telemetry=False))
    assert client.get_collection(COLLECTION_NAME).configuration_json["hnsw"]["ef_search"] == 100
    assert _search_breadth(tmp_path / "old") == SEARCH_BREADTH


def test_a_store_locked_for_a_moment_is_widened_by_writing_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _old_store(tmp_path / "old")
    refused = _refuse_writes(monkeypatch, times=2)
    assert _search_breadth(tmp_path / "old") == SEARCH_BREADTH
    assert len(refused) == 2


def test_a_store_that_stays_locked_is_called_busy_not_damaged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _old_store(tmp_path / "old")
    before = sorted((p.relative_to(tmp_path), p.stat().st_size) for p in (tmp_path / "old").rglob("*"))
    _refuse_writes(monkeypatch, times=100)
    with pytest.raises(StoreError, match=r"is busy: it is being written to.*Try again in a moment") as error:
        open_store(tmp_path / "old", create=True)
    assert "damaged" not in str(error.value)
    assert sorted((p.relative_to(tmp_path), p.stat().st_size) for p in (tmp_path / "old").rglob("*")) == before


def test_corrupt_store_is_reported_and_left_untouched(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    sqlite = store_dir / "chroma.sqlite3"
    garbage = b"this is not a database\x00" * 500
    sqlite.write_bytes(garbage)
    for create in (False, True):
        with pytest.raises(StoreError, match=r"cannot be read.*Move it aside"):
            open_store(store_dir, create=create)
    with pytest.raises(StoreError, match="cannot be read"):
        default_retriever(store_dir)
    with pytest.raises(StoreError, match="cannot be read"):
        index_paths([_write(tmp_path / "a.txt", "text")], store_dir, progress=False)
    assert sqlite.read_bytes() == garbage
    assert [p.name for p in store_dir.iterdir()] == ["chroma.sqlite3"]


def test_a_directory_with_other_files_is_not_turned_into_a_store(tmp_path: Path) -> None:
    _write(tmp_path / "thesis.txt", "precious")
    with pytest.raises(StoreError, match="not empty and holds no store"):
        open_store(tmp_path, create=True)
    assert [p.name for p in tmp_path.iterdir()] == ["thesis.txt"]


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# --- indexing and retrieval with real MiniLM ------------------------------------------------


@pytest.mark.slow
def test_index_reindex_and_retrieve(
    files: Path, store_home: Path, minilm: MiniLMEmbeddings
) -> None:
    expected = load_documents([files]).documents
    report = index_paths([files], progress=False)
    assert report.files == 4
    assert report.chunks_added == len(expected) > len(TEXTS) + len(PASSAGES)
    assert report.chunks_skipped == 0
    assert report.problems == []
    assert (store_home / "store" / "chroma.sqlite3").is_file()

    again = index_paths([files], progress=False)
    assert again.chunks_added == 0
    assert again.chunks_skipped == len(expected)
    assert len(stored(store_home / "store")["ids"]) == len(expected)

    retriever = default_retriever(k=2)
    top = retriever.invoke("Which planet has rings?")
    assert top[0].metadata["title"] == "Saturn"
    assert top[0].metadata["year"] == 2020
    top = retriever.invoke("how is green tea processed after harvest")
    assert top[0].metadata["source"] == str(files / "tea.txt")
    assert len(retriever.invoke("anything", k=4)) == 4


@pytest.mark.slow
async def test_async_retrieval(files: Path, tmp_path: Path, minilm: MiniLMEmbeddings) -> None:
    index_paths([files], tmp_path / "store", progress=False)
    docs = await default_retriever(tmp_path / "store", k=1).ainvoke("magma and lava")
    assert docs[0].metadata["title"] == "Volcanoes"


@pytest.mark.slow
def test_changed_file_replaces_its_chunks(
    files: Path, tmp_path: Path, minilm: MiniLMEmbeddings
) -> None:
    store_dir = tmp_path / "store"
    index_paths([files], store_dir, progress=False)
    (files / "tea.txt").write_text("Oolong tea is partially oxidised.")
    report = index_paths([files], store_dir, progress=False)
    assert report.chunks_added == 1
    assert report.chunks_removed >= 1
    texts = stored(store_dir)["documents"]
    assert "Oolong tea is partially oxidised." in texts
    assert not any("Green tea" in t for t in texts)


@pytest.mark.slow
def test_interrupted_run_leaves_a_usable_store_and_resumes(
    files: Path, tmp_path: Path, minilm: MiniLMEmbeddings
) -> None:
    store_dir = tmp_path / "store"
    total = len(load_documents([files]).documents)
    assert total > 9
    with pytest.raises(KeyboardInterrupt):
        index_paths(
            [files],
            store_dir,
            batch_size=3,
            progress=False,
            embeddings=FailingAfter(minilm, after=2),
        )
    assert len(stored(store_dir)["ids"]) == 6  # two committed batches of three
    assert len(default_retriever(store_dir, k=2).invoke("volcano")) == 2

    report = index_paths([files], store_dir, batch_size=3, progress=False)
    assert report.chunks_skipped == 6
    assert report.chunks_added == total - 6
    texts = stored(store_dir)["documents"]
    assert len(texts) == total
    assert len(set(texts)) == total  # no passage stored twice


@pytest.mark.slow
def test_demo_store_is_built_once(tmp_path: Path, minilm: MiniLMEmbeddings) -> None:
    store_dir = tmp_path / "demo"
    store = ensure_demo_store(store_dir, progress=False, limit=24)
    assert store_size(store) == 24
    # The second call (and a smaller subset) must return without embedding anything.
    again = ensure_demo_store(store_dir, progress=False, limit=24, embeddings=NoEmbedding())
    assert store_size(again) == 24
    ensure_demo_store(store_dir, progress=False, limit=10, embeddings=NoEmbedding())
    doc = load_demo_documents(limit=24)[5]
    top = default_retriever(store_dir, k=1).invoke(doc.page_content[:200])
    assert top[0].metadata["title"] == doc.metadata["title"]
    # A larger subset adds only the missing articles.
    with pytest.raises(AssertionError, match="embedded 6 texts"):
        ensure_demo_store(store_dir, progress=False, limit=30, embeddings=NoEmbedding())


@pytest.mark.slow
def test_interrupted_demo_indexing_is_resumed(tmp_path: Path, minilm: MiniLMEmbeddings) -> None:
    store_dir = tmp_path / "demo"
    docs = load_demo_documents(limit=20)
    with pytest.raises(KeyboardInterrupt):
        index_documents(
            docs, store_dir, batch_size=8, progress=False, embeddings=FailingAfter(minilm, after=1)
        )
    counting = FailingAfter(minilm, after=1000)
    store = ensure_demo_store(store_dir, progress=False, limit=20, embeddings=counting)
    assert counting.texts == 12  # only what the interrupted run had not committed
    assert store_size(store) == 20
    assert ensure_demo_store(store_dir, progress=False, limit=20, embeddings=NoEmbedding())
