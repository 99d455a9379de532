"""The calibrated judge: signals a small model reads well, mapped to the paper's distributions by models
fitted to GPT-4's critic labels."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from selfrag_langchain.judging.base import Branch, CriticQuery, Critique, Reflector
from selfrag_langchain.judging.calibration import JudgeCalibration
from selfrag_langchain.judging.features import SignalReader
from selfrag_langchain.tokens import Group

DEFAULT_EMBEDDINGS = "all-MiniLM-L6-v2"


class CalibratedReflector(Reflector):
    """Judges Retrieve, IsRel, IsSup and IsUse from sentence embeddings and word overlap, calibrated on
    the GPT-4 labels of Self-RAG's critic data.

    Small instruct models answer the critic's questions near chance, but the signals below separate
    good evidence from bad: how close the passage is to the question, how many of the question's words
    and names it holds, whether its title is what the question names (IsRel); how many of the answer's
    words, above all those it adds to the question, the passage holds (IsSup); whether the answer says
    something beyond the question, about what was asked, without declining (IsUse); what kind of request
    the instruction is (Retrieve). A logistic regression per group, fitted by ``selfrag train
    judge`` and shipped as a few kilobytes of JSON, turns them into the group distributions, so the
    paper's formulas (s_rel, s_sup, s_use, hard constraints) apply unchanged and every distribution is
    in the trace. It runs beside any generator, needs no token probabilities, and costs one batch of
    embeddings per question (all-MiniLM-L6-v2, shipped with the package).

    Example:
        .. code-block:: python

            from selfrag_langchain import SelfRAG, TransformersLLM
            from selfrag_langchain.judging import CalibratedReflector
            from selfrag_langchain.corpus.answering import default_retriever

            rag = SelfRAG(generator=TransformersLLM(), reflector=CalibratedReflector(),
                          retriever=default_retriever())
            rag.invoke("Who painted the Mona Lisa?").answer
            # 'Leonardo da Vinci painted the Mona Lisa.'

            judge = CalibratedReflector()
            judge.retrieve_distribution("Who wrote Hamlet?")
            # {'[Retrieval]': 0.8..., '[No Retrieval]': 0.1..., '[Continue to Use Evidence]': 0.0}
    """

    name = "calibrated"

    def __init__(self, calibration: JudgeCalibration | str | Path | None = None, *,
                 embeddings: Embeddings | None = None) -> None:
        """Args:
            calibration: a :class:`JudgeCalibration`, the path of one written by ``selfrag train judge``,
                or None for the one shipped with the package.
            embeddings: the embedding model the calibration was fitted with; None loads all-MiniLM-L6-v2
                in full precision (``runtime="torch"``), the vectors the shipped calibration was fitted on.
        """
        self.calibration = (calibration if isinstance(calibration, JudgeCalibration)
                            else JudgeCalibration.load(calibration))
        if embeddings is None:
            from selfrag_langchain.embeddings import MiniLMEmbeddings

            embeddings = MiniLMEmbeddings(runtime="torch")
        self.signals = SignalReader(embeddings)

    def judge(self, queries: Sequence[CriticQuery]) -> list[dict[str, float]]:
        """The group distribution of each query, all embedded in one batch; :meth:`critique` reads the same."""
        return [self.calibration[q.group].distribution(signals)
                for q, signals in zip(queries, self.signals.read(queries), strict=True)]

    def retrieve_distribution(self, instruction: str, *, preceding: str | None = None) -> dict[str, float]:
        # The critic labels judge the request alone, so the answer so far does not enter.
        (dist,) = self.judge([CriticQuery(Group.RETRIEVE, instruction)])
        return dist

    def critique(self, instruction: str, branches: Sequence[Branch], *, preceding: str | None = None
                 ) -> list[Critique]:
        judgements: list[CriticQuery] = []
        for branch in branches:
            output = branch.answer
            judgements.append(CriticQuery(Group.ISUSE, instruction, output=output))
            if branch.evidence is not None:
                judgements.append(CriticQuery(Group.ISREL, instruction, evidence=branch.evidence))
                judgements.append(CriticQuery(Group.ISSUP, instruction, evidence=branch.evidence, output=output))
        dists = iter(self.judge(judgements))
        critiques = []
        for branch in branches:
            critique = Critique(utility=next(dists))
            if branch.evidence is not None:
                critique.relevance, critique.support = next(dists), next(dists)
            critiques.append(critique)
        return critiques

    def relevance_distributions(self, instruction: str, evidence: Sequence[str]) -> list[dict[str, float]]:
        """IsRel of each passage, read as :meth:`critique` reads it, all passages in one embedding batch."""
        return self.judge([CriticQuery(Group.ISREL, instruction, evidence=e) for e in evidence])

    def describe(self) -> dict[str, Any]:
        """Where the calibration came from, for traces and reports."""
        return {"embeddings": self.calibration.embeddings, **self.calibration.provenance}
