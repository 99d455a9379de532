"""JSON Lines in and out: clear errors naming file and line, and appends a killed run cannot tear."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain.errors import InputError
from selfrag_langchain.trainer.data import JsonlAppender, read_jsonl, stable_id, written_ids


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("text", "message"), [
    ("", "has no records"),
    ("\n\n", "has no records"),
    ('{"instruction": "x"\n', r":1: not valid JSON"),
    ('{"instruction": "a", "output": "b"}\n[1, 2]\n', r":2: each line must be a JSON object"),
    ('{"instruction": "a"}\n', r":1: missing field 'output' \(each line needs instruction, output\)"),
    ('{"instruction": "a", "output": 3}\n', r":1: field must be a string: 'output'"),
    ('{"instruction": "a", "output": "b", "input": 4}\n', r":1: field 'input' must be a string"),
])
def test_bad_files_get_one_clear_line(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path / "data.jsonl", text)
    with pytest.raises(InputError, match=message):
        read_jsonl(path, required=("instruction", "output"), optional_text=("input",))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        read_jsonl(tmp_path / "nope.jsonl")


def test_check_hook_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "d.jsonl", '{"task": "relevance"}\n\n{"task": "bogus"}\n')
    with pytest.raises(InputError, match=r"d.jsonl:3: unknown task 'bogus'"):
        read_jsonl(path, check=lambda r: None if r["task"] == "relevance" else f"unknown task '{r['task']}'")


def test_appender_repairs_a_torn_line_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    _write(out, '{"id": "a", "v": 1}\n{"id": "b", "v"')  # killed mid-line
    assert written_ids(out) == {"a"}
    with JsonlAppender(out) as writer:
        writer.write({"id": "c", "v": 3})
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["a", "c"]


def test_stable_id_depends_on_content_only() -> None:
    assert stable_id("x", None, "y") == stable_id("x", "", "y")
    assert stable_id("x", "y") != stable_id("y", "x")
    assert len(stable_id("x")) == 16
