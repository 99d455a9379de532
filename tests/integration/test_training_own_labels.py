"""The worked example of docs/training.md: a judge fitted on a user's own plain CSV rows, checked on their
held-out rows, and plugged into Self-RAG (real MiniLM embeddings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain import SelfRAG
from selfrag_langchain.cli import main
from selfrag_langchain.judging import CalibratedReflector, CriticQuery
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.tokens import Group

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "data"


def _table(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, dict[str, object]]:
    assert main(argv) == 0
    capsys.readouterr()
    return json.loads(Path(argv[argv.index("--out") + 1]).read_text())["tasks"]


def test_a_judge_fitted_on_own_rows_reads_held_out_rows_better_than_the_shipped_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    judge = tmp_path / "my_judge.json"
    assert main(["train", "judge", "--data", str(EXAMPLE / "my_labels.csv"), "--out", str(judge)]) == 0
    fitted = json.loads(judge.read_text())
    assert set(fitted["provenance"]["groups"]) == {"Retrieve", "IsRel", "IsSup", "IsUse"}
    heldout = str(EXAMPLE / "my_heldout.csv")
    mine = _table(capsys, ["train", "critic-eval", "--calibration", str(judge), "--data", heldout,
                           "--out", str(tmp_path / "mine.json")])
    shipped = _table(capsys, ["train", "critic-eval", "--data", heldout, "--out", str(tmp_path / "shipped.json")])
    # Supported, contradicted and partly supported answers about passages it has not seen: the user's labels
    # teach what the shipped judge (GPT-4's labels of long answers) does not tell apart.
    assert mine["groundedness"]["model"]["balanced_accuracy"] > shipped["groundedness"]["model"]["balanced_accuracy"]
    assert mine["groundedness"]["model"]["balanced_accuracy"] > mine["groundedness"]["majority"]["balanced_accuracy"]
    assert mine["relevance"]["model"]["balanced_accuracy"] >= 0.75

    reflector = CalibratedReflector(str(judge))
    rag = SelfRAG(generator=TransformersLLM(), reflector=reflector)  # the model loads on first use
    assert rag.reflector is reflector
    right, wrong = reflector.judge([
        CriticQuery(Group.ISSUP, "Which sea does the Nile flow into?", evidence="Nile\nThe Nile flows into the "
                    "Mediterranean Sea.", output="The Nile flows into the Mediterranean Sea."),
        CriticQuery(Group.ISSUP, "Which sea does the Nile flow into?", evidence="Nile\nThe Nile flows into the "
                    "Mediterranean Sea.", output="The Nile flows into the Red Sea."),
    ])
    assert right["[Fully supported]"] > wrong["[Fully supported]"]
