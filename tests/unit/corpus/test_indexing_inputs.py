"""Reading and chunking files for the store, and refusing bad input before anything is written."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from langchain_core.documents import Document

from selfrag_langchain.corpus.indexing import _write_documents, chunk_id, collect_files, index_paths, load_documents
from selfrag_langchain.errors import ConfigurationError, InputError

PARAGRAPH = (
    "Volcanoes form where magma rises through the crust. Eruptions release lava, ash and gas. "
)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "notes.txt").write_text(PARAGRAPH * 30)
    (root / "sub" / "guide.md").write_text("Intro line\n\n## Setting up\n\nInstall it.\n")
    (root / "passages.jsonl").write_text(
        "\n".join(
            [
                json.dumps(
                    {
                        "text": "Bananas are yellow.",
                        "title": "Banana",
                        "id": 7,
                        "tags": ["fruit"],
                        "url": "https://x",
                        "empty": None,
                    }
                ),
                "{broken",
                json.dumps(
                    {
                        "question": "Q?",
                        "ctxs": [
                            {"id": "1", "title": "A", "text": "Alpha passage.", "score": "1.5"},
                            {"title": "Category:B", "text": ""},
                            {"title": "C"},
                            {"title": "D", "text": "Delta passage."},
                        ],
                    }
                ),
                "",
                json.dumps({"title": "no text here"}),
            ]
        )
    )
    (root / "script.py").write_text("print('not indexed')")
    (root / ".hidden" / "secret.txt").write_text("hidden")
    return root


def test_directories_are_walked_for_supported_files(corpus: Path) -> None:
    names = sorted(p.name for p in collect_files([corpus]))
    assert names == ["guide.md", "notes.txt", "passages.jsonl"]


def test_a_file_given_twice_is_read_once(corpus: Path) -> None:
    assert len(collect_files([corpus, corpus / "notes.txt"])) == 3


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("missing.txt", "No such file or directory"),
        ("script.py", "unsupported file type '.py'"),
    ],
)
def test_bad_paths_fail_before_the_store_is_created(
    corpus: Path, store_home: Path, name: str, match: str
) -> None:
    with pytest.raises(InputError, match=match):
        index_paths([corpus / "notes.txt", corpus / name], progress=False)
    assert not store_home.exists()
    explicit = corpus.parent / "store"
    with pytest.raises(InputError, match=match):
        index_paths([corpus / name], explicit, progress=False)
    assert not explicit.exists()


def test_a_directory_without_supported_files_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1")
    with pytest.raises(InputError, match="Nothing to index"):
        collect_files([tmp_path])


def test_text_files_are_chunked_with_titles(corpus: Path) -> None:
    loaded = load_documents([corpus], chunk_size=400, chunk_overlap=80)
    notes = [d for d in loaded.documents if d.metadata.get("title") == "notes"]
    assert len(notes) > 5
    assert all(len(d.page_content) <= 400 for d in notes)
    assert [d.metadata["chunk"] for d in notes] == list(range(len(notes)))
    assert notes[0].metadata["source"] == str(corpus / "notes.txt")
    # consecutive chunks overlap
    assert notes[1].page_content[:20] in notes[0].page_content
    guide = [d for d in loaded.documents if d.metadata["source"].endswith("guide.md")]
    assert guide[0].metadata["title"] == "Setting up"
    assert loaded.text_sources == [str(corpus / "notes.txt"), str(corpus / "sub" / "guide.md")]


def test_jsonl_passages_ctxs_and_bad_lines(corpus: Path) -> None:
    loaded = load_documents([corpus / "passages.jsonl"])
    by_text = {d.page_content: d for d in loaded.documents}
    assert sorted(by_text) == ["Alpha passage.", "Bananas are yellow.", "Delta passage."]
    banana = by_text["Bananas are yellow."].metadata
    assert banana["title"] == "Banana"
    assert banana["id"] == "7"
    assert banana["tags"] == '["fruit"]'  # Chroma keeps scalars: lists become JSON
    assert banana["url"] == "https://x"
    assert "empty" not in banana
    assert banana["line"] == 1
    assert by_text["Alpha passage."].metadata["id"] == "1"
    assert "score" not in by_text["Alpha passage."].metadata
    problems = "\n".join(loaded.problems)
    assert len(loaded.problems) == 3
    assert "line 2: not valid JSON" in problems
    assert "line 3: ctxs[2] has no 'text'" in problems
    assert "line 5: a line needs 'text'" in problems


def test_chunk_ids_are_deterministic_and_distinct(corpus: Path) -> None:
    first = load_documents([corpus])
    second = load_documents([corpus])
    assert [d.id for d in first.documents] == [d.id for d in second.documents]
    assert len({d.id for d in first.documents}) == len(first.documents)
    assert chunk_id("a", "b") == chunk_id("a", "b") != chunk_id("a", "c")


@pytest.mark.parametrize(
    ("size", "overlap", "match"),
    [(1000, 1000, "chunk_overlap"), (1000, -1, "chunk_overlap"), (10, 0, "chunk_size")],
)
def test_unusable_chunk_sizes(corpus: Path, size: int, overlap: int, match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        load_documents([corpus], chunk_size=size, chunk_overlap=overlap)


def test_non_utf8_text_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("café".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        load_documents([path])


def test_a_byte_order_mark_is_not_indexed(tmp_path: Path) -> None:
    path = tmp_path / "bom.md"
    path.write_bytes("\ufeff# Title\n\nBody.".encode())
    (doc,) = load_documents([path]).documents
    assert doc.metadata["title"] == "Title"
    assert not doc.page_content.startswith("\ufeff")


def _with_a_latin1_file(corpus: Path) -> Path:
    bad = corpus / "sub" / "latin1.txt"
    bad.write_bytes("Volcans en été".encode("latin-1"))
    return bad


def test_an_unreadable_file_is_skipped_and_named_and_the_others_are_read(corpus: Path) -> None:
    bad = _with_a_latin1_file(corpus)
    loaded = load_documents([corpus])
    assert sorted(p.name for p in loaded.files) == ["guide.md", "notes.txt", "passages.jsonl"]
    assert loaded.files_skipped == [bad]
    assert str(bad) not in {d.metadata["source"] for d in loaded.documents}
    assert str(bad) not in loaded.text_sources
    assert {d.metadata["source"] for d in loaded.documents} == {str(p) for p in loaded.files}
    file_problems = [p for p in loaded.problems if p.startswith(str(bad))]
    assert file_problems == [f"{bad}: not UTF-8 text (byte 0xe9 at offset 11): convert it to UTF-8 "
                             "(e.g. `iconv -f latin1 -t utf-8`)"]
    assert len(loaded.problems) == 4  # the file and the three bad lines of passages.jsonl


def test_strict_refuses_the_whole_input_and_lists_every_problem(corpus: Path, store_home: Path) -> None:
    bad = _with_a_latin1_file(corpus)
    with pytest.raises(InputError) as caught:
        index_paths([corpus], progress=False, strict=True)
    lines = str(caught.value).splitlines()
    assert lines[0] == "nothing indexed (strict): 4 problems in the input:"
    assert len(lines) == 5  # one line per problem
    assert f"  {bad}: not UTF-8 text (byte 0xe9 at offset 11)" in [line.split(": convert")[0] for line in lines]
    assert not store_home.exists()


def test_strict_accepts_clean_input(corpus: Path) -> None:
    (corpus / "passages.jsonl").unlink()
    assert len(load_documents([corpus], strict=True).files) == 2


def test_nothing_usable_is_an_error_before_the_store_is_created(tmp_path: Path, store_home: Path) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9")
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{broken\n")
    with pytest.raises(InputError) as caught:
        index_paths([tmp_path], progress=False)
    message = str(caught.value)
    assert message.splitlines()[0] == "nothing to index: everything given was skipped:"
    assert f"\n  {bad}: not UTF-8 text (byte 0xe9 at offset 3)" in message
    assert f"\n  {broken}, line 1: not valid JSON" in message
    assert not store_home.exists()


def test_an_empty_readable_file_beside_an_unreadable_one_is_not_nothing(tmp_path: Path) -> None:
    """Re-indexing an emptied file must still remove its old chunks, so it counts as usable input."""
    (tmp_path / "emptied.txt").write_text("", encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9")
    loaded = load_documents([tmp_path])
    assert loaded.documents == []
    assert loaded.text_sources == [str(tmp_path / "emptied.txt")]
    assert len(loaded.problems) == 1


class _RecordingStore:
    """Just enough of a Chroma store for ``_write_documents``: empty, and it records each batch."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def get(self, ids: list[str], include: list[str]) -> dict[str, list[str]]:
        return {"ids": []}

    def add_texts(self, texts: list[str], metadatas: list[dict], ids: list[str]) -> None:
        self.batches.append(texts)


