"""The int8 ONNX runtime of the embedding model: when it applies, where its file is kept, and that
its vectors are the fp32 model's within quantization noise, in the caller's order."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from selfrag_langchain.embeddings import MiniLMEmbeddings, default_model_path
from selfrag_langchain.embeddings import onnx as onnx_encoder
from selfrag_langchain.embeddings.onnx import onnx_model_file, onnx_supported
from selfrag_langchain.errors import ModelLoadError


def _model_dir_with_pooling(tmp_path: Path, **modes: bool) -> Path:
    """A copy of the bundled model's configuration files with another pooling (no weights needed)."""
    model = tmp_path / "model"
    (model / "1_Pooling").mkdir(parents=True)
    shutil.copy(default_model_path() / "modules.json", model / "modules.json")
    config = json.loads((default_model_path() / "1_Pooling" / "config.json").read_text())
    config.update({f"pooling_mode_{k}": v for k, v in modes.items()})
    (model / "1_Pooling" / "config.json").write_text(json.dumps(config))
    return model


def test_the_bundled_model_is_mean_pooled_and_supported() -> None:
    assert onnx_supported(default_model_path())


def test_other_poolings_and_missing_models_stay_on_torch(tmp_path: Path) -> None:
    cls_pooled = _model_dir_with_pooling(tmp_path, cls_token=True, mean_tokens=False)
    assert not onnx_supported(cls_pooled)
    assert not onnx_supported(tmp_path / "nowhere")
    assert MiniLMEmbeddings(model_path=cls_pooled).resolved_runtime() == "torch"
    with pytest.raises(ModelLoadError, match='use runtime="torch"'):
        MiniLMEmbeddings(model_path=cls_pooled, runtime="onnx-int8").resolved_runtime()


def test_extra_modules_stay_on_torch(tmp_path: Path) -> None:
    model = _model_dir_with_pooling(tmp_path)
    modules = json.loads((model / "modules.json").read_text())
    modules.append({"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"})
    (model / "modules.json").write_text(json.dumps(modules))
    assert not onnx_supported(model)


def test_auto_takes_onnx_on_the_cpu_only() -> None:
    assert MiniLMEmbeddings().resolved_runtime() == "onnx-int8"
    assert MiniLMEmbeddings(runtime="torch").resolved_runtime() == "torch"
    assert MiniLMEmbeddings(device="cuda").resolved_runtime() == "torch"
    with pytest.raises(ModelLoadError, match='needs device="cpu"'):
        MiniLMEmbeddings(device="cuda", runtime="onnx-int8").resolved_runtime()


@pytest.mark.parametrize(("env", "expected"), [("1", 1), ("", 2), ("0", 2), ("lots", 2), ("64", 2)])
def test_one_worker_per_usable_core(monkeypatch: pytest.MonkeyPatch, env: str, expected: int) -> None:
    monkeypatch.setattr(onnx_encoder.os, "sched_getaffinity", lambda _pid: {0, 1})
    monkeypatch.setenv("OMP_NUM_THREADS", env)
    assert onnx_encoder.worker_count() == expected


def test_a_failed_build_leaves_nothing_behind(onnx_caches: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_export(model_dir: Path, target: Path, precision: str) -> None:
        target.write_bytes(b"half a model")
        raise RuntimeError("exporter crashed")

    monkeypatch.setattr(onnx_encoder, "_export", broken_export)
    with pytest.raises(ModelLoadError, match=r"Could not build the int8 ONNX model .*exporter crashed"):
        onnx_model_file(default_model_path())
    assert not any(onnx_caches[0].parent.rglob("*.onnx"))
    assert [p.name for p in onnx_caches[0].iterdir()] == [], "no temporary build folder is left"


def test_a_read_only_environment_builds_in_the_users_cache(onnx_caches: list[Path],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[Path] = []

    def fake_export(model_dir: Path, target: Path, precision: str) -> None:
        if onnx_caches[0].parent in target.parents:
            raise PermissionError("read-only")
        target.write_bytes(b"model")
        built.append(target)

    monkeypatch.setattr(onnx_encoder, "_export", fake_export)
    first = onnx_model_file(default_model_path())
    assert onnx_caches[1] in first.parents and first.read_bytes() == b"model"
    assert onnx_model_file(default_model_path()) == first
    assert len(built) == 1, "a cached file is not rebuilt"
    fp32 = onnx_model_file(default_model_path(), "fp32")
    assert fp32 != first and fp32.name == "model-fp32.onnx" and len(built) == 2, "each precision has its own file"


def test_the_cache_key_follows_the_weights(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, weights in ((a, b"one"), (b, b"two")):
        folder.mkdir()
        (folder / "config.json").write_text("{}")
        (folder / "model.safetensors").write_bytes(weights)
    assert onnx_encoder._weights_digest(a) != onnx_encoder._weights_digest(b)
    (b / "model.safetensors").write_bytes(b"one")
    assert onnx_encoder._weights_digest(a) == onnx_encoder._weights_digest(b)


@pytest.mark.slow
def test_int8_vectors_match_fp32_in_the_callers_order(minilm: MiniLMEmbeddings) -> None:
    texts = [
        "The Mona Lisa is a half-length portrait painting by Leonardo da Vinci.",
        "Tea",
        "Green tea is made from leaves that have not undergone oxidation; it originated in China "
        "and its production and manufacture has spread to other countries in East Asia.",
        "Jupiter is the fifth planet from the Sun and the largest in the Solar System.",
        "Ottawa is the capital city of Canada.",
    ]
    assert minilm.resolved_runtime() == "onnx-int8"
    int8 = np.array(minilm.embed_documents(texts))
    fp32 = np.array(MiniLMEmbeddings(runtime="torch").embed_documents(texts))
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)
    cosines = (int8 * fp32).sum(axis=1)
    assert cosines.min() > 0.97, cosines
    # Batches are formed by length, yet each vector comes back at its own text's place.
    one_by_one = np.array([minilm.embed_query(text) for text in texts])
    assert np.allclose(int8, one_by_one, atol=1e-4)
    # Retrieval is the same: each text's nearest neighbour under int8 is its fp32 self.
    assert ((int8 @ fp32.T).argmax(axis=1) == np.arange(len(texts))).all()


@pytest.mark.slow
def test_fp32_onnx_vectors_are_torchs_and_the_calibrated_judge_reads_them() -> None:
    from selfrag_langchain.judging import CalibratedReflector

    texts = ["Titan is the largest moon of Saturn.", "Tea", "Which planet does the moon Titan orbit?",
             "Ottawa is the capital city of Canada, on the Ottawa River in the south of the province of Ontario."]
    fp32 = MiniLMEmbeddings(runtime="onnx-fp32")
    assert fp32.resolved_runtime() == "onnx-fp32" and fp32.transformer() is None
    torch_vectors = np.array(MiniLMEmbeddings(runtime="torch").embed_documents(texts))
    assert np.abs(np.array(fp32.embed_documents(texts)) - torch_vectors).max() < 1e-5
    assert np.abs(np.array(fp32.embed_query(texts[0])) - torch_vectors[0]).max() < 1e-5
    judge = CalibratedReflector()
    assert judge.signals.embeddings.resolved_runtime() == "onnx-fp32"  # type: ignore[attr-defined]
    with pytest.raises(ModelLoadError, match='runtime="onnx-fp32" needs device="cpu"'):
        MiniLMEmbeddings(device="cuda", runtime="onnx-fp32").resolved_runtime()
