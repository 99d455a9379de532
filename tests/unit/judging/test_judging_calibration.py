"""Calibrations: the logistic maps from signals to group distributions, on hand-computed values."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.judging.calibrated import GroupCalibration, JudgeCalibration
from selfrag_langchain.judging.features import GROUP_FEATURES
from selfrag_langchain.tokens import (
    FULLY_SUPPORTED,
    IRRELEVANT,
    NO_RETRIEVAL,
    NO_SUPPORT,
    PARTIALLY_SUPPORTED,
    RELEVANT,
    RETRIEVAL,
    UTILITY,
    Group,
)


def _binary() -> GroupCalibration:
    # scikit-learn's binary layout: one row, scoring classes[1] against classes[0].
    return GroupCalibration(Group.ISREL, ("a",), (IRRELEVANT, RELEVANT), (1.0,), (2.0,), ((2.0,),), (0.5,))


def test_binary_calibration_is_a_sigmoid_of_the_standardised_signal() -> None:
    dist = _binary().distribution({"a": 3.0})  # z = (3 - 1) / 2 = 1, logit = 2 * 1 + 0.5
    assert dist[RELEVANT] == pytest.approx(1 / (1 + math.exp(-2.5)))
    assert dist[IRRELEVANT] == pytest.approx(1 - dist[RELEVANT])


def test_multiclass_calibration_is_a_softmax_and_unseen_tokens_get_zero() -> None:
    cal = GroupCalibration(Group.ISUSE, ("a", "b"), (UTILITY[0], UTILITY[3], UTILITY[4]), (0.0, 0.0), (1.0, 1.0),
                           ((1.0, 0.0), (0.0, 1.0), (0.0, 0.0)), (0.0, 0.0, 1.0))
    dist = cal.distribution({"a": 1.0, "b": 2.0})  # logits 1, 2, 1
    total = 2 * math.e + math.e**2
    assert dist[UTILITY[0]] == pytest.approx(math.e / total)
    assert dist[UTILITY[3]] == pytest.approx(math.e**2 / total)
    assert dist[UTILITY[4]] == pytest.approx(math.e / total)
    assert dist[UTILITY[1]] == dist[UTILITY[2]] == 0.0
    assert sum(dist.values()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"mean": (0.0, 0.0)}, "one per feature"),
        ({"coef": ((1.0,), (2.0,))}, "2 classes need 1 coef rows"),
        ({"classes": (RELEVANT, FULLY_SUPPORTED)}, "is not a IsRel token"),
    ],
)
def test_inconsistent_calibrations_are_refused(kwargs: dict, match: str) -> None:
    fields = {"group": Group.ISREL, "features": ("a",), "classes": (IRRELEVANT, RELEVANT), "mean": (0.0,),
              "scale": (1.0,), "coef": ((1.0,),), "intercept": (0.0,), **kwargs}
    with pytest.raises(ConfigurationError, match=match):
        GroupCalibration(**fields)


def test_a_missing_signal_is_named() -> None:
    with pytest.raises(ConfigurationError, match="needs the signal"):
        _binary().distribution({"b": 1.0})


def test_the_shipped_calibration_covers_every_group_with_the_reflector_signals() -> None:
    shipped = JudgeCalibration.load()
    assert shipped.embeddings == "all-MiniLM-L6-v2"
    for group, features in GROUP_FEATURES.items():
        assert shipped[group].features == features
    assert len(shipped[Group.RETRIEVE].features) == 384  # the MiniLM embedding of the instruction
    assert set(shipped[Group.RETRIEVE].classes) == {RETRIEVAL, NO_RETRIEVAL}
    assert set(shipped[Group.ISSUP].classes) == {FULLY_SUPPORTED, PARTIALLY_SUPPORTED, NO_SUPPORT}
    (name,) = shipped.provenance["data"]  # fitted on Self-RAG's critic_train.jsonl alone, its SHA-256 recorded
    assert name == "critic_train.jsonl" and len(shipped.provenance["data"][name]) == 64
    assert shipped.provenance["seed"] == 0 and "scikit-learn" in shipped.provenance["libraries"]


def test_round_trip_through_json(tmp_path: Path) -> None:
    shipped = JudgeCalibration.load()
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(shipped.to_dict()))
    again = JudgeCalibration.load(path)
    signals = {f: 0.3 for f in GROUP_FEATURES[Group.ISSUP]}
    assert again[Group.ISSUP].distribution(signals) == pytest.approx(shipped[Group.ISSUP].distribution(signals))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("not json", "cannot read the judge calibration"),
        ('{"format": 1}', "is not a judge calibration"),
        ('{"format": 99, "groups": {}}', "format 99 is not 1"),
    ],
)
def test_bad_calibration_files_give_one_line(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "judge.json"
    path.write_text(text)
    with pytest.raises(ConfigurationError, match=match):
        JudgeCalibration.load(path)


def test_a_missing_calibration_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"nothing\.json"):
        JudgeCalibration.load(tmp_path / "nothing.json")
