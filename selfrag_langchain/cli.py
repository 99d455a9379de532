"""``selfrag``: index documents and ask questions from the terminal.

Examples:
    selfrag ask "Who painted the Mona Lisa?"          # embedded model, demo corpus (prepared on first run)
    selfrag ask "..." --json                          # the whole result with its trace
    selfrag index notes/ papers.jsonl --store ./store
    selfrag ask "..." --store ./store --mode always --k 3
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from selfrag_langchain.commands import ask, chat, index, serve, train
from selfrag_langchain.commands import eval as eval_command
from selfrag_langchain.commands.output import results, results_only
from selfrag_langchain.errors import SelfRAGError

COMMANDS = (index, ask, chat, serve, eval_command, train)
"""Command modules, in the order ``selfrag --help`` lists them."""


def build_parser(*, require_command: bool = True) -> argparse.ArgumentParser:
    """The ``selfrag`` parser; ``require_command=False`` leaves the check for a command to the caller."""
    parser = argparse.ArgumentParser(prog="selfrag", description="Self-RAG: retrieve on demand, critique, cite.")
    sub = parser.add_subparsers(dest="command", required=require_command)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def parse_command_line(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The parsed command line; a flag nobody knows is named before a missing command.

    argparse checks the required command before it reports unknown flags, so ``selfrag --frobnicate``
    would only say that a command is required. Here the command is optional while parsing, and both
    checks follow, unknown flags first (usage and one line, exit 2, as argparse does).
    """
    parser = build_parser(require_command=False)
    args, unknown = parser.parse_known_args(argv)
    if getattr(args, "options_parsed_later", False):  # a `selfrag train` step parses its own flags
        args.options = unknown
    elif unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.error("the following arguments are required: command")
    return args


def _quiet_libraries(*, progress_bars: bool = False) -> None:
    """The command line's output is its own: offline, no warnings, and no third-party progress bars (the
    "Loading weights" bars of transformers would land in the middle of answers); indexing shows its own.
    ``progress_bars`` keeps the libraries' bars, for ``selfrag train``, whose trainer shows its progress so."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    if not progress_bars:
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        # tqdm reads this when first imported: bars that libraries start with their defaults (transformers'
        # GGUF conversion) stay off; the indexing bar asks for itself explicitly.
        os.environ.setdefault("TQDM_DISABLE", "1")
    import warnings

    warnings.filterwarnings("ignore")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        if not progress_bars:
            hf_logging.disable_progress_bar()
    except ImportError:
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: user errors print one line and exit 2; an interrupt exits 130; a reader that closes the
    pipe early (``selfrag ask … | head -1``) ends it quietly with 141, as a shell reports SIGPIPE; stdout
    carries only the command's results."""
    args = parse_command_line(argv)
    _quiet_libraries(progress_bars=args.command == "train")
    try:
        with results_only():  # what libraries print goes to stderr; the command's results to stdout
            code = args.run(args)
            results().flush()  # a reader gone early is met here, not in Python's flush at exit
            return code
    except SelfRAGError as e:
        print(f"selfrag: error: {e}", file=sys.stderr)
        return 2
    except ValidationError as e:
        reasons = "; ".join(err["msg"].removeprefix("Value error, ") for err in e.errors())
        print(f"selfrag: error: {reasons}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("selfrag: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _drop_standard_output()
        return 141


def _drop_standard_output() -> None:
    """Point standard output at the null device, so that Python's flush at exit does not fail again on the
    closed pipe (the way the ``signal`` module's documentation gives for SIGPIPE)."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)


if __name__ == "__main__":
    sys.exit(main())
