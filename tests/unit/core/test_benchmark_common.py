"""What the benchmark scripts share (benchmarks/common.py): the JSON Lines reader and the --k and --max-new-tokens
flags, whose defaults are the library's unless a script gives its own."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

from selfrag_langchain.chains.controls import BeamSettings, LoopSettings

BENCHMARKS = str(Path(__file__).parents[3] / "benchmarks")
sys.path.insert(0, BENCHMARKS)  # the scripts import common as a sibling module; only for this import
try:
    import common
finally:
    sys.path.remove(BENCHMARKS)

LIBRARY_K = LoopSettings.model_fields["k"].default
LIBRARY_TOKENS = LoopSettings.model_fields["max_new_tokens"].default


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def _help(parser: argparse.ArgumentParser) -> str:
    return " ".join(parser.format_help().split())


def test_read_jsonl_reads_every_row_in_order(tmp_path: Path) -> None:
    path = _file(tmp_path, '{"question": "a", "answers": ["x"]}\n{"question": "b"}\n[1, 2]\n')
    assert common.read_jsonl(path) == [{"question": "a", "answers": ["x"]}, {"question": "b"}, [1, 2]]
    assert common.read_jsonl(str(path)) == common.read_jsonl(path)


def test_read_jsonl_skips_blank_lines(tmp_path: Path) -> None:
    path = _file(tmp_path, '{"n": 1}\n\n   \n{"n": 2}\n\n')
    assert common.read_jsonl(path) == [{"n": 1}, {"n": 2}]


def test_read_jsonl_limit_keeps_the_first_rows_and_reads_no_further(tmp_path: Path) -> None:
    path = _file(tmp_path, '{"n": 1}\n\n{"n": 2}\n{"n": 3}\nnot json\n')
    assert common.read_jsonl(path, limit=2) == [{"n": 1}, {"n": 2}]
    assert common.read_jsonl(path, limit=0) == []
    assert common.read_jsonl(path, limit=3) == [{"n": 1}, {"n": 2}, {"n": 3}]  # the bad line is past the limit


def test_read_jsonl_names_the_file_and_line_of_a_line_that_is_not_json(tmp_path: Path) -> None:
    path = _file(tmp_path, '{"n": 1}\n\n{"n": 2,\n{"n": 3}\n')
    with pytest.raises(SystemExit) as raised:
        common.read_jsonl(path)
    message = str(raised.value.code)
    assert str(path) in message
    assert "line 3" in message
    assert "not JSON" in message
    assert "\n" not in message


def test_read_jsonl_names_a_file_it_cannot_read_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(SystemExit) as raised:
        common.read_jsonl(missing)
    assert str(raised.value) == f"{missing}: cannot be read (No such file or directory)"


def test_flags_default_to_the_library_and_say_so() -> None:
    parser = argparse.ArgumentParser()
    common.add_k(parser)
    common.add_max_new_tokens(parser)
    args = parser.parse_args([])
    assert (args.k, args.max_new_tokens) == (LIBRARY_K, LIBRARY_TOKENS)
    text = _help(parser)
    assert f"(default: {LIBRARY_K}; the library's)" in text
    assert f"(default: {LIBRARY_TOKENS}; the library's)" in text
    assert parser.parse_args(["--k", "3", "--max-new-tokens", "7"]) == argparse.Namespace(k=3, max_new_tokens=7)


@pytest.mark.parametrize(("value", "said"), [("0", "k must be >= 1, got 0"), ("21", "k must be at most 20"),
                                           ("x", "not a whole number: 'x'")])
def test_a_flag_out_of_the_librarys_range_stops_with_one_usage_line(
        value: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="script.py")
    common.add_k(parser)
    with pytest.raises(SystemExit) as stopped:
        parser.parse_args(["--k", value])
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"script.py: error: argument --k: {said}")


def test_later_k_takes_none_where_the_library_does_and_k_does_not(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="script.py")
    common.add_k(parser)
    common.add_later_k(parser)
    assert parser.parse_args([]).later_k == BeamSettings().later_k
    assert parser.parse_args(["--later-k", "none"]).later_k is None
    assert parser.parse_args(["--later-k", "3"]).later_k == 3
    for flag, value, said in [("--later-k", "0", "later_k must be >= 1, got 0"),
                              ("--k", "none", "not a whole number: 'none'")]:
        with pytest.raises(SystemExit):
            parser.parse_args([flag, value])
        assert capsys.readouterr().err.strip().splitlines()[-1] == f"script.py: error: argument {flag}: {said}"


def test_a_script_default_of_its_own_is_kept_and_named_beside_the_library() -> None:
    parser = argparse.ArgumentParser()
    common.add_k(parser, default=LIBRARY_K + 1, help="more passages, for a reason")
    common.add_max_new_tokens(parser, default=LIBRARY_TOKENS - 1, help="fewer tokens, for a reason")
    args = parser.parse_args([])
    assert (args.k, args.max_new_tokens) == (LIBRARY_K + 1, LIBRARY_TOKENS - 1)
    text = _help(parser)
    assert f"more passages, for a reason (default: {LIBRARY_K + 1}; the library's: {LIBRARY_K})" in text
    assert f"fewer tokens, for a reason (default: {LIBRARY_TOKENS - 1}; the library's: {LIBRARY_TOKENS})" in text


def test_wilson_interval() -> None:
    assert common.wilson(0, 0) == (0.0, 0.0)
    low, high = common.wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)
