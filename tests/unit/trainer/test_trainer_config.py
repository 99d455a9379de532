"""Configs as command lines: flags, YAML/JSON files, precedence, and one clear line for every mistake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfrag_langchain.cli import main
from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.trainer.arguments import parse_config
from selfrag_langchain.trainer.config import CONFIG_DIR
from selfrag_langchain.trainer.masks import Example
from selfrag_langchain.trainer.training import (
    RUN_FILE,
    TRAINER_STATE,
    _resume_point,
    _trim_log,
    latest_complete_checkpoint,
    resumable_checkpoint,
    run_definition,
)
from selfrag_langchain.trainer.training_config import CriticConfig, GeneratorConfig, TrainingConfig

DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data"


def _parse(cls: type, argv: list[str]) -> object:
    return parse_config(cls, argv)


def test_flags_become_the_config() -> None:
    config = _parse(CriticConfig, ["--data", "a.jsonl", "b.jsonl", "--out", "o", "--lora", "--per-group", "5",
                                   "--learning-rate", "1e-3", "--tasks", "relevance", "utility"])
    assert isinstance(config, CriticConfig)
    assert config.data == ["a.jsonl", "b.jsonl"] and config.lora and config.per_group == 5
    assert config.learning_rate == pytest.approx(1e-3)
    assert config.tasks == ["relevance", "utility"]
    assert config.num_train_epochs == 1.0 and config.gradient_accumulation_steps == 8  # the step's defaults stay
    assert config.lr_scheduler_type == "linear" and config.output_dir == str(Path("o") / "checkpoints")


def test_every_training_argument_is_a_flag_of_the_training_steps() -> None:
    config = _parse(GeneratorConfig, ["--data", "a.jsonl", "--out", "o", "--lr-scheduler-type", "cosine",
                                      "--optim", "adafactor", "--num_train_epochs", "2", "--use-cpu"])
    assert isinstance(config, GeneratorConfig)
    assert (config.lr_scheduler_type, config.optim, config.num_train_epochs) == ("cosine", "adafactor", 2.0)
    assert config.use_cpu and not config.bf16  # bf16 is on only where a GPU that supports it is used


def test_a_flag_mistake_is_one_line() -> None:
    with pytest.raises(ConfigurationError, match="unrecognized arguments: --no-such-flag"):
        _parse(CriticConfig, ["--data", "a.jsonl", "--out", "o", "--no-such-flag"])
    with pytest.raises(ConfigurationError, match="required: --out"):
        _parse(CriticConfig, ["--data", "a.jsonl"])


def test_file_then_flags(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("data: train.jsonl\nout: o\nlora: true\nlearning-rate: 2e-4\nepochs: 3\nmax_length: 256\n")
    config = _parse(GeneratorConfig, ["--config", str(path), "--epochs", "1"])
    assert isinstance(config, GeneratorConfig)
    assert config.data == ["train.jsonl"] and config.lora and config.max_length == 256
    assert config.learning_rate == pytest.approx(2e-4)  # YAML reads 2e-4 as a string: coerced
    assert config.num_train_epochs == 1.0  # the flag wins over the file (`epochs` is the field's former name)
    json_path = tmp_path / "c.json"
    json_path.write_text(json.dumps({"data": ["x.jsonl"], "out": "o", "no_such": 1}))
    with pytest.raises(ConfigurationError, match="unknown option 'no_such'"):
        _parse(GeneratorConfig, ["--config", str(json_path)])


@pytest.mark.parametrize(("content", "message"), [
    ("data: [a]\nout: o\nepochs: many\n", "option 'epochs' .* must be float"),
    ("- a\n- b\n", "must hold a mapping"),
    ("data: [a\n", "cannot be parsed"),
])
def test_bad_config_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(content)
    with pytest.raises(ConfigurationError, match=message):
        _parse(CriticConfig, ["--config", str(path)])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"max_length": 0}, "max_length must be >= 1"),
    ({"learning_rate": -1.0}, "learning_rate and token_learning_rate must be > 0"),
    ({"merge": True}, "merge applies only with lora"),
    ({"lora": True, "merge": True, "deepspeed": "zero3"}, "merge is not available under DeepSpeed"),
    ({"warmup_steps": -0.5}, "warmup_steps"),  # transformers' own check, as one line
])
def test_config_ranges(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        TrainingConfig(data=["d"], out="o", **kwargs)  # type: ignore[arg-type]


def test_deepspeed_presets_resolve_and_unknown_paths_fail() -> None:
    assert TrainingConfig(data=["d"], out="o", deepspeed="zero3").deepspeed.endswith("zero3.json")
    with pytest.raises(ConfigurationError, match=r"deepspeed config nope\.json not found"):
        TrainingConfig(data=["d"], out="o", deepspeed="nope.json")


def _checkpoint(root: Path, step: int, *, complete: bool = True) -> Path:
    path = root / "checkpoints" / f"checkpoint-{step}"
    path.mkdir(parents=True)
    if complete:
        (path / TRAINER_STATE).write_text(json.dumps({"global_step": step}))
    return path


def _same_run(root: Path, config: TrainingConfig, examples: list[Example] | None = None) -> None:
    """Record ``config`` as the run that wrote ``root``'s checkpoints, as a fresh start does."""
    (root / "checkpoints").mkdir(parents=True, exist_ok=True)
    (root / "checkpoints" / RUN_FILE).write_text(json.dumps(run_definition(config, examples or [])))


