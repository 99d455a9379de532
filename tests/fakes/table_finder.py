"""A stand-in answer finder whose readings are written down: no model, each pair looked up by its texts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from selfrag_langchain.judging.finder import AnswerFinder, AnswerSpan


class TableFinder(AnswerFinder):
    """Reads each (question, sentence) pair with ``odds(question, sentence)`` (no answer by default); records every
    pair it is asked about."""

    def __init__(self, odds: Callable[[str, str], float] | None = None) -> None:
        self._odds = odds or (lambda _q, _s: -10.0)
        self.asked: list[tuple[str, str]] = []

    def find(self, pairs: Sequence[tuple[str, str]]) -> list[AnswerSpan]:
        self.asked.extend(pairs)
        return [AnswerSpan(s, self._odds(q, s)) for q, s in pairs]
