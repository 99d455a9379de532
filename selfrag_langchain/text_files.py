"""Reading the text files users name (documents to index, evaluation files), with one clear error line."""

from __future__ import annotations

from pathlib import Path

from selfrag_langchain.errors import InputError


def read_user_text(path: Path, what: str = "file") -> str:
    """The text of ``path`` (a byte-order mark dropped), or an :class:`InputError` saying what is wrong.

    ``what`` names the file in the message ("eval file not found: ...").
    """
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as e:
        msg = f"{what} not found: {path}"
        raise InputError(msg) from e
    except IsADirectoryError as e:
        msg = f"{what} is a directory: {path}: give a file"
        raise InputError(msg) from e
    except UnicodeDecodeError as e:
        msg = f"{path} is not UTF-8 text: convert it (e.g. `iconv -t utf-8`) or leave it out"
        raise InputError(msg) from e
    except OSError as e:
        msg = f"cannot read {what} {path}: {e}"
        raise InputError(msg) from e