def test_leftover_checkpoints_need_resume(tmp_path: Path) -> None:
    _checkpoint(tmp_path, 3)
    with pytest.raises(ConfigurationError, match="pass --resume"):
        _resume_point(TrainingConfig(data=["d"], out=str(tmp_path)), [])
    resume = TrainingConfig(data=["d"], out=str(tmp_path), resume=True)
    _same_run(tmp_path, resume)
    assert _resume_point(resume, []) == str(tmp_path / "checkpoints" / "checkpoint-3")
    assert _resume_point(TrainingConfig(data=["d"], out=str(tmp_path / "new"), resume=True), []) is None


def test_a_fresh_start_records_its_run_and_a_re_run_of_it_resumes(tmp_path: Path) -> None:
    config = TrainingConfig(data=["d"], out=str(tmp_path), resume=True)
    examples = [Example([1, 2, 3], [-100, 2, 3])]
    assert _resume_point(config, examples) is None
    assert json.loads((tmp_path / "checkpoints" / RUN_FILE).read_text()) == run_definition(config, examples)
    _checkpoint(tmp_path, 4)
    assert _resume_point(config, examples) == str(tmp_path / "checkpoints" / "checkpoint-4")
    # Logging, placement and length do not define the run: a re-run that logs more often, or goes on for more
    # epochs, resumes it.
    chattier = TrainingConfig(data=["d"], out=str(tmp_path), resume=True, logging_steps=1, save_steps=2)
    assert _resume_point(chattier, examples) == str(tmp_path / "checkpoints" / "checkpoint-4")
    longer = TrainingConfig(data=["d"], out=str(tmp_path), resume=True, num_train_epochs=config.num_train_epochs + 1)
    assert _resume_point(longer, examples) == str(tmp_path / "checkpoints" / "checkpoint-4")


def test_checkpoints_of_a_run_with_other_arguments_or_data_are_not_resumed(tmp_path: Path) -> None:
    config = TrainingConfig(data=["d"], out=str(tmp_path), resume=True, learning_rate=1e-4)
    examples = [Example([1, 2, 3], [-100, 2, 3])]
    _same_run(tmp_path, config, examples)
    _checkpoint(tmp_path, 4)
    other_rate = TrainingConfig(data=["d"], out=str(tmp_path), resume=True, learning_rate=2e-4)
    with pytest.raises(ConfigurationError, match=r"are of another run \(learning_rate differs\): delete them"):
        _resume_point(other_rate, examples)
    with pytest.raises(ConfigurationError, match=r"\(the training data differs\)"):
        _resume_point(config, [Example([1, 2, 4], [-100, 2, 4])])
    both = TrainingConfig(data=["d"], out=str(tmp_path), resume=True, learning_rate=2e-4, lora=not config.lora)
    with pytest.raises(ConfigurationError, match=r"\(learning_rate, lora, the training data differ\)"):
        _resume_point(both, [])


