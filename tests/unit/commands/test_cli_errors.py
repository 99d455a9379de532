"""User mistakes on the command line: argparse's usage and one line naming the mistake, exit 2, before any
model loads."""

from __future__ import annotations

from typing import Any

import pytest

from selfrag_langchain.cli import build_parser, main
from selfrag_langchain.commands import ask as ask_command
from selfrag_langchain.commands.options import settings_from_args


@pytest.mark.parametrize(
    ("argv", "unknown"),
    [(["--frobnicate"], "--frobnicate"), (["--frobnicate", "ask", "Q"], "--frobnicate"),
     (["ask", "Q", "--frobnicate", "3"], "--frobnicate 3"), (["index", "x.txt", "--no-such-flag"], "--no-such-flag")],
)
def test_an_unknown_flag_is_named(argv: list[str], unknown: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: selfrag ")
    assert err.splitlines()[-1] == f"selfrag: error: unrecognized arguments: {unknown}"
    assert "required" not in err


def test_a_missing_command_is_still_reported(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == "selfrag: error: the following arguments are required: command"


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ask`` fails the test if it builds a pipeline: a user mistake must stop before any model loads."""
    def refuse(args: Any) -> None:
        raise AssertionError("no model may load for a user mistake")

    monkeypatch.setattr(ask_command, "build_selfrag", refuse)


@pytest.mark.parametrize(
    ("flags", "message"),
    [(["--w-sup", "-100"], "--w-sup must be between 0 and 10, got -100"),
     (["--w-rel", "10.5"], "--w-rel must be between 0 and 10, got 10.5"),
     (["--w-use", "-0.1"], "--w-use must be between 0 and 10, got -0.1"),
     (["--w-use", "inf"], "--w-use must be a finite number, got inf")],
)
@pytest.mark.usefixtures("no_model")
def test_a_weight_outside_its_range_is_refused_in_one_line(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "Who?", *flags]) == 2
    assert capsys.readouterr().err == f"selfrag: error: {message}\n"


@pytest.mark.parametrize("flags", [["--w-sup", "0"], ["--w-rel", "10"], ["--w-use", "0.5"]])
def test_weights_at_the_ends_of_the_range_pass(flags: list[str]) -> None:
    settings = settings_from_args(build_parser().parse_args(["ask", "Who?", *flags]))
    field = flags[0].removeprefix("--").replace("-", "_")
    assert getattr(settings, field) == float(flags[1])


@pytest.mark.parametrize(("flags", "named"), [
    (["--critic", "./critic"], "--critic names"),
    (["--reflector", "learned", "--critic-backend", "transformers"], "--critic-backend names"),
    (["--reflector", "inline", "--critic", "./critic", "--critic-backend", "transformers"],
     "--critic and --critic-backend name"),
])
@pytest.mark.usefixtures("no_model")
def test_a_critic_the_judge_would_not_read_is_refused_in_one_line(
    flags: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "Who?", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"selfrag: error: {named} the critic of --reflector critic") and err.count("\n") == 1
    assert "add --reflector critic" in err


@pytest.mark.usefixtures("no_model")
def test_a_reader_the_judge_would_not_read_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "Who?", "--reader", "./reader", "--no-quote-reader"]) == 2
    err = capsys.readouterr().err
    assert err == ("selfrag: error: --reader names the sentence reader of --reflector entailment and of quoting "
                   "with --quote-reader, and neither is on here: add --reflector entailment or --quote-reader to "
                   "read with it\n")


@pytest.mark.usefixtures("no_model")
def test_an_answer_finder_no_quote_reads_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "Who?", "--answer-finder", "./finder", "--no-quote-reader"]) == 2
    err = capsys.readouterr().err
    assert err == ("selfrag: error: --answer-finder reads the quotes of --quote-reader, which is off here: add "
                   "--quote-reader to read with it\n")


@pytest.mark.usefixtures("no_model")
def test_reading_alone_without_the_quote_reader_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "Who?", "--quote-read-alone", "--no-quote-reader"]) == 2
    err = capsys.readouterr().err
    assert err == ("selfrag: error: --quote-read-alone changes how --quote-reader reads, which is off here: add "
                   "--quote-reader to read with it\n")


def test_a_critic_named_with_the_critic_judge_passes() -> None:
    from selfrag_langchain.commands.options import run_settings

    settings = run_settings(build_parser().parse_args(["ask", "Who?", "--reflector", "critic", "--critic", "./c",
                                                       "--mode", "never"]))
    assert settings.reflector == "critic" and settings.critic == "./c"
