"""JSON Lines in and out: records checked field by field, and resumable appends.

Readers name the file and line of a bad record. Writers append whole lines and flush each, so an
interrupted run leaves only complete records; the next run reads the ids already written and skips them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from selfrag_langchain.errors import InputError
from selfrag_langchain.files.durable import drop_torn_tail, json_lines


def read_jsonl(
    path: str | Path,
    *,
    required: Sequence[str] = (),
    optional_text: Sequence[str] = (),
    check: Callable[[dict[str, Any]], str | None] | None = None,
) -> list[dict[str, Any]]:
    """The records of a JSON Lines file, each checked to have the ``required`` string fields.

    Fields in ``optional_text`` must be strings (or null) when present; ``check`` returns what else is
    wrong with a record, or None. Blank lines are skipped.

    Raises:
        InputError: for a missing or empty file, a line that is not a JSON object, or a missing or
            non-string field; the message gives the file and line number.
    """
    return _read_checked(path, _jsonl_records, None, required, optional_text, check)


def read_records(
    path: str | Path,
    *,
    required: Sequence[str] = (),
    optional_text: Sequence[str] = (),
    check: Callable[[dict[str, Any]], str | None] | None = None,
) -> list[dict[str, Any]]:
    """The records of a JSON Lines file, or of a CSV file (``.csv``: a header row, then one record a row,
    empty cells left out), checked as :func:`read_jsonl` checks them, with the same file:line messages."""
    if Path(path).suffix.lower() != ".csv":
        return read_jsonl(path, required=required, optional_text=optional_text, check=check)
    return read_csv(path, required=required, check=check)


def read_csv(
    path: str | Path,
    *,
    required: Sequence[str] = (),
    check: Callable[[dict[str, Any]], str | None] | None = None,
) -> list[dict[str, Any]]:
    """The rows of a CSV file with a header as records (header names stripped and lower-cased); a cell left
    empty is a field not given. A row is named by its first line (a quoted cell may span lines).

    Raises:
        InputError: for a missing or empty file, malformed CSV, or a row without a ``required`` field; the
            message gives the file and line number.
    """
    # newline="": the csv module reads quoted newlines itself.
    return _read_checked(path, _csv_records, "", required, (), check)


def _read_checked(
    path: str | Path,
    parse: Callable[[Path, IO[str]], Iterator[tuple[int, dict[str, Any]]]],
    newline: str | None,
    required: Sequence[str],
    optional_text: Sequence[str],
    check: Callable[[dict[str, Any]], str | None] | None,
) -> list[dict[str, Any]]:
    """The (line, record) pairs ``parse`` reads from ``path``, each checked, as one list; every fault is one
    line naming the file and line. utf-8-sig: spreadsheet programs start a UTF-8 file with a byte-order mark."""
    path = Path(path)
    if not path.is_file():
        msg = f"{path} does not exist"
        raise InputError(msg)
    records = []
    with path.open(encoding="utf-8-sig", newline=newline) as handle, _readable(path):
        for number, record in parse(path, handle):
            problem = _field_problem(record, required, optional_text) or (check(record) if check else None)
            if problem:
                msg = f"{path}:{number}: {problem}"
                raise InputError(msg)
            records.append(record)
    if not records:
        msg = f"{path} has no records"
        raise InputError(msg)
    return records


def _field_problem(record: dict[str, Any], required: Sequence[str], optional_text: Sequence[str]) -> str | None:
    for name in required:
        if not isinstance(record.get(name), str):
            what = "missing field" if name not in record else "field must be a string:"
            return f"{what} '{name}' (each line needs {', '.join(required)})"
    for name in optional_text:
        if record.get(name) is not None and not isinstance(record[name], str):
            return f"field '{name}' must be a string"
    return None


def _jsonl_records(path: Path, handle: IO[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, record, error in json_lines(handle):
        if error is not None:
            msg = f"{path}:{number}: not valid JSON ({error.msg})"
            raise InputError(msg) from error
        if not isinstance(record, dict):
            msg = f"{path}:{number}: each line must be a JSON object, got {type(record).__name__}"
            raise InputError(msg)
        yield number, record


def _csv_records(path: Path, handle: IO[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    import csv

    reader = csv.reader(handle, strict=True)
    last = 0  # the last line read: a quoted cell may hold newlines, and a row is named by its first line
    try:
        header = [name.strip().lower() for name in next(reader, [])]
        last = reader.line_num
        for cells in reader:
            number, last = last + 1, reader.line_num
            if len(cells) > len(header):
                msg = f"{path}:{number}: more cells than the header names ({', '.join(header)})"
                raise InputError(msg)
            record = {k: v for k, v in zip(header, cells, strict=False) if k and v.strip()}
            if record:
                yield number, record
    except csv.Error as e:
        msg = f"{path}:{last + 1}: not valid CSV ({e}; is a quote left open?)"
        raise InputError(msg) from e


@contextlib.contextmanager
def _readable(path: Path) -> Iterator[None]:
    """Reading ``path`` as text: a file in another encoding is one clear line, not a traceback."""
    try:
        yield
    except UnicodeDecodeError as e:
        msg = f"{path}: not UTF-8 text (byte {e.start}): save it as UTF-8"
        raise InputError(msg) from e


def jsonl_text(records: Iterable[dict[str, Any]]) -> str:
    """Records as JSON Lines text, one object a line, for a file written whole."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def stable_id(*parts: str | None) -> str:
    """A short id that is the same for the same content on every run (for resuming)."""
    digest = hashlib.sha256("\x1f".join(p or "" for p in parts).encode("utf-8")).hexdigest()
    return digest[:16]


def written_ids(path: str | Path, key: str = "id") -> set[str]:
    """Ids of the records already in an output file (none if it does not exist yet)."""
    path = Path(path)
    if not path.is_file():
        return set()
    ids = set()
    with path.open(encoding="utf-8") as handle:
        for _, record, error in json_lines(handle):
            # A line that is not JSON is a torn last line from a killed run, repaired before the next append.
            if error is None and isinstance(record, dict) and key in record:
                ids.add(str(record[key]))
    return ids


class JsonlAppender:
    """Appends complete JSON lines to a file, flushing each, after cutting off a torn last line."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        drop_torn_tail(self.path)
        self._handle = self.path.open("a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()

    def write_all(self, records: Iterable[dict[str, Any]]) -> None:
        for record in records:
            self.write(record)

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