def test_where_the_data_lies_does_not_define_the_run_but_how_many_processes_read_it_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = TrainingConfig(data=["d"], out=str(tmp_path), resume=True)
    _same_run(tmp_path, config)
    _checkpoint(tmp_path, 4)
    moved = TrainingConfig(data=["elsewhere/d"], out=str(tmp_path), resume=True)
    assert _resume_point(moved, []) == str(tmp_path / "checkpoints" / "checkpoint-4")
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(ConfigurationError, match=r"\(processes differs\)"):
        _resume_point(config, [])


def test_a_record_that_differs_only_by_a_missing_field_names_it(tmp_path: Path) -> None:
    config = TrainingConfig(data=["d"], out=str(tmp_path), resume=True)
    run = run_definition(config, [])
    older = {"arguments": {k: v for k, v in run["arguments"].items() if k != "lora"}, "data": run["data"]}
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / RUN_FILE).write_text(json.dumps(older))
    _checkpoint(tmp_path, 4)
    with pytest.raises(ConfigurationError, match=r"\(lora differs\)"):
        _resume_point(config, [])


def test_checkpoints_that_record_no_run_are_not_resumed(tmp_path: Path) -> None:
    _checkpoint(tmp_path, 4)
    with pytest.raises(ConfigurationError, match=f"record no run definition \\({RUN_FILE}\\)"):
        resumable_checkpoint(tmp_path / "checkpoints", run_definition(TrainingConfig(data=["d"], out="o"), []))
    (tmp_path / "checkpoints" / RUN_FILE).write_text('{"argu')  # torn
    with pytest.raises(ConfigurationError, match="record no run definition"):
        resumable_checkpoint(tmp_path / "checkpoints", run_definition(TrainingConfig(data=["d"], out="o"), []))


def test_a_checkpoint_torn_by_a_kill_is_skipped_for_the_last_complete_one(tmp_path: Path) -> None:
    _checkpoint(tmp_path, 2)
    _checkpoint(tmp_path, 10)
    _checkpoint(tmp_path, 12, complete=False)  # the run was killed while saving it
    (_checkpoint(tmp_path, 14, complete=False) / TRAINER_STATE).write_text('{"global_st')  # killed mid-write
    notes: list[str] = []
    config = TrainingConfig(data=["d"], out=str(tmp_path), resume=True)
    _same_run(tmp_path, config)
    got = _resume_point(config, [], notes)
    assert got == str(tmp_path / "checkpoints" / "checkpoint-10")  # by step number, not name order
    assert notes == [f"checkpoint-{n} is incomplete (the run stopped while saving it): skipped" for n in (14, 12)]
    # The judge encoder and the reader resume the same way, without the --resume guard (a re-run of the same
    # run continues).
    assert latest_complete_checkpoint(tmp_path / "checkpoints") == str(tmp_path / "checkpoints" / "checkpoint-10")
    assert latest_complete_checkpoint(tmp_path / "nothing-here") is None


def test_the_loss_log_keeps_only_the_steps_up_to_the_resumed_checkpoint(tmp_path: Path) -> None:
    log = tmp_path / "training_log.jsonl"
    log.write_text("".join(json.dumps({"step": s, "loss": 1.0 / s}) + "\n" for s in (1, 2, 3, 4)) + '{"step": 5, "lo')
    _trim_log(log, str(_checkpoint(tmp_path, 3)))
    assert [json.loads(line)["step"] for line in log.read_text().splitlines()] == [1, 2, 3]
    _trim_log(log, None)  # a fresh start: the steps of the earlier run would be logged again
    assert log.read_text() == ""


def _write(path: Path, rows: list[dict[str, str]] | str) -> Path:
    path.write_text(rows if isinstance(rows, str) else "".join(json.dumps(r) + "\n" for r in rows))
    return path


GOOD_ROW = {"instruction": "i", "input": "Task instruction: q", "output": "[Retrieval]", "task": "retrieval"}


