"""What a trained artefact records about how it was made: the data files' hashes, the seed and the library
versions, so a result can be traced and reproduced."""

from __future__ import annotations

import hashlib
import importlib.metadata
import platform
from collections.abc import Sequence
from pathlib import Path

LIBRARIES = ("selfrag-langchain", "torch", "transformers", "peft", "sentence-transformers", "scikit-learn",
             "accelerate", "deepspeed")
"""The packages whose versions decide what a training run computes."""


def file_hash(path: str | Path) -> str:
    """The SHA-256 of a data file, for the provenance of what was fitted on it."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def data_keys(paths: Sequence[str | Path]) -> list[str]:
    """The name each data file's hash is recorded under: its file name (a directory would tie the artefact to
    one machine), or the path as given when two files share a name."""
    names = [Path(path).name for path in paths]
    return names if len(set(names)) == len(names) else [str(path) for path in paths]


def data_hashes(paths: Sequence[str | Path]) -> dict[str, str]:
    """Each data file's SHA-256 under its :func:`data_keys` name."""
    return {key: file_hash(path) for key, path in zip(data_keys(paths), paths, strict=True)}


def library_versions() -> dict[str, str]:
    """The installed versions of :data:`LIBRARIES` (those missing are left out) and Python's."""
    versions = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def provenance(paths: Sequence[str | Path], seed: int) -> dict[str, object]:
    """The record every trained artefact carries: data hashes, seed, library versions."""
    return {"data": data_hashes(paths), "seed": seed, "libraries": library_versions()}
