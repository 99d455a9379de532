"""The embedded default store: a persistent Chroma collection under the project's home directory, or the
same collection on a Chroma server (``chroma run``) named by its URL.

``selfrag index`` writes to it and ``selfrag ask`` reads from it, so both must agree on the
directory or server, the collection name, the embedding model and the distance; this module is the one
place that knows them. Opening never changes a store it cannot read: a damaged store is
reported with what to do, so the user's data stays as it was for them to inspect.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings
from tenacity import retry, retry_if_exception, stop_after_attempt, wait_exponential

from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.errors import StoreError
from selfrag_langchain.files import paths
from selfrag_langchain.files.paths import is_server

if TYPE_CHECKING:  # importing Chroma costs seconds; only commands that use a store pay it
    from langchain_chroma import Chroma

__all__ = [
    "COLLECTION_NAME",
    "has_store",
    "is_server",
    "open_store",
    "resolve_store_dir",
    "store_metadata",
    "store_size",
    "update_store_metadata",
]

COLLECTION_NAME = "selfrag"
"""The collection every project command reads and writes."""

EMBEDDING_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
"""Recorded in the collection metadata, so a store says which model its vectors came from."""

_SQLITE_FILE = "chroma.sqlite3"
SEARCH_BREADTH = 500
"""How many candidates Chroma's HNSW index weighs for a query (its ``ef_search``; Chroma's own default is 100).
At 100 the nearest passage of the demo corpus was missing from the ten found for 21 of 4,998 questions, and which
ones changed from process to process: a store replays its last vectors, those not yet saved with its index, in
another order each time it is opened. At 500 it was missing for one, at 0.5 ms more a query."""
_COLLECTION_CONFIGURATION: dict[str, Any] = {"hnsw": {"space": "cosine", "ef_search": SEARCH_BREADTH}}


def _server_client(url: str) -> Any:
    """A client of the Chroma server at ``url``; a server that does not answer is one StoreError."""
    from urllib.parse import urlparse

    import chromadb
    from chromadb.config import Settings

    parts = urlparse(url)
    if not parts.hostname:
        raise StoreError(f"{url} is not a Chroma server URL: give http://HOST:PORT")
    try:
        client = chromadb.HttpClient(host=parts.hostname, port=parts.port or (443 if parts.scheme == "https" else 8000),
                                     ssl=parts.scheme == "https", settings=Settings(anonymized_telemetry=False))
        client.heartbeat()
    except Exception as e:  # connection refused, DNS, TLS, a server of another version: all "cannot reach"
        msg = f"cannot reach the Chroma server at {url} ({type(e).__name__}: {e}): is `chroma run` running there?"
        raise StoreError(msg) from e
    return client


def resolve_store_dir(path: Path | str | None = None) -> Path:
    """The absolute store directory: ``path`` when given, else ``paths.default_store_dir()``."""
    chosen = paths.default_store_dir() if path is None else Path(path)
    return chosen.expanduser().resolve()


def _no_store(where: Path | str) -> StoreError:
    if isinstance(where, str):
        return StoreError(f"No store on the Chroma server at {where}: run `selfrag index PATH --store {where}` first")
    return StoreError(f"No store at {where}: run `selfrag index PATH` first")


def _unreadable(directory: Path, error: BaseException) -> StoreError:
    if not os.access(directory, os.W_OK) or "readonly database" in str(error):
        # Chroma writes as it opens, so a read-only store cannot even be read: say so, not "damaged".
        msg = (
            f"The store at {directory} is read-only ({type(error).__name__}: {error}); Chroma needs to "
            "write to a store to open it. Make it writable, or copy it to a writable place and pass that "
            "with --store; it was left untouched."
        )
        return StoreError(msg)
    if _locked(error):
        msg = (
            f"The store at {directory} is busy: it is being written to ({type(error).__name__}: {error}). "
            "Try again in a moment; it was left untouched."
        )
        return StoreError(msg)
    msg = (
        f"The store at {directory} cannot be read ({type(error).__name__}: {error}). It is "
        f"damaged or was written by another Chroma version; it was left untouched. Move it "
        f"aside (`mv {directory} {directory}.broken`) and run `selfrag index PATH` again."
    )
    return StoreError(msg)


def _client(directory: Path) -> Any:
    """A Chroma client on ``directory``; a store Chroma cannot open becomes a StoreError."""
    import chromadb
    from chromadb.api.shared_system_client import SharedSystemClient
    from chromadb.config import Settings

    try:
        return chromadb.PersistentClient(
            path=str(directory), settings=Settings(anonymized_telemetry=False)
        )
    except Exception as e:  # Chroma raises many types for a bad file; all mean "unreadable"
        # Chroma caches a half-started system per path; drop it so a later open retries.
        SharedSystemClient._identifier_to_system.pop(str(directory), None)
        raise _unreadable(directory, e) from e


def _check_can_create(directory: Path) -> None:
    """Refuse to turn a directory holding other files into a store."""
    if directory.exists() and not directory.is_dir():
        msg = f"The store path {directory} is a file, not a directory: choose another path"
        raise StoreError(msg)
    if directory.is_dir() and not (directory / _SQLITE_FILE).exists() and any(directory.iterdir()):
        msg = (
            f"{directory} is not empty and holds no store: choose a new or empty directory "
            "for the store"
        )
        raise StoreError(msg)


def open_store(
    path: Path | str | None = None,
    *,
    create: bool,
    embeddings: Embeddings | None = None,
) -> Chroma:
    """Open the persistent Chroma store (collection ``"selfrag"``, cosine distance).

    Args:
        path: The store directory, or a Chroma server's URL (``http://host:port``, as ``chroma run``
            serves); ``None`` uses ``paths.default_store_dir()``.
        create: Create the directory and collection when missing (indexing), and raise an older store's
            search breadth (:data:`SEARCH_BREADTH`). When False (asking), the store must exist and hold at
            least one passage.
        embeddings: The embedding model; ``None`` uses ``MiniLMEmbeddings()``. A store must
            be read with the model that wrote it.

    Returns:
        A ``langchain_chroma.Chroma`` vector store.

    Raises:
        StoreError: If ``create`` is False and there is no store or it is empty, if the
            store cannot be read (left untouched), or if ``path`` is not usable as a store.
    """
    from langchain_chroma import Chroma

    if is_server(path):
        return _open(Chroma, _server_client(str(path)), str(path), create=create, embeddings=embeddings)
    directory = resolve_store_dir(path)
    if create:
        _check_can_create(directory)
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            msg = f"Cannot create the store directory {directory}: {e}"
            raise StoreError(msg) from e
    elif not (directory / _SQLITE_FILE).is_file():
        raise _no_store(directory)

    return _open(Chroma, _client(directory), directory, create=create, embeddings=embeddings)


def _open(chroma: Any, client: Any, where: Path | str, *, create: bool, embeddings: Embeddings | None) -> Chroma:
    """The project's collection on ``client`` (a directory's or a server's)."""
    try:
        if not create:
            names = {c if isinstance(c, str) else c.name for c in client.list_collections()}
            if COLLECTION_NAME not in names:
                raise _no_store(where)
        store = chroma(
            collection_name=COLLECTION_NAME,
            embedding_function=embeddings if embeddings is not None else MiniLMEmbeddings(),
            client=client,
            collection_metadata={"embedding_model": EMBEDDING_MODEL_NAME} if create else None,
            collection_configuration=_COLLECTION_CONFIGURATION if create else None,  # type: ignore[arg-type]
            create_collection_if_not_exists=create,
        )
        if create:
            _widen_search(store)
        count = store_size(store)
    except StoreError:
        raise
    except Exception as e:
        if isinstance(where, str):
            raise StoreError(f"the Chroma server at {where} failed ({type(e).__name__}: {e})") from e
        raise _unreadable(where, e) from e
    if not create and count == 0:
        raise _no_store(where)
    return store


