"""Standard output carries a command's results and nothing else.

Libraries print on standard output while they load (DeepSpeed's "Setting accelerator to CPU" line, for
one), which would break ``selfrag ask --json | jq``. While a command runs, ``sys.stdout`` is standard
error, so whatever a library prints or logs there lands beside the progress messages; the command's own
answer, table or JSON goes through :func:`emit` to the real standard output.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

_results: TextIO | None = None


def results() -> TextIO:
    """The stream a command's results go to: the real standard output."""
    return _results if _results is not None else sys.stdout


def emit(*values: Any, sep: str = " ", end: str = "\n", flush: bool = False) -> None:
    """``print`` to the results stream."""
    print(*values, sep=sep, end=end, file=results(), flush=flush)


@contextmanager
def results_only() -> Iterator[None]:
    """Within: ``sys.stdout`` is standard error, and :func:`emit` writes to the standard output of before."""
    global _results
    saved_stdout, saved_results = sys.stdout, _results
    _results = saved_stdout
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout, _results = saved_stdout, saved_results


def ask_line(prompt: str) -> str:
    """``input(prompt)`` on the real standard output, so that a terminal keeps its line editing."""
    saved = sys.stdout
    sys.stdout = results()
    try:
        return input(prompt)
    finally:
        sys.stdout = saved
