"""Command lines from config dataclasses: every field becomes a flag, ``--config`` reads a YAML/JSON file.

Precedence: the dataclass defaults, then the file, then the flags given on the command line. Fields
marked ``required`` in their metadata (``data``, ``out``, ...) must come from the file or the flags.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

from selfrag_langchain.errors import ConfigurationError

T = TypeVar("T")


def _field_type(cls: type, name: str) -> tuple[type, bool]:
    """(base type, is a list) of a field, with ``X | None`` unwrapped."""
    hint = typing.get_type_hints(cls)[name]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = args[0]
    if typing.get_origin(hint) is list:
        return typing.get_args(hint)[0], True
    return hint, False


def add_config_arguments(parser: argparse.ArgumentParser, cls: type) -> None:
    """One flag per field of ``cls`` (``learning_rate`` -> ``--learning-rate``), plus ``--config``."""
    parser.add_argument("--config", type=Path, default=None,
                        help="YAML or JSON file of these options (flags given here override it)")
    for f in dataclasses.fields(cls):
        base, is_list = _field_type(cls, f.name)
        flag = "--" + f.name.replace("_", "-")
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        shown = "required" if f.metadata.get("required") else f"default: {default}"
        kwargs: dict[str, Any] = {"default": argparse.SUPPRESS, "help": f"{f.metadata.get('help', '')} ({shown})"}
        if base is bool:
            kwargs["action"] = argparse.BooleanOptionalAction
        else:
            kwargs["type"] = base
            kwargs["metavar"] = f.name.upper() if base is str else base.__name__.upper()
            if is_list:
                kwargs["nargs"] = "+"
        if "choices" in f.metadata and not is_list:
            kwargs["choices"] = f.metadata["choices"]
        parser.add_argument(flag, *f.metadata.get("aliases", ()), dest=f.name, **kwargs)


def config_from_args(cls: type[T], args: argparse.Namespace) -> T:
    """The config ``cls`` from the parsed flags and the ``--config`` file, if any.

    Raises:
        ConfigurationError: for an unreadable file, an unknown key in it, a value of the wrong type, or a
            required option given nowhere.
    """
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    config_path = getattr(args, "config", None)
    if config_path is not None:
        values.update(_read_config_file(Path(config_path), cls, names))
    values.update({name: getattr(args, name) for name in names if hasattr(args, name)})
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.metadata.get("required") and not values.get(f.name):
            msg = f"--{f.name.replace('_', '-')} is required (as a flag or in --config)"
            raise ConfigurationError(msg)
    return cls(**values)


def _read_config_file(path: Path, cls: type, names: set[str]) -> dict[str, Any]:
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
    values: dict[str, Any] = {}
    for key, value in data.items():
        name = str(key).replace("-", "_")
        if name not in names:
            msg = f"unknown option '{key}' in {path}: choose from {', '.join(sorted(names))}"
            raise ConfigurationError(msg)
        values[name] = _coerce(cls, name, value, path)
    return values


def _coerce(cls: type, name: str, value: Any, path: Path) -> Any:
    """A file value as the field's type (YAML gives 2e-5 as a string, a single path instead of a list)."""
    if value is None:
        return None
    base, is_list = _field_type(cls, name)
    items = value if isinstance(value, list) else [value]
    try:
        converted = [item if isinstance(item, base) else _convert(base, item) for item in items]
    except (TypeError, ValueError) as e:
        msg = f"option '{name}' in {path} must be {base.__name__}, got {value!r}"
        raise ConfigurationError(msg) from e
    if is_list:
        return converted
    if len(converted) != 1:
        msg = f"option '{name}' in {path} takes one value, got a list"
        raise ConfigurationError(msg)
    return converted[0]


def _convert(base: type, item: Any) -> Any:
    if base is bool:
        if isinstance(item, str) and item.lower() in ("true", "false", "yes", "no"):
            return item.lower() in ("true", "yes")
        raise ValueError(item)
    if base is int and isinstance(item, float) and not item.is_integer():
        raise ValueError(item)
    return base(item)
