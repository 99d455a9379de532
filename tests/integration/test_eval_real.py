"""`selfrag eval` end to end on the embedded default model (SmolLM2-135M as generator and critic) and two
real PopQA questions: the lines, the summary, and a sweep that re-decides from the same generations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from selfrag_langchain.cli import main
from selfrag_langchain.eval import session as eval_session
from selfrag_langchain.eval.metrics import match
from selfrag_langchain.llms.transformers import TransformersLLM

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "popqa_longtail_dev.jsonl"


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.skipif(not DATA.exists(), reason="needs ../shared/data")
def test_eval_and_sweep_on_two_popqa_questions(
    smollm2: TransformersLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(eval_session, "build_generator", lambda args: smollm2)  # loaded once per session
    out = tmp_path / "popqa"
    argv = ["eval", str(DATA), "--task", "popqa", "--limit", "2", "--k", "2", "--max-new-tokens", "6",
            "--out", str(out), "--no-progress"]
    assert main([*argv, "--methods", "selfrag,rag_top1"]) == 0

    records = read_lines(out / "selfrag.jsonl")
    assert len(records) == 2
    for r in records:
        decision = r["trace"]["retrieve_decision"]
        assert r["retrieve_probability"] == decision["probability"]
        assert 0.0 <= r["retrieve_probability"] <= 1.0
        assert r["retrieved"] == (r["retrieve_probability"] > 0.2)
        assert len(r["trace"]["branches"]) == (2 if r["retrieved"] else 1)
        assert r["correct"] == match(r["prediction"], r["gold"])
        assert r["prediction"] == r["trace"]["answer"]
    summary = json.loads((out / "selfrag.summary.json").read_text())
    assert summary["answered"] == 2 and summary["complete"]
    assert summary["accuracy"] == sum(r["score"] for r in records) / 2
    assert summary["settings"]["k"] == 2 and summary["settings"]["reflector"] == "calibrated"
    assert summary["settings"]["calibration"] == "shipped"
    lines = read_lines(out / "rag_top1.jsonl")
    assert [r["retrieved"] for r in lines] == [True, True]
    assert all(len(r["trace"]["passages"]) == 1 for r in lines)
    assert all(r["correct"] == match(r["prediction"], r["gold"]) for r in lines)

    assert main([*argv, "--sweep", "threshold", "--thresholds", "0,0.2,1"]) == 0
    sweep = json.loads((out / "sweep.summary.json").read_text())
    points = {p["value"]: p for p in sweep["sweeps"]["threshold"]["points"]}
    # Re-deciding at the run's own threshold gives back the run's answers.
    assert points[0.2]["accuracy"] == summary["accuracy"]
    assert points[0.2]["retrieval_frequency"] == summary["retrieval_frequency"]
    assert points[1.0]["retrieval_frequency"] == 0.0 and points[0.0]["retrieval_frequency"] == 1.0
    assert all(r["reused"] for r in read_lines(out / "sweep.jsonl"))
    assert (out / "sweep_threshold.png").stat().st_size > 1000
