"""The learned judge: a cross-encoder reads IsRel, IsSup and IsUse; Retrieve stays with the calibration."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from selfrag_langchain.embeddings.minilm import EmbeddingRuntime
from selfrag_langchain.judging.base import CriticQuery
from selfrag_langchain.judging.calibrated import CalibratedReflector, JudgeCalibration, shared_minilm
from selfrag_langchain.judging.encoder import ENCODED_GROUPS, EncoderJudge
from selfrag_langchain.tokens import Group

SHIPPED_ENCODER = Path(__file__).with_name("learned_judge")
"""The judge encoder shipped with the package (``selfrag train judge-encoder`` wrote it)."""

LEARNED_GROUPS: tuple[Group, ...] = (Group.ISSUP, Group.ISUSE)
"""The groups the learned judge reads by default: on held-out training-side rows (synthetic contrasts from
passages it was not trained on) its IsSup and IsUse are well ahead of the calibrated judge's and its IsRel
behind, so IsRel, like Retrieve, stays with the calibration."""


class LearnedReflector(CalibratedReflector):
    """Judges each branch with a cross-encoder trained on critic labels and synthetic contrasts.

    The encoder reads the output with the passage (IsSup) and the question with the output (IsUse) in one
    sequence each, with the words the passage does not state listed beside the output, so it can see a
    passage that states another value than the output, or an output about another entity than the one
    asked about. Retrieve and, by default, IsRel are read as the calibrated judge reads them
    (:data:`LEARNED_GROUPS`); ``groups`` lets the encoder read IsRel too.

    Example:
        .. code-block:: python

            from selfrag_langchain.judging import LearnedReflector
            from selfrag_langchain.judging.base import CriticQuery
            from selfrag_langchain.tokens import Group

            judge = LearnedReflector()
            passage = "Canberra\\nCanberra is the capital city of Australia."
            judge.judge([CriticQuery(Group.ISSUP, "What is the capital of Australia?",
                                     evidence=passage, output="Sydney is the capital of Australia.")])
            # [{'[Fully supported]': 0.0..., '[Partially supported]': 0.0..., '[No support / Contradictory]': 0.9...}]
    """

    name = "learned"
    embedding_runtime: EmbeddingRuntime = "torch"
    """Torch, so that the cross-encoder reads its bottom layers from the MiniLM the embeddings loaded."""

    def __init__(self, encoder: EncoderJudge | str | Path | None = None, *,
                 calibration: JudgeCalibration | str | Path | None = None, embeddings: Embeddings | None = None,
                 groups: Collection[Group] = LEARNED_GROUPS) -> None:
        """Args:
            encoder: a loaded :class:`EncoderJudge`, the directory ``selfrag train judge-encoder`` wrote, or
                None for the one shipped with the package.
            calibration: the calibrated judge's fit, for Retrieve and any group the encoder does not read.
            embeddings: the embedding model of that calibration (see :class:`CalibratedReflector`).
            groups: the groups the encoder judges (any of IsRel, IsSup, IsUse); the others go to the calibration.
        """
        super().__init__(calibration, embeddings=embeddings)
        if not isinstance(encoder, EncoderJudge):
            encoder = EncoderJudge(encoder or SHIPPED_ENCODER, shared=shared_minilm(self.signals.embeddings))
        self.encoder = encoder
        self.encoded = frozenset(groups) & frozenset(ENCODED_GROUPS)

    def judge(self, queries: Sequence[CriticQuery]) -> list[dict[str, float]]:
        """The encoder's distributions for its groups, the calibration's for the others."""
        encoded = [i for i, q in enumerate(queries) if q.group in self.encoded]
        calibrated = [i for i, q in enumerate(queries) if q.group not in self.encoded]
        out: list[dict[str, float]] = [{} for _ in queries]
        for i, dist in zip(encoded, self.encoder.distributions([queries[i] for i in encoded]), strict=True):
            out[i] = dist
        for i, dist in zip(calibrated, super().judge([queries[i] for i in calibrated]), strict=True):
            out[i] = dist
        return out

    def describe(self) -> dict[str, Any]:
        return {"encoder": self.encoder.card.provenance, "encoded_groups": sorted(map(str, self.encoded)),
                "calibration": super().describe()}
