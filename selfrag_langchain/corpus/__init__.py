"""The corpus: Self-RAG's passage format, file collection and chunking, the Chroma store, resumable indexing,
the embedded demo corpus, and which store answers a question.

Layers, lowest first: :mod:`.text_files` (reading a user's file), :mod:`.store` (the collection and where it
lives), :mod:`.indexing` (files to chunks to the store, resumably), :mod:`.demo` (the demo corpus, indexed on
first use), :mod:`.answering` (the policy over them: the named store, else the default, else the demo).
Importing this package loads neither Chroma nor an embedding model.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "answering_store": "answering", "default_retriever": "answering", "has_store": "store", "open_store": "store",
    "index_documents": "indexing", "index_paths": "indexing", "load_documents": "indexing",
}
"""Each public name and the module it lives in, imported on first use: reading a file (``.text_files``) does
not pay for the store's imports."""

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
