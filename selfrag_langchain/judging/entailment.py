"""The entailment judge: the calibrated judge's signals, plus what a sentence reader reads sentence by sentence.

Beside the embedding and word-overlap signals (:mod:`~selfrag_langchain.judging.features`), each group reads:

- IsRel, ``answering``: the best probability that one of the passage's sentences answers the question
  (answer-sentence selection: a passage that only shares the question's words scores low);
- IsSup, ``entailment`` and ``contradiction``: the output's claims read against each passage sentence and
  each pair of adjacent ones (:mod:`~selfrag_langchain.judging.claims`);
- IsUse, ``answering``: the best probability that one of the output's sentences answers the question.

A logistic regression per group, fitted by ``selfrag train judge --reader`` with cross-validation on
training-side labels, weighs them with the others; the result is the group distribution the paper's formulas
consume, as with every judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from selfrag_langchain.embeddings.minilm import EmbeddingRuntime
from selfrag_langchain.judging.base import CriticQuery
from selfrag_langchain.judging.calibrated import CalibratedReflector, JudgeCalibration, shared_minilm
from selfrag_langchain.judging.claims import aggregate_support, claims, passage_parts, passage_windows, titled
from selfrag_langchain.judging.features import SignalReader
from selfrag_langchain.judging.reader import SentenceReader
from selfrag_langchain.tokens import Group

ENTAILMENT_CALIBRATION = "entailment_judge.json"
"""The entailment judge's calibration shipped with the package (``selfrag train judge --reader shipped``)."""

READER_FEATURES: dict[Group, tuple[str, ...]] = {
    Group.ISREL: ("answering",),
    Group.ISSUP: ("entailment", "contradiction"),
    Group.ISUSE: ("answering",),
}
"""The signals the sentence reader adds to each group's."""


class ReadingSignals(SignalReader):
    """The calibrated judge's signals and the sentence reader's (:data:`READER_FEATURES`), each reading of a
    batch of judgements in one call."""

    def __init__(self, embeddings: Embeddings, reader: SentenceReader) -> None:
        super().__init__(embeddings)
        self.reader = reader

    def read(self, judgements: Sequence[CriticQuery]) -> list[dict[str, float]]:
        rows = super().read(judgements)
        answering: list[tuple[int, list[tuple[str, str]]]] = []
        entailment: list[tuple[int, int, list[tuple[str, str]]]] = []
        for i, j in enumerate(judgements):
            if j.group is Group.ISREL:
                title, sentences = passage_parts(j.evidence or "")
                answering.append((i, [(j.instruction, titled(title, s)) for s in sentences]))
            elif j.group is Group.ISUSE:
                answering.append((i, [(j.instruction, c) for c in claims(j.output or "")]))
            elif j.group is Group.ISSUP:
                parts = passage_windows(j.evidence or "")
                said = claims(j.output or "")
                entailment.append((i, len(parts), [(c, w) for c in said for w in parts]))
        answers = iter(self.reader.answering([p for _, pairs in answering for p in pairs]))
        for i, pairs in answering:
            rows[i]["answering"] = max((next(answers) for _ in pairs), default=0.0)
        readings = iter(self.reader.entailment([p for _, _, pairs in entailment for p in pairs]))
        for i, width, pairs in entailment:
            flat = [next(readings) for _ in pairs]
            table = [flat[k:k + width] for k in range(0, len(flat), width)] if width else []
            support = aggregate_support(table)
            rows[i]["entailment"], rows[i]["contradiction"] = support.entailment, support.contradiction
        return rows


class EntailmentReflector(CalibratedReflector):
    """Judges each branch from the calibrated judge's signals and a sentence reader's: whether a sentence of the
    passage answers the question (IsRel), whether the passage's sentences entail or contradict the output's
    claims (IsSup), whether the output answers the question (IsUse). Retrieve is read as the calibrated judge
    reads it.

    Example:
        .. code-block:: python

            from selfrag_langchain.judging import EntailmentReflector
            from selfrag_langchain.judging.base import CriticQuery
            from selfrag_langchain.tokens import Group

            judge = EntailmentReflector()
            passage = "Zambezi\\nThe Zambezi is the fourth-longest river in Africa."
            judge.judge([CriticQuery(Group.ISSUP, "What is the longest river in Africa?",
                                     evidence=passage, output="The Zambezi is the longest river in Africa.")])
            # [{'[Fully supported]': 0.0..., '[Partially supported]': 0.1..., '[No support / Contradictory]': 0.8...}]
    """

    name = "entailment"
    embedding_runtime: EmbeddingRuntime = "torch"
    """Torch, so that the cross-encoder reads its bottom layers from the MiniLM the embeddings loaded."""

    def __init__(self, calibration: JudgeCalibration | str | Path | None = None, *,
                 reader: SentenceReader | str | Path | None = None, embeddings: Embeddings | None = None) -> None:
        """Args:
            calibration: a calibration fitted with a sentence reader's signals (``selfrag train judge
                --reader``), or None for the one shipped with the package.
            reader: a loaded :class:`SentenceReader`, the directory ``selfrag train reader`` wrote, or None for
                the one shipped with the package.
            embeddings: the embedding model of that calibration (see :class:`CalibratedReflector`).
        """
        if calibration is None:
            calibration = JudgeCalibration.load(shipped=ENTAILMENT_CALIBRATION)
        super().__init__(calibration, embeddings=embeddings)
        if not isinstance(reader, SentenceReader):
            reader = SentenceReader(reader, shared=shared_minilm(self.signals.embeddings))
        self.reader = reader
        self.signals = ReadingSignals(self.signals.embeddings, reader)

    def describe(self) -> dict[str, Any]:
        return {"reader": self.reader.card.provenance, "calibration": super().describe()}
