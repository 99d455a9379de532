"""The writer's guarantees, with a real Chroma store and a hashed-word embedding: what is stored is read from the
store itself (no second record to lose), so a killed run resumes from the store alone and stale chunks are
found there (see docs/architecture.md, "Indexing", for why ``langchain_core.indexing.index()`` is not used)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from selfrag_langchain.corpus.indexing import chunk_id, index_paths, load_documents
from selfrag_langchain.corpus.store import open_store
from tests.fakes.bag_of_words import BagOfWords

CHUNKING: dict[str, Any] = {"chunk_size": 120, "chunk_overlap": 0}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for name, topic in [("ferns.txt", "fern"), ("moss.txt", "moss"), ("lichen.md", "lichen")]:
        (root / name).write_text(" ".join(f"Note {i} on {topic}: it grows in damp shade, site {i}." for i in range(12)))
    return root


def _stored(store: Path) -> dict[str, Any]:
    return open_store(store, create=False, embeddings=BagOfWords()).get(include=["documents", "metadatas"])


def _embedded(embeddings: BagOfWords) -> list[str]:
    return [text for call in embeddings.calls for text in call]


def test_a_run_killed_after_a_committed_batch_resumes_from_the_store_alone(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langchain_chroma import Chroma

    expected = {doc.id: doc for doc in load_documents([folder], **CHUNKING).documents}
    assert len(expected) > 12
    store = tmp_path / "store"
    write = Chroma.add_texts
    calls = 0

    def write_then_die(self: Chroma, *args: Any, **kwargs: Any) -> list[str]:
        """The second batch is committed, then the process dies: the latest point a kill can come."""
        nonlocal calls
        ids = write(self, *args, **kwargs)
        calls += 1
        if calls == 2:
            raise KeyboardInterrupt
        return ids

    monkeypatch.setattr(Chroma, "add_texts", write_then_die)
    with pytest.raises(KeyboardInterrupt):
        index_paths([folder], store, batch_size=4, progress=False, embeddings=BagOfWords(), **CHUNKING)
    monkeypatch.undo()
    kept = set(_stored(store)["ids"])
    assert len(kept) == 8

    embeddings = BagOfWords()
    report = index_paths([folder], store, batch_size=4, progress=False, embeddings=embeddings, **CHUNKING)
    assert (report.chunks_skipped, report.chunks_added) == (8, len(expected) - 8)
    assert sorted(_embedded(embeddings)) == sorted(doc.page_content for i, doc in expected.items() if i not in kept)
    stored = _stored(store)
    assert len(stored["ids"]) == len(set(stored["ids"])) == len(expected)  # no chunk twice, none missing
    for doc_id, text, metadata in zip(stored["ids"], stored["documents"], stored["metadatas"], strict=True):
        assert doc_id == chunk_id(f"file:{metadata['source']}", text)  # the id is the content's, not the run's
        assert text == expected[doc_id].page_content


def test_chunks_missing_from_the_store_are_added_again_and_only_they(folder: Path, tmp_path: Path) -> None:
    """A store restored from an older copy, or chunks deleted behind the writer's back: no record says otherwise."""
    store = tmp_path / "store"
    index_paths([folder], store, progress=False, embeddings=BagOfWords(), **CHUNKING)
    everything = _stored(store)
    gone = everything["ids"][:3]
    open_store(store, create=False, embeddings=BagOfWords()).delete(ids=gone)

    embeddings = BagOfWords()
    report = index_paths([folder], store, progress=False, embeddings=embeddings, **CHUNKING)
    assert report.chunks_added == 3
    assert sorted(_embedded(embeddings)) == sorted(everything["documents"][:3])
    assert sorted(_stored(store)["ids"]) == sorted(everything["ids"])


def test_an_emptied_or_changed_file_loses_its_old_chunks(folder: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    index_paths([folder], store, progress=False, embeddings=BagOfWords(), **CHUNKING)
    before = [Path(m["source"]).name for m in _stored(store)["metadatas"]]
    (folder / "moss.txt").write_text("", encoding="utf-8")
    (folder / "ferns.txt").write_text("Ferns spread by spores.", encoding="utf-8")

    report = index_paths([folder], store, progress=False, embeddings=BagOfWords(), **CHUNKING)
    stored = _stored(store)
    by_file = sorted({Path(m["source"]).name for m in stored["metadatas"]})
    assert by_file == ["ferns.txt", "lichen.md"]
    assert [t for t, m in zip(stored["documents"], stored["metadatas"], strict=True)
            if m["source"].endswith("ferns.txt")] == ["Ferns spread by spores."]
    assert report.chunks_added == 1
    assert report.chunks_removed == before.count("ferns.txt") + before.count("moss.txt") > 2
