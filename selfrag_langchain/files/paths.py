"""Where the project keeps what it prepares once and reuses: converted models, the default store.

Everything lives under one home directory so a user can see, move or delete it in one place.
``SELFRAG_HOME`` overrides it (tests point it at a temporary directory).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import platformdirs

APP_NAME = "selfrag-langchain"


def home_dir() -> Path:
    """The root of everything the project writes outside the user's own paths."""
    override = os.environ.get("SELFRAG_HOME")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME))


def model_cache_dir() -> Path:
    """Models converted once (e.g. GGUF dequantised to safetensors) and loaded from here after."""
    return home_dir() / "models"


def environment_model_dir() -> Path:
    """Model files installed with this Python environment (``scripts/setup.sh`` puts the embedded
    default's GGUF here): they belong to the environment, not to the user's home, so deleting
    ``.venv`` removes them and ``SELFRAG_HOME`` does not hide them."""
    return Path(sys.prefix) / "share" / APP_NAME / "models"


def default_store_dir() -> Path:
    """The persistent Chroma store that ``selfrag index`` and ``selfrag ask`` use by default."""
    return home_dir() / "store"


def demo_store_dir() -> Path:
    """The store of the demo corpus, kept apart so it never mixes with what the user indexes."""
    return home_dir() / "demo-store"


@contextmanager
def building(target: Path) -> Iterator[Path]:
    """A temporary folder beside ``target`` that becomes ``target`` whole when the block succeeds.

    What is prepared once (a converted model, an exported one) is never seen half-written: a failed
    or interrupted build removes its folder, and a build that finds ``target`` made meanwhile by
    another process keeps that one.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        yield tmp
        try:
            os.replace(tmp, target)
        except OSError:
            if not target.is_dir():
                raise
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


StoreLocation = Path | str
"""A store directory, or the URL of a Chroma server (``http://host:port``)."""


def is_server(location: StoreLocation | None) -> bool:
    """Whether ``location`` names a Chroma server rather than a directory."""
    return isinstance(location, str) and location.startswith(("http://", "https://"))


def store_location(text: str) -> StoreLocation:
    """A ``--store`` value: a server URL as given, anything else a directory path."""
    return text if is_server(text) else Path(text)
