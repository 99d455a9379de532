"""Reading the text files users name (documents to index, evaluation files), with one clear error line."""

from __future__ import annotations

from pathlib import Path

from selfrag_langchain.errors import InputError

__all__ = ["UnreadableFileError", "read_user_text"]


class UnreadableFileError(InputError):
    """A file that cannot be read as UTF-8 text.

    ``path`` and ``reason`` (the message without the path) let a caller that reads many files, such
    as indexing, list this one in a line of its own and go on with the others.
    """

    def __init__(self, message: str, path: Path, reason: str) -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason


def read_user_text(path: Path, what: str = "file") -> str:
    """The text of ``path`` (a byte-order mark dropped), or an error saying what is wrong.

    ``what`` names the file in the message ("eval file not found: ...").

    Raises:
        UnreadableFileError: if the file is missing, a directory, not UTF-8 or unreadable.
    """
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as e:
        reason = "not found"
        msg = f"{what} not found: {path}"
        raise UnreadableFileError(msg, path, reason) from e
    except IsADirectoryError as e:
        reason = "is a directory: give a file"
        msg = f"{what} is a directory: {path}: give a file"
        raise UnreadableFileError(msg, path, reason) from e
    except UnicodeDecodeError as e:
        byte = e.object[e.start : e.start + 1].hex()
        reason = (f"not UTF-8 text (byte 0x{byte} at offset {e.start}): convert it to UTF-8 "
                  "(e.g. `iconv -f latin1 -t utf-8`)")
        msg = f"{path} is {reason} or leave it out"
        raise UnreadableFileError(msg, path, reason) from e
    except OSError as e:
        reason = f"cannot be read: {e.strerror or e}"
        msg = f"cannot read {what} {path}: {e}"
        raise UnreadableFileError(msg, path, reason) from e