def _widen_search(store: Chroma) -> None:
    """Raise the ``ef_search`` of a store written before :data:`SEARCH_BREADTH` was set (Chroma keeps a
    collection's configuration, not the one given when it is opened again); Chroma reads it when the store is
    next opened."""
    configuration = getattr(store._collection, "configuration_json", None) or {}
    if (configuration.get("hnsw") or {}).get("ef_search", SEARCH_BREADTH) < SEARCH_BREADTH:
        _write_again_when_locked(store._collection.modify)(configuration={"hnsw": {"ef_search": SEARCH_BREADTH}})


def _locked(error: BaseException) -> bool:
    """Whether Chroma refused a read or write because its SQLite file was locked."""
    return "database is locked" in str(error)


# Chroma's own connections to its SQLite file can refuse each other a write at once, without waiting ("database
# is locked", about once in 600 opens on a loaded machine); the same write a moment later goes through.
_write_again_when_locked = retry(
    retry=retry_if_exception(_locked),
    stop=stop_after_attempt(5),
    wait=wait_exponential(multiplier=0.05, max=1.0),
    reraise=True,
)


def store_metadata(store: Chroma) -> dict[str, Any]:
    """The collection metadata: the embedding model, markers such as the demo corpus's.

    Args:
        store: A store from ``open_store``.

    Returns:
        A copy of the metadata.
    """
    return dict(store._collection.metadata or {})


def update_store_metadata(store: Chroma, **values: str | int | float | bool) -> None:
    """Add keys to the collection metadata (markers such as "the demo corpus is complete").

    Args:
        store: A store from ``open_store``.
        **values: Scalar metadata values to set; other keys are kept.
    """
    store._collection.modify(metadata={**store_metadata(store), **values})


def store_size(store: Chroma) -> int:
    """How many passages the store holds.

    Args:
        store: A store from ``open_store``.

    Returns:
        The number of stored chunks.
    """
    return store._collection.count()


def has_store(path: Path | str | None = None) -> bool:
    """Whether ``selfrag index`` has written a store at ``path`` (default: the default store); a server
    is asked when it is opened."""
    return is_server(path) or (resolve_store_dir(path) / _SQLITE_FILE).exists()
