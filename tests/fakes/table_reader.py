"""A stand-in sentence reader whose readings are written down: no model, readings looked up by their texts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from selfrag_langchain.judging.reader import READING_LABELS, Reading, SentenceReader


class TableReader(SentenceReader):
    """Reads each pair with ``answering(question, sentence)`` and ``entailment(claim, premise)`` functions (0 and
    neutral by default); records every pair it is asked about."""

    def __init__(self, answering: Callable[[str, str], float] | None = None,
                 entailment: Callable[[str, str], tuple[float, float, float]] | None = None) -> None:
        self._answering = answering or (lambda _q, _s: 0.0)
        self._entailment = entailment or (lambda _c, _p: (0.0, 1.0, 0.0))
        self.asked: list[tuple[Reading, str, str]] = []

    def read(self, pairs: Sequence[tuple[str, str]], reading: Reading) -> list[tuple[float, ...]]:
        self.asked.extend((reading, a, b) for a, b in pairs)
        if reading is Reading.ANSWERING:
            return [(p := self._answering(a, b), 1.0 - p) for a, b in pairs]
        rows = [self._entailment(a, b) for a, b in pairs]
        assert all(len(r) == len(READING_LABELS[Reading.ENTAILMENT]) for r in rows)
        return rows
