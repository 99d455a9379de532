"""Files that are never seen half-written: whole files through a temporary file and a rename, and appended
JSON Lines whose torn last line (a killed run) is cut off before the next run reads or appends; and the one
reader of JSON Lines, which numbers each line and leaves what a bad one means to its caller."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and a rename; a failed
    write leaves the old file (or none) and no temporary file behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Write ``data`` as indented JSON, atomically (:func:`write_text_atomic`)."""
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def drop_torn_tail(path: str | Path) -> None:
    """Cut a last line without its newline off a JSON Lines file (a run killed while writing it)."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return
    with path.open("rb+") as handle:
        data = handle.read()
        if data.endswith(b"\n"):
            return
        handle.truncate(data.rfind(b"\n") + 1)
        handle.flush()
        os.fsync(handle.fileno())


class JsonLine(NamedTuple):
    """One non-blank line of a JSON Lines text: its number (from 1), and its value or why it is not JSON."""

    number: int
    value: Any = None
    error: json.JSONDecodeError | None = None


def json_lines(lines: Iterable[str]) -> Iterator[JsonLine]:
    """Every non-blank line of ``lines``, numbered and parsed; each reader decides what a line that is not
    JSON means for it (skip it, report it, refuse the file)."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield JsonLine(number, json.loads(line))
        except json.JSONDecodeError as e:
            yield JsonLine(number, error=e)
