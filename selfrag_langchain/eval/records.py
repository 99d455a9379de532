"""Result files of an evaluation: one JSON line per question, appended as it finishes, and resumable.

A line is written whole and flushed before the next question starts, so an interrupted run loses nothing
it finished; a line cut short by a hard kill is dropped on the next run, which answers that question again.
Summaries are written to a temporary file and renamed, so a reader never sees half of one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TextIO

from selfrag_langchain.errors import InputError
from selfrag_langchain.files.durable import drop_torn_tail, json_lines


def read_records(path: Path, settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The finished questions of an earlier run into ``path``, by key.

    A last line without its newline (the run was killed while writing it) is cut off the file.

    Raises:
        InputError: if the file holds results of other settings (resuming would mix two runs), or a
            line that is not a result.
    """
    if not path.exists():
        return {}
    drop_torn_tail(path)
    data = path.read_bytes()
    records: dict[str, dict[str, Any]] = {}
    for number, record, error in json_lines(data.decode("utf-8").splitlines()):
        if error is not None:
            msg = (f"{path}, line {number} is not a result line ({error.msg}): move the file away or choose "
                   "another --out")
            raise InputError(msg) from error
        if not isinstance(record, dict) or "key" not in record:
            msg = f"{path}, line {number} is not a result line: move the file away or choose another --out"
            raise InputError(msg)
        if record.get("settings") != settings:
            changed = _difference(record.get("settings") or {}, settings)
            msg = (f"{path} holds results of other settings ({changed}): use another --out to keep both, "
                   "or delete it to start again")
            raise InputError(msg)
        records[record["key"]] = record
    return records


def _difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = sorted(set(old) | set(new), key=str)
    diffs = [f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in keys if old.get(k) != new.get(k)]
    return ", ".join(diffs[:3]) + (", ..." if len(diffs) > 3 else "")


def append_record(handle: TextIO, record: dict[str, Any]) -> None:
    """Write one complete line and push it to disk before returning."""
    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    handle.flush()
    os.fsync(handle.fileno())
