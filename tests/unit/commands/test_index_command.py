"""`selfrag index` as a user runs it, on a real Chroma store with stand-in embeddings: one bad file does
not keep the good ones out, each skipped file or line is named once with what to do, and the command
fails (or, with --strict, refuses before writing) only when it should."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from selfrag_langchain.cli import main
from selfrag_langchain.corpus import store as store_module
from selfrag_langchain.corpus.store import open_store


@pytest.fixture(autouse=True)
def fake_embeddings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's default embedder replaced by a deterministic one: no model is loaded."""
    monkeypatch.setattr(store_module, "MiniLMEmbeddings", lambda: DeterministicFakeEmbedding(size=16))


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "volcanoes.txt").write_text("Volcanoes form where magma rises through the crust.")
    (root / "guide.md").write_text("# Guide\n\nInstall it, then run it.\n")
    (root / "latin1.txt").write_bytes("Caf\xe9 au lait".encode("latin-1"))
    return root


def _sources(store_dir: Path) -> set[str]:
    store = open_store(store_dir, create=False, embeddings=DeterministicFakeEmbedding(size=16))
    return {m["source"] for m in store.get(include=["metadatas"])["metadatas"]}


def test_the_good_files_are_indexed_and_the_bad_one_named_in_one_line(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store_dir = tmp_path / "store"
    assert main(["index", str(docs), "--store", str(store_dir)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("indexed 2 file(s): 2 chunk(s) added, 0 already present, 0 removed")
    bad = docs / "latin1.txt"
    named = [line for line in err.splitlines() if str(bad) in line]
    assert named == [f"skipped {bad}: not UTF-8 text (byte 0xe9 at offset 3): convert it to UTF-8 "
                     "(e.g. `iconv -f latin1 -t utf-8`)"]
    assert "run the same command again" in err
    assert _sources(store_dir) == {str(docs / "volcanoes.txt"), str(docs / "guide.md")}


def test_skipped_lines_are_listed_without_naming_python_classes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "passages.jsonl"
    lines = [json.dumps({"text": f"Passage {i}."}) for i in range(3)] + ["{broken", json.dumps({"title": "x"})]
    path.write_text("\n".join(lines))
    assert main(["index", str(path), "--store", str(tmp_path / "store")]) == 0
    out, err = capsys.readouterr()
    assert "3 chunk(s) added" in out
    assert f"skipped {path}, line 4: not valid JSON" in err
    assert f"skipped {path}, line 5: a line needs 'text'" in err
    assert "IndexReport" not in out + err
    assert "problems" not in out + err


def test_strict_refuses_before_writing_anything(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store_dir = tmp_path / "store"
    assert main(["index", str(docs), "--store", str(store_dir), "--strict"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "selfrag: error: nothing indexed (strict): 1 problem in the input:",
        f"  {docs / 'latin1.txt'}: not UTF-8 text (byte 0xe9 at offset 3): convert it to UTF-8 "
        "(e.g. `iconv -f latin1 -t utf-8`)",
    ]
    assert not store_dir.exists()


def test_strict_indexes_clean_input(docs: Path, tmp_path: Path) -> None:
    (docs / "latin1.txt").unlink()
    store_dir = tmp_path / "store"
    assert main(["index", str(docs), "--store", str(store_dir), "--strict"]) == 0
    assert len(_sources(store_dir)) == 2


def test_nothing_indexed_exits_non_zero(docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store_dir = tmp_path / "store"
    assert main(["index", str(docs / "latin1.txt"), "--store", str(store_dir)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("selfrag: error: nothing to index: everything given was skipped:\n")
    assert f"  {docs / 'latin1.txt'}: not UTF-8 text" in err
    assert not store_dir.exists()
