"""What a trained artefact records: data hashes, the seed, the library versions."""

from __future__ import annotations

import hashlib
from pathlib import Path

from selfrag_langchain.trainer.provenance import data_hashes, file_hash, library_versions, provenance


def test_hash_is_the_files_sha256_and_changes_with_it(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_bytes(b'{"a": 1}\n' * 200_000)  # larger than one read block
    assert file_hash(data) == hashlib.sha256(data.read_bytes()).hexdigest()
    before = file_hash(data)
    data.write_bytes(b'{"a": 2}\n')
    assert file_hash(data) != before


def test_record_names_each_file_the_seed_and_the_versions(tmp_path: Path) -> None:
    files = [tmp_path / "a.jsonl", tmp_path / "b.csv"]
    for n, path in enumerate(files):
        path.write_text(f"row {n}\n")
    record = provenance([str(p) for p in files], seed=7)
    assert record["data"] == {p.name: file_hash(p) for p in files}
    assert record["seed"] == 7
    versions = library_versions()
    assert record["libraries"] == versions
    assert versions["python"].count(".") == 2 and "torch" in versions and "transformers" in versions


def test_files_sharing_a_name_keep_both_hashes(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "rows.jsonl", tmp_path / "b" / "rows.jsonl"
    first.write_text("1\n")
    second.write_text("2\n")
    assert data_hashes([str(first), str(second)]) == {str(first): file_hash(first), str(second): file_hash(second)}
