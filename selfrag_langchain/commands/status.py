"""One status line on the terminal while a question is answered: which step runs now.

The Runnables report each step as a child run (``SelfRAG``'s ``STAGES``, the long form's, the chat's
question rewrite); this callback handler turns their starts into a single line on stderr, rewritten in
place and cleared before the answer is printed, so that a question that takes half a minute on a
small CPU does not look stuck. Nothing is written unless stderr is a terminal, so pipes, ``--json``
and tests see clean output.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

STEP_TEXT: dict[str, str] = {
    "condense_question": "making the follow-up a standalone question",
    "retrieve_decision": "deciding whether to retrieve",
    "retrieve": "retrieving passages",
    "generate_branches": "generating {count} answers, one per passage",
    "generate_segments": "writing the next sentence",
    "critique": "judging the evidence",
    "select": "choosing the answer",
    "quote": "quoting the passages",
}
"""Child run name -> what the status line says; ``{count}`` is the number of prompts of the step."""


def step_text(name: str, inputs: Any) -> str | None:
    """The status text of a step, or None for runs that are not steps of a question."""
    text = STEP_TEXT.get(name)
    if text is None:
        return None
    count = len(inputs) if isinstance(inputs, Sequence) and not isinstance(inputs, str) else 1
    if "{count}" in text and count == 1:
        return "generating the answer"
    return text.format(count=count)


class StatusLine(BaseCallbackHandler):
    """Shows the running step as ``selfrag: <step>...`` on one terminal line until :meth:`clear` (or the end
    of a ``with`` block)."""

    def __init__(self, stream: TextIO | None = None, *, enabled: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.shown = False

    def on_chain_start(
        self, serialized: dict[str, Any] | None, inputs: Any, *, run_id: UUID, **kwargs: Any
    ) -> None:
        text = step_text(str(kwargs.get("name") or ""), inputs)
        if text is None or not self.enabled:
            return
        self.stream.write(f"\r\033[Kselfrag: {text}...")
        self.stream.flush()
        self.shown = True

    def __enter__(self) -> StatusLine:
        return self

    def __exit__(self, *exc: object) -> None:
        """Cleared however the step ends: an error or Ctrl-C is then printed on a line of its own."""
        self.clear()

    def clear(self) -> None:
        """Erase the line and show nothing more (the answer is about to be printed)."""
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
        self.shown = False
        self.enabled = False