def test_batches_hold_similar_lengths_in_a_steady_fixed_order() -> None:
    docs = [Document(id=f"d{n}", page_content="x" * (1 + (n * 37) % 400)) for n in range(400)]
    runs = []
    for _ in range(2):
        store = _RecordingStore()
        added, skipped = _write_documents(store, docs, batch_size=20, progress=False)  # type: ignore[arg-type]
        assert (added, skipped) == (400, 0)
        runs.append(store.batches)
    assert runs[0] == runs[1], "the order is fixed, so an interrupted run resumes the same way"
    batches = runs[0]
    assert sorted(len(t) for b in batches for t in b) == sorted(len(d.page_content) for d in docs)
    ordered = sorted(batches, key=lambda batch: min(map(len, batch)))
    assert all(max(map(len, a)) <= min(map(len, b)) for a, b in itertools.pairwise(ordered)), (
        "each batch is a run of neighbouring lengths"
    )
    firsts = [min(map(len, b)) for b in batches]
    assert firsts != sorted(firsts), "batches are not taken shortest first (the rate would fall all run)"
    half = len(batches) // 2
    early, late = (sum(len(text) for batch in part for text in batch) for part in (batches[:half], batches[half:]))
    assert 0.6 < early / late < 1.6, "the work is spread evenly over the run"
