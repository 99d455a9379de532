"""What the benchmark scripts share: reading a JSON Lines file and the question lists' manifest, the 95% Wilson
interval, and the ``--k``,
``--max-new-tokens`` and ``--later-k`` flags, whose default is the library's (``LoopSettings``,
``BeamSettings``) unless a script gives its own.

The scripts import it as a sibling module (``from common import read_jsonl``): a script's directory is on
``sys.path`` when it runs.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from selfrag_langchain.chains.controls import BeamSettings, LoopSettings
from selfrag_langchain.files.durable import json_lines


def read_jsonl(path: str | Path, limit: int | None = None) -> list[Any]:
    """The values of a JSON Lines file in order, blank lines skipped; with ``limit``, only the first ``limit``
    of them (the rest of the file is not read). A line that is not JSON stops the script with one line naming
    the file, the line's number and why, instead of a traceback."""
    path = Path(path)
    values: list[Any] = []
    try:
        with path.open(encoding="utf-8") as handle:
            for line in json_lines(handle):
                if limit is not None and len(values) >= limit:
                    break
                if line.error is not None:
                    raise SystemExit(f"{path}, line {line.number}: not JSON ({line.error.msg}, "
                                     f"column {line.error.colno})")
                values.append(line.value)
    except (OSError, UnicodeDecodeError) as e:
        raise SystemExit(f"{path}: cannot be read ({e.strerror or e})") from e
    return values


LISTS = Path(__file__).parent / "data"
"""The question lists, named with their sizes and roles in ``LISTS / "README.md"``."""
_MANIFEST_ROW = re.compile(r"^\| `([\w.]+\.jsonl)` \| (\d+) \| [^|]+ \| (\w+) \|", re.MULTILINE)


def list_manifest(data: Path = LISTS) -> dict[str, tuple[int, str]]:
    """The question lists' manifest (``data/README.md``): each list's file name, its rows and its role, in order."""
    rows = _MANIFEST_ROW.findall((data / "README.md").read_text(encoding="utf-8"))
    return {name: (int(size), role) for name, size, role in rows}


def print_figures(figures: dict[str, Any], out: Path | None) -> None:
    """Print a script's figures as JSON and, with ``out``, write them there too."""
    text = json.dumps(figures, indent=2)
    print(text)
    if out:
        out.write_text(text + "\n", encoding="utf-8")


def wilson(hits: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 0.0
    z, p = 1.96, hits / n
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, (centre - half) / (1 + z * z / n)), min(1.0, (centre + half) / (1 + z * z / n))


def _add_settings_flag(parser: argparse.ArgumentParser, flag: str, settings: type[BaseModel], field: str,
                       default: int | None, help: str) -> argparse.Action:
    library = settings.model_fields[field].default
    value = library if default is None else default
    said = "the library's" if value == library else f"the library's: {library}"
    optional = _takes_none(settings, field)

    def checked(text: str) -> int | None:
        """The flag's value (``none`` for a field that takes None), held to the library's range for the field: a
        value out of it stops the script with argparse's one-line usage error instead of a traceback when the
        settings are made."""
        if optional and text.lower() == "none":
            return None
        try:
            number = int(text)
            settings(**{field: number})
        except ValueError as e:  # int()'s, or pydantic's ValidationError (a ValueError) with the field's message
            errors = e.errors() if isinstance(e, ValidationError) else None
            said = errors[0]["msg"].removeprefix("Value error, ") if errors else f"not a whole number: {text!r}"
            raise argparse.ArgumentTypeError(said) from e
        return number

    return parser.add_argument(flag, type=checked, default=value, help=f"{help} (default: %(default)s; {said})")


def _takes_none(settings: type[BaseModel], field: str) -> bool:
    """Whether the settings accept None for the field."""
    try:
        settings(**{field: None})
    except ValidationError:
        return False
    return True


def add_k(parser: argparse.ArgumentParser, default: int | None = None,
          help: str = "passages retrieved, one branch each") -> argparse.Action:
    """``--k``, defaulting to the library's ``k`` (``LoopSettings``) unless ``default`` is given; a script that
    gives its own says why in ``help``. The help ends with the default, and the library's when they differ."""
    return _add_settings_flag(parser, "--k", LoopSettings, "k", default, help)


def add_max_new_tokens(parser: argparse.ArgumentParser, default: int | None = None,
                       help: str = "token budget of an answer") -> argparse.Action:
    """``--max-new-tokens``, defaulting to the library's ``max_new_tokens`` (``LoopSettings``) unless ``default``
    is given; a script that gives its own says why in ``help``. The help ends with the default, and the
    library's when they differ."""
    return _add_settings_flag(parser, "--max-new-tokens", LoopSettings, "max_new_tokens", default, help)


def add_later_k(parser: argparse.ArgumentParser, default: int | None = None,
                help: str = "passages judged for each long-form segment after the first, or 'none' for all k"
                ) -> argparse.Action:
    """``--later-k``, defaulting to the library's ``later_k`` (``BeamSettings``) unless ``default`` is given."""
    return _add_settings_flag(parser, "--later-k", BeamSettings, "later_k", default, help)
