"""The judge users expect by default: ``relevance="auto"`` (CLI ``--relevance auto``) picks the question-likelihood
relevance for an instruct critic asked zero-shot and the labels for a trained critic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.language_models.fake import FakeListLLM

from selfrag_langchain.cli import build_parser
from selfrag_langchain.commands.options import settings_from_args
from selfrag_langchain.judging import CriticReflector
from selfrag_langchain.pipeline import PipelineSettings, build_reflector


@pytest.mark.parametrize(("flags", "expected"), [
    ([], "question_likelihood"),
    (["--critic-prompts", "paper"], "labels"),
    (["--relevance", "labels"], "labels"),
    (["--critic-prompts", "paper", "--relevance", "question_likelihood"], "question_likelihood"),
])
def test_relevance_auto_follows_the_critic_prompts(flags: list[str], expected: str) -> None:
    args = build_parser().parse_args(["ask", "Who?", "--reflector", "critic", *flags])
    assert args.relevance == ("auto" if "--relevance" not in flags else expected)
    settings = settings_from_args(args)
    reflector = build_reflector(settings, FakeListLLM(responses=["x"]))
    assert isinstance(reflector, CriticReflector) and reflector.relevance == expected
    assert settings.resolved_relevance == expected  # what eval records in its settings


def test_the_default_judge_is_the_calibrated_one_and_takes_a_calibration_file(tmp_path: Path) -> None:
    from selfrag_langchain.judging import CalibratedReflector, JudgeCalibration

    args = settings_from_args(build_parser().parse_args(["ask", "Who?"]))
    reflector = build_reflector(args, FakeListLLM(responses=["x"]))
    assert isinstance(reflector, CalibratedReflector) and reflector.name == "calibrated"
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(JudgeCalibration.load().to_dict()))
    args = settings_from_args(build_parser().parse_args(["ask", "Who?", "--judge", str(path)]))
    judge = build_reflector(args, FakeListLLM(responses=["x"]))
    assert judge.calibration.to_dict() == JudgeCalibration.load().to_dict()


def test_explicit_values_pass_through() -> None:
    assert PipelineSettings(relevance="labels", critic_prompts="zero_shot").resolved_relevance == "labels"
    assert PipelineSettings(relevance="question_likelihood",
                            critic_prompts="paper").resolved_relevance == "question_likelihood"


def test_the_python_default_is_the_same_rule() -> None:
    from selfrag_langchain.errors import ConfigurationError

    llm = FakeListLLM(responses=["x"])
    assert CriticReflector(llm).relevance == "question_likelihood"
    assert CriticReflector(llm, prompts="paper").relevance == "labels"
    assert CriticReflector(llm, relevance="labels").relevance == "labels"
    with pytest.raises(ConfigurationError, match="auto, labels or question_likelihood"):
        CriticReflector(llm, relevance="pmi")  # type: ignore[arg-type]


def test_the_calibration_flag_and_setting_keep_their_former_name(tmp_path: Path) -> None:
    """--calibration names the calibration file; --judge, its former name, and the setting ``judge`` still
    give the same settings for one release."""
    path = tmp_path / "judge.json"
    new = settings_from_args(build_parser().parse_args(["ask", "Who?", "--calibration", str(path)]))
    old = settings_from_args(build_parser().parse_args(["ask", "Who?", "--judge", str(path)]))
    assert new.calibration == old.calibration == path
    assert PipelineSettings(judge=path) == PipelineSettings(calibration=path) == new
    assert new.with_changes(mode="always").calibration == path


@pytest.mark.parametrize("command", [["ask", "Who?", "--long"], ["chat"], ["serve"]])
def test_a_setting_that_takes_none_is_set_to_none_by_its_flag(command: list[str]) -> None:
    defaults = settings_from_args(build_parser().parse_args(command))
    assert (defaults.later_k, defaults.writing_margin) == (2, 0.2)  # the library's, when no flag is given
    given = settings_from_args(build_parser().parse_args([*command, "--later-k", "None", "--writing-margin", "none"]))
    assert (given.later_k, given.writing_margin) == (None, None)
    given = settings_from_args(build_parser().parse_args([*command, "--later-k", "3", "--writing-margin", "0.5"]))
    assert (given.later_k, given.writing_margin) == (3, 0.5)


def test_none_is_refused_by_a_flag_whose_setting_takes_no_none(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["ask", "Who?", "--k", "none"])
    assert "invalid int value: 'none'" in capsys.readouterr().err