@pytest.mark.parametrize(("argv", "message"), [
    (["critic", "--data", "{missing}", "--out", "{out}"],
     r":1: missing field 'output': a row is either in the released critic format \(instruction, input, output, task\) "
     r"or plain"),
    (["critic", "--data", "{empty}", "--out", "{out}"], "has no records"),
    (["critic", "--data", "{unknown_task}", "--out", "{out}"], r":1: unknown task 'isrel': choose from retrieval"),
    (["critic", "--data", "{bad_label}", "--out", "{out}"], r":1: label '\[Relevant\]' is not a Retrieve token"),
    (["critic", "--data", "{good}", "--out", "{out}", "--tasks", "isrel"], "invalid choice: 'isrel'"),
    (["critic", "--data", "{good}", "--out", "{out}", "--base", "/no/such/model"],
     "model path /no/such/model does not exist"),
    (["critic", "--data", "{good}"], "required: --out"),
    (["critic", "--data", "{nope}", "--out", "{out}"], "nope.jsonl does not exist"),
    (["generator", "--data", "{missing}", "--out", "{out}"], r":1: missing field 'output'"),
    (["generator", "--data", "{good}", "--out", "{out}", "--base", "./no-such-dir"],
     "model path no-such-dir does not exist"),
    (["critic-eval", "--data", "{good}", "--model", "/no/such/critic"], "model path /no/such/critic does not exist"),
    (["critic-data", "--input", "{empty}", "--out", "{out}", "--model", "m"], "has no records"),
    (["generator-data", "--input", "{missing}", "--out", "{out}"], r":1: missing field 'output'"),
])
def test_cli_bad_input_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             argv: list[str], message: str) -> None:
    files = {
        "missing": _write(tmp_path / "missing.jsonl", [{"instruction": "i", "input": "x"}]),
        "empty": _write(tmp_path / "empty.jsonl", ""),
        "unknown_task": _write(tmp_path / "t.jsonl", [{**GOOD_ROW, "task": "isrel"}]),
        "bad_label": _write(tmp_path / "l.jsonl", [{**GOOD_ROW, "output": "[Relevant]"}]),
        "good": _write(tmp_path / "good.jsonl", [{**GOOD_ROW, "output": "[Retrieval]"}]),
        "nope": tmp_path / "nope.jsonl",
        "out": tmp_path / "out",
    }
    code = main(["train", *(a.format(**files) for a in argv)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.count("\n") == 0 and "Traceback" not in err
    assert err.startswith("selfrag: error: ")
    import re

    assert re.search(message, err), err
    assert not (tmp_path / "out").exists()


def test_help_lists_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    for step in ("critic-data", "critic", "critic-eval", "generator-data", "generator"):
        assert step in out


@pytest.mark.parametrize(("ratio", "steps", "expected"), [(0.03, 100, 3), (0.1, 250, 25), (0.0, 100, 0)])
def test_the_warmup_ratio_becomes_that_share_of_the_steps(tmp_path: Path, ratio: float, steps: int,
                                                           expected: int) -> None:
    config = _parse(CriticConfig, ["--data", "d.jsonl", "--out", str(tmp_path), "--warmup-ratio", str(ratio)])
    assert isinstance(config, CriticConfig) and config.get_warmup_steps(steps) == expected


def test_a_flag_keeps_its_former_name() -> None:
    """critic-eval's --calibration was --judge: the old flag still fills the field for one release."""
    from selfrag_langchain.trainer.config import CriticEvalConfig

    for flag in ("--calibration", "--judge"):
        config = parse_config(CriticEvalConfig, ["--data", "d.jsonl", flag, "mine.json"])
        assert config.calibration == "mine.json"


@pytest.mark.parametrize(("name", "step"), [
    ("critic_smollm2", "critic"), ("generator_smollm2", "generator"), ("generator_pairs", "generator-pairs"),
    ("generator_data", "generator-data"), ("judge", "judge"), ("judge_data", "judge-data"),
    ("judge_encoder", "judge-encoder"), ("reader", "reader"), ("reader_answering", "reader"),
    ("entailment_judge", "judge"), ("answer_finder", "answer-finder"), ("answer_finder_lists", "answer-finder"),
])
def test_every_shipped_config_is_read_by_its_step(name: str, step: str) -> None:
    from selfrag_langchain.commands.train import config_class

    path = CONFIG_DIR / f"{name}.yaml"
    config = _parse(config_class(step), ["--config", str(path)])
    assert config.out.startswith("selfrag-train/"), "every shipped config writes under selfrag-train/"
