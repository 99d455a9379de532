"""Fitting the calibrated judge on labelled critic rows (embeddings faked; the fit is real scikit-learn)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from selfrag_langchain.errors import InputError
from selfrag_langchain.judging import CalibratedReflector, JudgeCalibration
from selfrag_langchain.judging.features import SignalReader
from selfrag_langchain.prompts import critic_input
from selfrag_langchain.tokens import FULLY_SUPPORTED, IRRELEVANT, NO_RETRIEVAL, NO_SUPPORT, RELEVANT, RETRIEVAL, UTILITY
from selfrag_langchain.trainer.config import CriticEvalConfig, JudgeConfig
from selfrag_langchain.trainer.critic_eval import evaluate
from selfrag_langchain.trainer.critic_rows import capped, read_critic_rows
from selfrag_langchain.trainer.judge import class_weight_options, fit_judge
from tests.fakes.bag_of_words import BagOfWords

NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Marie Curie", "Niels Bohr", "Emmy Noether",
         "Carl Gauss", "Rosalind Franklin", "Enrico Fermi", "Lise Meitner", "Paul Dirac", "Max Planck"]
FIELDS = ["mathematics", "computing", "navy", "chemistry", "physics", "algebra", "geometry", "biology",
          "reactors", "fission", "quantum", "radiation"]


def _row(task: str, label: str, instruction: str, **fields: str) -> dict[str, str]:
    return {"instruction": f"judge {task}", "input": critic_input(instruction, **fields), "output": label,
            "task": task}


def _rows() -> list[dict[str, str]]:
    rows = []
    for i, (name, field) in enumerate(zip(NAMES, FIELDS, strict=True)):
        other, other_field = NAMES[(i + 5) % len(NAMES)], FIELDS[(i + 5) % len(FIELDS)]
        question = f"What did {name} work on?"
        rows += [
            _row("retrieval", RETRIEVAL, f"Who was {name} and what did she discover"),
            _row("retrieval", NO_RETRIEVAL, f"Translate to French: good morning number {i}"),
            _row("relevance", RELEVANT, question, evidence=f"{name}\n{name} worked on {field}."),
            _row("relevance", IRRELEVANT, question, evidence=f"{other}\n{other} worked on {other_field}."),
            _row("groundedness", FULLY_SUPPORTED, question, output=f"{name} worked on {field}.",
                 evidence=f"{name}\n{name} worked on {field} for years."),
            _row("groundedness", NO_SUPPORT, question, output=f"{name} worked on {other_field}.",
                 evidence=f"{name}\nA life in {field} and teaching."),
            _row("utility", UTILITY[4], question, output=f"{name} worked on {field} and {other_field}."),
            _row("utility", UTILITY[0], question, output=f"What did {name} work on?"),
        ]
    return rows


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_fit_writes_a_calibration_that_judges_its_training_rows(tmp_path: Path) -> None:
    data = _write(tmp_path / "critic_train.jsonl", _rows())
    out = tmp_path / "judge.json"
    fitted = fit_judge(JudgeConfig(data=str(data), out=str(out), folds=3), reader=SignalReader(BagOfWords()))

    loaded = JudgeCalibration.load(out)
    assert loaded.to_dict() == fitted.to_dict()
    assert fitted.provenance["data"] == {"critic_train.jsonl": hashlib.sha256(data.read_bytes()).hexdigest()}
    assert fitted.provenance["groups"]["IsRel"]["rows"] == len(NAMES) * 2
    judge = CalibratedReflector(loaded, embeddings=BagOfWords())
    evaluation = evaluate(CriticEvalConfig(data=str(data)), judge, progress=False)
    for report in evaluation.reports:
        assert report.model.accuracy >= 0.9, report.task


def test_a_group_without_two_labels_cannot_be_fitted(tmp_path: Path) -> None:
    rows = [r for r in _rows() if not (r["task"] == "relevance" and r["output"] == IRRELEVANT)]
    data = _write(tmp_path / "critic_train.jsonl", rows)
    with pytest.raises(InputError, match="at least two IsRel labels"):
        fit_judge(JudgeConfig(data=str(data), out=str(tmp_path / "judge.json")), reader=SignalReader(BagOfWords()))
    assert not (tmp_path / "judge.json").exists()


def test_class_weight_options_include_square_root_balancing() -> None:
    none, balanced, root = class_weight_options(["a"] * 9 + ["b"])
    assert none is None and balanced == "balanced"
    assert root == {"a": 1.0, "b": pytest.approx(3.0)}


def test_several_files_are_fitted_together_and_capped_per_label(tmp_path: Path) -> None:
    rows = _rows()
    first = _write(tmp_path / "a.jsonl", rows[: len(rows) // 2])
    second = _write(tmp_path / "b.jsonl", rows[len(rows) // 2:])
    fitted = fit_judge(JudgeConfig(data=[str(first), str(second)], out=str(tmp_path / "judge.json"), folds=2,
                                   per_label=4), reader=SignalReader(BagOfWords()))
    assert set(fitted.provenance["data"]) == {"a.jsonl", "b.jsonl"}
    assert fitted.provenance["groups"]["IsRel"]["labels"] == {RELEVANT: 4, IRRELEVANT: 4}


def test_the_cap_draws_the_same_rows_for_the_same_seed_and_keeps_their_order(tmp_path: Path) -> None:
    rows = read_critic_rows(_write(tmp_path / "a.jsonl", _rows()))
    kept = capped(rows, 3, seed=7)
    assert kept == capped(rows, 3, seed=7)
    assert [rows.index(r) for r in kept] == sorted(rows.index(r) for r in kept)
    assert all(sum(1 for r in kept if (r.task, r.output) == key) <= 3 for key in {(r.task, r.output) for r in rows})
    assert capped(rows, None, seed=7) == rows
