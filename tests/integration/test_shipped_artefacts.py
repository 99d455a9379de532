"""The shipped calibrated and entailment judges are what their config files in trainer/configs reproduce from the
shared data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain.cli import main

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"


def _close(made: object, shipped: object) -> bool:
    if isinstance(made, dict) and isinstance(shipped, dict):
        return made.keys() == shipped.keys() and all(_close(made[k], shipped[k]) for k in made)
    if isinstance(made, list) and isinstance(shipped, list):
        return len(made) == len(shipped) and all(_close(a, b) for a, b in zip(made, shipped, strict=True))
    if isinstance(made, float) and isinstance(shipped, float):
        return abs(made - shipped) <= 1e-4 * max(1.0, abs(shipped))
    return made == shipped


@pytest.mark.skipif(not (DATA / "critic_train.jsonl").is_file(), reason="needs ../shared/data")
def test_the_judge_config_reproduces_the_shipped_calibration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the config names the data relative to the repository root
    out = tmp_path / "judge.json"
    assert main(["train", "judge", "--config", "trainer/configs/judge.yaml", "--out", str(out)]) == 0
    made = json.loads(out.read_text())
    shipped = json.loads((ROOT / "selfrag_langchain" / "judging" / "default_judge.json").read_text())
    assert _close(made["groups"], shipped["groups"])
    for key in ("groups", "data", "seed", "per_label"):
        assert made["provenance"][key] == shipped["provenance"][key], key
    assert made["provenance"]["seed"] == 0 and "scikit-learn" in made["provenance"]["libraries"]


@pytest.mark.skipif(not (DATA / "critic_train.jsonl").is_file(), reason="needs ../shared/data")
def test_the_entailment_judge_config_reproduces_the_shipped_calibration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the configs name the data relative to the repository root
    synthetic = tmp_path / "judge_synthetic.jsonl"
    assert main(["train", "judge-data", "--config", "trainer/configs/judge_data.yaml", "--out", str(synthetic)]) == 0
    config = (ROOT / "trainer" / "configs" / "entailment_judge.yaml").read_text()
    assert "selfrag-train/judge_synthetic.jsonl" in config
    (tmp_path / "config.yaml").write_text(config.replace("selfrag-train/judge_synthetic.jsonl", str(synthetic)))
    out = tmp_path / "entailment_judge.json"
    assert main(["train", "judge", "--config", str(tmp_path / "config.yaml"), "--out", str(out)]) == 0
    made = json.loads(out.read_text())
    shipped = json.loads((ROOT / "selfrag_langchain" / "judging" / "entailment_judge.json").read_text())
    assert _close(made["groups"], shipped["groups"])
    for key in ("groups", "data", "seed", "per_label", "reader"):
        assert made["provenance"][key] == shipped["provenance"][key], key
