"""Files written whole or not at all, and JSON Lines whose torn last line is cut before the next run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain.files.durable import drop_torn_tail, write_json_atomic, write_text_atomic


class Unserialisable:
    pass


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_one(tmp_path: Path) -> None:
    target = tmp_path / "out" / "summary.json"
    write_json_atomic(target, {"accuracy": 0.5})
    with pytest.raises(TypeError):
        write_json_atomic(target, {"accuracy": Unserialisable()})
    assert json.loads(target.read_text(encoding="utf-8")) == {"accuracy": 0.5}
    assert [p.name for p in target.parent.iterdir()] == ["summary.json"]


def test_text_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "card.md"
    write_text_atomic(target, "first\n")
    write_text_atomic(target, "second\n")
    assert target.read_text(encoding="utf-8") == "second\n"


def test_a_torn_last_line_is_cut_and_whole_lines_kept(tmp_path: Path) -> None:
    lines = tmp_path / "rows.jsonl"
    lines.write_bytes(b'{"id": 1}\n{"id": 2}\n{"id": ')
    drop_torn_tail(lines)
    assert lines.read_bytes() == b'{"id": 1}\n{"id": 2}\n'
    drop_torn_tail(lines)  # whole lines: nothing to cut
    assert lines.read_bytes() == b'{"id": 1}\n{"id": 2}\n'
    drop_torn_tail(tmp_path / "missing.jsonl")  # no file: nothing to do
    assert not (tmp_path / "missing.jsonl").exists()


def test_json_lines_numbers_every_line_and_leaves_bad_ones_to_the_reader() -> None:
    from selfrag_langchain.files.durable import json_lines

    lines = ['{"a": 1}', "", "  ", "[2, 3]", "{torn", '"text"']
    got = list(json_lines(lines))
    assert [line.number for line in got] == [1, 4, 5, 6]  # blank lines are skipped but still counted
    assert [line.value for line in got if line.error is None] == [{"a": 1}, [2, 3], "text"]
    bad = [line for line in got if line.error is not None]
    assert len(bad) == 1 and bad[0].number == 5 and bad[0].value is None and bad[0].error.msg
