"""The command line's output is its own: no third-party progress bars in the middle of answers."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from selfrag_langchain import cli


def test_transformers_progress_bars_are_off_once_the_command_line_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    from transformers.utils import logging as hf_logging

    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "0")  # recorded, so the test leaves the environment as it was
    monkeypatch.delenv("HF_HUB_DISABLE_PROGRESS_BARS")
    hf_logging.enable_progress_bar()
    try:
        cli._quiet_libraries()
        assert not hf_logging.is_progress_bar_enabled()
        assert os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] == "1"
    finally:
        hf_logging.enable_progress_bar()


@pytest.mark.parametrize(("progress_bars", "library_bar"), [(False, False), (True, True)])
def test_library_tqdm_bars_are_off_and_the_indexing_bar_still_shows(progress_bars: bool, library_bar: bool) -> None:
    """tqdm takes its defaults from the environment when first imported, so this runs in a fresh process.
    ``selfrag train`` (``progress_bars=True``) keeps the trainer's bars."""
    script = (
        "import io\n"
        "from selfrag_langchain import cli\n"
        f"cli._quiet_libraries(progress_bars={progress_bars})\n"
        "from tqdm.auto import tqdm\n"
        "library, ours = io.StringIO(), io.StringIO()\n"
        "for _ in tqdm(range(3), file=library): pass\n"
        "for _ in tqdm(range(3), file=ours, disable=False): pass\n"
        "print(len(library.getvalue()) > 0, len(ours.getvalue()) > 0)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("TQDM_DISABLE", "HF_HUB_DISABLE_PROGRESS_BARS")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.split() == [str(library_bar), "True"]


def test_stdout_carries_only_the_commands_results(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A library that prints, or logs through a handler it makes on ``sys.stdout``, while the command
    runs (as DeepSpeed does when first imported) lands on stderr; ``--json`` stays one JSON document."""
    import json
    import logging

    from selfrag_langchain.commands import ask
    from selfrag_langchain.commands.output import emit

    def noisy_run(args: object) -> int:
        print("[WARNING] Setting accelerator to CPU")
        handler = logging.StreamHandler(sys.stdout)
        noisy = logging.getLogger("noisy-library")
        noisy.addHandler(handler)
        try:
            noisy.warning("a library's log line")
        finally:
            noisy.removeHandler(handler)
        emit(json.dumps({"answer": "Leonardo da Vinci"}))
        return 0

    monkeypatch.setattr(ask, "run", noisy_run)
    assert cli.main(["ask", "--json", "Who painted the Mona Lisa?"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"answer": "Leonardo da Vinci"}
    assert "Setting accelerator to CPU" in err and "a library's log line" in err
    assert sys.stdout is not sys.stderr  # restored once the command is done


@pytest.mark.parametrize("lines", [1, 10_000])
def test_a_reader_that_closes_the_pipe_early_ends_the_command_quietly(lines: int) -> None:
    """``selfrag ask … | head -1``: the closed pipe ends the command with 141 and nothing on stderr, not a
    BrokenPipeError traceback, whether it is met while the command writes (many lines) or only when its last
    buffered line is flushed (one line, standard output buffered)."""
    script = (
        "import os, sys, argparse\n"
        "from selfrag_langchain import cli\n"
        "from selfrag_langchain.commands.output import emit\n"
        "reader, writer = os.pipe()\n"
        "os.close(reader)\n"
        "os.dup2(writer, 1)\n"
        "def run(args):\n"
        f"    for _ in range({lines}):\n"
        "        emit('an answer line')\n"
        "    return 0\n"
        "cli.parse_command_line = lambda argv: argparse.Namespace(command='ask', run=run)\n"
        "sys.exit(cli.main([]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert (done.returncode, done.stderr) == (141, "")
