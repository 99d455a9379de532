"""A faster CPU runtime for mean-pooling sentence-transformers models: ONNX Runtime, int8 or fp32 weights.

Embedding the demo corpus is most of a first run on a small CPU. The same weights, exported once to
ONNX with their matrix products quantized to int8 (dynamic quantization, per output channel), index
the demo corpus 4x faster on two cores than sentence-transformers in fp32, with vectors at cosine
~0.995 from the fp32 ones; ``benchmarks/indexing.py`` measures the speed and the retrieval recall
both ways. Exported without quantizing (fp32), the vectors are sentence-transformers' own to ~1e-7, and
a few sentences at a time, as the calibrated judge embeds them, come twice as fast: no per-call overhead
of torch's, no padding.

sentence-transformers has an ONNX backend of its own, but it needs ``optimum``, which pins a
transformers older than this project's; the export here uses ``torch.onnx`` and onnxruntime's own
quantizer instead. The quantized file is built once (a few seconds; ``scripts/setup.sh`` does it at
install time) and cached beside the environment's other model files, or under the user's model cache
where the environment is read-only, keyed by the weights' content and the versions that shape it.
The sentence reader and the answer finder keep their exports in the same cache (:func:`cached_export`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.files import paths

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

__all__ = [
    "MODEL_FILES",
    "OnnxPrecision",
    "OnnxSentenceEncoder",
    "cached_export",
    "content_digest",
    "cpu_session",
    "onnx_model_file",
    "onnx_supported",
    "quiet_loading",
    "worker_count",
]

OnnxPrecision = Literal["int8", "fp32"]
"""The weights of an ONNX export: matrix products quantized to int8, or as trained."""

_FORMAT = "1"
"""Bumped whenever the export or quantization settings change, so old cached files are not reused."""

_BUILD_LOCK = threading.Lock()


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def onnx_supported(model_dir: Path) -> bool:
    """Whether ``model_dir`` is a model this runtime reproduces: a transformer, then mean pooling.

    Other poolings (CLS, max, weighted) and models with extra modules (dense layers) stay on
    sentence-transformers' own torch path.
    """
    modules = _read_json(model_dir / "modules.json")
    if not isinstance(modules, list):
        return False
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return False
    pooling = _read_json(model_dir / modules[1].get("path", "") / "config.json")
    modes = {k: v for k, v in pooling.items() if k.startswith("pooling_mode_")}
    return modes.get("pooling_mode_mean_tokens") is True and sum(bool(v) for v in modes.values()) == 1


def content_digest(files: Iterable[Path]) -> str:
    """A content hash of ``files`` (those that exist, by name and bytes), plus the export format and the versions
    that shape an exported graph: the key of a cached export."""
    digest = hashlib.sha256(_FORMAT.encode())
    for path in files:
        if path.is_file():
            digest.update(path.name.encode())
            with path.open("rb") as handle:
                while chunk := handle.read(1 << 22):
                    digest.update(chunk)
    for package in ("torch", "onnxruntime"):
        digest.update(metadata.version(package).encode())
    return digest.hexdigest()[:16]


MODEL_FILES = ("config.json", "model.safetensors", "pytorch_model.bin")
"""The files of a Hugging Face model directory that shape its export (those it has)."""


def _weights_digest(model_dir: Path) -> str:
    """A content hash of the weights and config, plus the versions that shape the exported graph."""
    return content_digest(model_dir / name for name in MODEL_FILES)


@contextlib.contextmanager
def quiet_loading() -> Iterator[None]:
    """Models loaded for a one-off export show no "Loading weights" bar (set-up's output stays readable)."""
    from transformers.utils import logging as hf_logging

    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if bars:
            hf_logging.enable_progress_bar()


def _export(model_dir: Path, target: Path, precision: OnnxPrecision) -> None:
    """Export the transformer to ONNX (fp32), then, for int8, quantize its matrix products."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    with quiet_loading():
        model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    names = list(tokenizer.model_input_names)

    class _Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            return self.model(**dict(zip(names, inputs, strict=True))).last_hidden_state

    sample = tokenizer(["an example sentence"], return_tensors="pt")
    axes = {name: {0: "batch", 1: "tokens"} for name in [*names, "hidden"]}
    fp32 = target if precision == "fp32" else target.with_name("model-export.onnx")
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _Encoder(),
            tuple(sample[name] for name in names),
            str(fp32),
            input_names=names,
            output_names=["hidden"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )
    if precision == "fp32":
        return
    quiet = logging.getLogger().level
    logging.getLogger().setLevel(logging.ERROR)  # the quantizer's advice to pre-process first
    try:
        quantize_dynamic(
            str(fp32),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            extra_options={"DefaultTensorType": 1},  # float: lets it type the exporter's nodes
        )
    finally:
        logging.getLogger().setLevel(quiet)
    fp32.unlink()


def _cache_dirs() -> list[Path]:
    """Where ONNX files are kept, first choice first: with the environment (they derive from its
    installed packages, so deleting ``.venv`` removes them), else the user's model cache."""
    return [paths.environment_model_dir() / "onnx", paths.model_cache_dir() / "onnx"]


def cached_export(name: str, target_name: str, export: Callable[[Path], None], what: str) -> Path:
    """The ONNX file ``target_name`` of the cache folder ``name`` (a content key, :func:`content_digest`), made by
    ``export(path)`` on first use.

    The file is written in a temporary folder and moved into place whole, so an interrupted or a concurrent build
    never leaves a partial model where a later run would load it.

    Raises:
        ModelLoadError: If the export fails (one line naming ``what`` and the cause).
    """
    caches = [base / name for base in _cache_dirs()]
    with _BUILD_LOCK:
        for cache in caches:
            if (cache / target_name).is_file():
                return cache / target_name
        for cache in caches:
            try:
                with paths.building(cache) as work:
                    export(work / target_name)
                return cache / target_name
            except PermissionError:
                continue  # a read-only environment: try the user's cache
            except Exception as e:  # export or quantizer failure: unusable files or versions
                msg = f"Could not build the {what}: {e}"
                raise ModelLoadError(msg) from e
    msg = f"Could not write the {what} to any of: {', '.join(map(str, caches))}"
    raise ModelLoadError(msg)


def onnx_model_file(model_dir: Path, precision: OnnxPrecision = "int8") -> Path:
    """The ONNX file of the model at ``model_dir`` in ``precision``, built and cached on first use
    (:func:`cached_export`).

    Raises:
        ModelLoadError: If the export or the quantization fails (one line, with the cause).
    """
    name = f"{model_dir.name}-{precision}-{_weights_digest(model_dir)}"  # a folder is built whole, one a file
    return cached_export(name, f"model-{precision}.onnx", lambda target: _export(model_dir, target, precision),
                         f"{precision} ONNX model from {model_dir}")


def worker_count() -> int:
    """One worker per core this process may use (``OMP_NUM_THREADS`` lowers it)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    limit = os.environ.get("OMP_NUM_THREADS", "")
    return max(1, min(cores, int(limit))) if limit.isdigit() and int(limit) > 0 else max(1, cores)


def cpu_session(model_file: Path, threads: int) -> Any:
    """An ONNX Runtime session of ``model_file`` on the CPU with ``threads`` threads, quiet but for errors.

    Raises:
        ModelLoadError: If the file cannot be loaded (a damaged cache file: deleting it has it rebuilt).
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
    except Exception as e:  # a damaged cache file
        msg = f"Could not load {model_file}: {e}; delete it and it is rebuilt on the next run."
        raise ModelLoadError(msg) from e


class OnnxSentenceEncoder:
    """Mean-pooled, unit-length sentence vectors from an int8 or fp32 ONNX export of a transformer.

    Each text is run on its own, by one single-threaded call per core. Dynamic quantization scales
    activations per call, so in a batch a text's vector would depend on its neighbours (and on
    their padding); alone, it is the same in every run. Without padding it is also the fastest
    way on a small CPU (measured 274 texts/s alone against 220 in batches of 8, on two cores).
    """

    def __init__(self, model_dir: Path, precision: OnnxPrecision = "int8") -> None:
        from transformers import AutoTokenizer

        model_file = onnx_model_file(model_dir, precision)
        self.tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
        config = _read_json(model_dir / "sentence_bert_config.json")
        self.max_length = int(config.get("max_seq_length") or self.tokenizer.model_max_length)
        self.session = cpu_session(model_file, threads=1)
        self.input_names = [i.name for i in self.session.get_inputs()]
        self.workers = worker_count()
        self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="onnx-encoder")

    def _encode_one(self, text: str) -> np.ndarray:
        tokens = self.tokenizer(text, truncation=True, max_length=self.max_length, return_tensors="np")
        (hidden,) = self.session.run(None, {name: tokens[name].astype(np.int64) for name in self.input_names})
        pooled = hidden[0].mean(axis=0)  # one text, no padding: every position counts
        return pooled / max(float(np.linalg.norm(pooled)), 1e-12)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length vectors of ``texts``, in order."""
        vectors = list(self._pool.map(self._encode_one, texts))
        return np.stack(vectors).astype(np.float32) if vectors else np.empty((0, 0), np.float32)
