"""Command lines from config dataclasses, with transformers' ``HfArgumentParser``: every field is a flag
(``learning_rate`` -> ``--learning-rate`` or ``--learning_rate``, plus the aliases in its metadata), and
``--config`` reads a YAML/JSON file of the same options, as trl's ``TrlParser`` does.

Precedence: the dataclass defaults, then the file, then the flags given on the command line. A field
without a default (``data``, ``out``, ...) must come from the file or the flags.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from selfrag_langchain.errors import ConfigurationError

T = TypeVar("T")


def config_parser(cls: type, prog: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``cls``: one flag per field, and ``--config``."""
    from transformers import HfArgumentParser

    parser = HfArgumentParser(cls, prog=prog, description=(cls.__doc__ or "").strip())
    parser.add_argument("--config", type=Path, default=None,
                        help="YAML or JSON file of these options (flags given here override it)")
    parser.error = _refuse  # type: ignore[method-assign]  # one line, as for a mistake in the data
    return parser


def _refuse(message: str) -> NoReturn:
    raise ConfigurationError(message)


def parse_config(cls: type[T], argv: Sequence[str], prog: str | None = None) -> T:
    """The config ``cls`` from the flags in ``argv`` and the ``--config`` file they name, if any.

    Raises:
        ConfigurationError: for a flag or a file option that ``cls`` does not have, a value of the wrong type,
            a required option given nowhere, an unreadable file, or a value the config refuses.
    """
    parser = config_parser(cls, prog)
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--config", type=Path, default=None)
    path = early.parse_known_args(list(argv))[0].config
    if path is not None:
        _take_file(parser, path)
    namespace = parser.parse_args(list(argv))
    names = [f.name for f in dataclasses.fields(cls) if f.init]  # type: ignore[arg-type]
    try:
        return cls(**{name: getattr(namespace, name) for name in names if hasattr(namespace, name)})
    except TypeError as e:  # a value a field cannot hold, from the file
        raise ConfigurationError(str(e)) from e


def _take_file(parser: argparse.ArgumentParser, path: Path) -> None:
    """Make the file's values the parser's defaults (so flags still win); a required option it gives is
    required no more."""
    actions = {option.lstrip("-").replace("-", "_"): action
               for action in parser._actions for option in action.option_strings}
    for key, value in _read_config_file(path).items():
        action = actions.get(str(key).replace("-", "_"))
        if action is None or action.dest in ("help", "config"):
            msg = f"unknown option '{key}' in {path}: `--help` lists the options"
            raise ConfigurationError(msg)
        if value is not None and action.type is not None:
            items = value if isinstance(value, list) else [value]
            try:
                for item in items:
                    action.type(item)
            except (TypeError, ValueError, argparse.ArgumentTypeError) as e:
                kind = getattr(action.type, "__name__", "its type")
                msg = f"option '{key}' in {path} must be {kind}, got {value!r}"
                raise ConfigurationError(msg) from e
            if isinstance(value, list) and action.nargs not in ("+", "*"):
                msg = f"option '{key}' in {path} takes one value, got a list"
                raise ConfigurationError(msg)
            value = [action.type(i) for i in items] if action.nargs in ("+", "*") else action.type(value)
        action.required = False
        action.default = value


def _read_config_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        msg = f"config file {path} does not exist"
        raise ConfigurationError(msg)
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix.lower() in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except Exception as e:  # yaml and json raise different types; both mean "not parseable"
        msg = f"config file {path} cannot be parsed: {e}"
        raise ConfigurationError(msg) from e
    if data is None:
        return {}
    if not isinstance(data, dict):
        msg = f"config file {path} must hold a mapping of option: value"
        raise ConfigurationError(msg)
    return data
