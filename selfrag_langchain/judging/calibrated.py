"""The calibrated judge: signals a small model reads well, mapped to the paper's distributions by models
fitted to GPT-4's critic labels.

Each group has a multinomial logistic regression fitted to the critic labels (``selfrag train judge``): the
signals are standardised, weighted and passed through a softmax over the labels seen in training. The result
is a distribution over the group's tokens, the shape the paper's formulas consume, so s_rel, s_sup and s_use
are computed from it exactly as from a critic's or a Self-RAG model's tokens. The parameters
(:class:`JudgeCalibration`) are plain numbers in a JSON file of tens of kilobytes; inference needs no
scikit-learn. :class:`CalibratedReflector` reads them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from selfrag_langchain.embeddings.minilm import EmbeddingRuntime
from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.judging.base import Branch, CriticQuery, Critique, Reflector
from selfrag_langchain.judging.features import SignalReader
from selfrag_langchain.tokens import GROUP_TOKENS, Group

DEFAULT_EMBEDDINGS = "all-MiniLM-L6-v2"
DEFAULT_CALIBRATION = "default_judge.json"
"""The calibrated judge's fit shipped with the package."""


FORMAT_VERSION = 1


def _rounded(values: tuple[float, ...]) -> list[float]:
    """Six significant digits: far below the fit's own uncertainty, and a file a third the size."""
    return [float(f"{v:.6g}") for v in values]


@dataclass(frozen=True)
class GroupCalibration:
    """A logistic map from named signals to one group's token distribution.

    ``coef`` has one row per class in ``classes`` (or a single row for two classes, scikit-learn's
    binary layout: the row scores the second class against the first).
    """

    group: Group
    features: tuple[str, ...]
    classes: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[tuple[float, ...], ...]
    intercept: tuple[float, ...]

    def __post_init__(self) -> None:
        width = len(self.features)
        if len(self.mean) != width or len(self.scale) != width or any(len(row) != width for row in self.coef):
            msg = f"{self.group} calibration: mean, scale and coef rows need {width} values, one per feature"
            raise ConfigurationError(msg)
        rows = 1 if len(self.classes) == 2 else len(self.classes)
        if len(self.coef) != rows or len(self.intercept) != rows:
            msg = f"{self.group} calibration: {len(self.classes)} classes need {rows} coef rows and intercepts"
            raise ConfigurationError(msg)
        unknown = [c for c in self.classes if c not in GROUP_TOKENS[self.group]]
        if unknown:
            msg = f"{self.group} calibration: {', '.join(unknown)} is not a {self.group} token"
            raise ConfigurationError(msg)

    def distribution(self, signals: Mapping[str, float]) -> dict[str, float]:
        """The group distribution for ``signals`` (every feature must be present); tokens never seen in
        training get probability 0."""
        missing = [f for f in self.features if f not in signals]
        if missing:
            msg = f"{self.group} calibration needs the signal(s) {', '.join(missing)}"
            raise ConfigurationError(msg)
        z = [(signals[f] - m) / s for f, m, s in zip(self.features, self.mean, self.scale, strict=True)]
        logits = [math.fsum(w * x for w, x in zip(row, z, strict=True)) + b
                  for row, b in zip(self.coef, self.intercept, strict=True)]
        if len(self.classes) == 2:
            logits = [0.0, logits[0]]
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = math.fsum(exps)
        probs = dict.fromkeys(GROUP_TOKENS[self.group], 0.0)
        for cls, e in zip(self.classes, exps, strict=True):
            probs[cls] = e / total
        return probs

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(self.features), "classes": list(self.classes), "mean": _rounded(self.mean),
                "scale": _rounded(self.scale), "coef": [_rounded(r) for r in self.coef],
                "intercept": _rounded(self.intercept)}

    @classmethod
    def from_dict(cls, group: Group, data: Mapping[str, Any]) -> GroupCalibration:
        return cls(group, tuple(data["features"]), tuple(data["classes"]), tuple(map(float, data["mean"])),
                   tuple(map(float, data["scale"])), tuple(tuple(map(float, r)) for r in data["coef"]),
                   tuple(map(float, data["intercept"])))


@dataclass(frozen=True)
class JudgeCalibration:
    """The calibrations of all four groups, and how they were made (recorded in every trace)."""

    groups: Mapping[Group, GroupCalibration]
    embeddings: str
    """The embedding model the similarity signals were computed with (they are only valid with it)."""
    provenance: Mapping[str, Any] = field(default_factory=dict)
    """Training file, row counts, chosen hyper-parameters, cross-validated scores."""

    def __getitem__(self, group: Group) -> GroupCalibration:
        return self.groups[group]

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, "embeddings": self.embeddings, "provenance": dict(self.provenance),
                "groups": {str(g): c.to_dict() for g, c in self.groups.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JudgeCalibration:
        if data.get("format") != FORMAT_VERSION:
            msg = f"judge calibration format {data.get('format')!r} is not {FORMAT_VERSION}: fit it again"
            raise ConfigurationError(msg)
        groups = {Group(name): GroupCalibration.from_dict(Group(name), body) for name, body in data["groups"].items()}
        absent = [str(g) for g in Group if g not in groups]
        if absent:
            msg = f"judge calibration lacks the group(s) {', '.join(absent)}"
            raise ConfigurationError(msg)
        return cls(groups, str(data["embeddings"]), dict(data.get("provenance", {})))

    @classmethod
    def load(cls, path: str | Path | None = None, *, shipped: str = DEFAULT_CALIBRATION) -> JudgeCalibration:
        """A calibration file written by ``selfrag train judge``; None: the one shipped with the package under the
        name ``shipped``."""
        try:
            if path is None:
                text = resources.files("selfrag_langchain.judging").joinpath(shipped).read_text()
            else:
                text = Path(path).read_text(encoding="utf-8")
            data = json.loads(text)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            msg = f"cannot read the judge calibration {path or 'shipped with the package'}: {e}"
            raise ConfigurationError(msg) from e
        if not isinstance(data, dict) or "groups" not in data:
            msg = f"{path} is not a judge calibration (written by `selfrag train judge`)"
            raise ConfigurationError(msg)
        return cls.from_dict(data)


def shared_minilm(embeddings: Embeddings) -> Any | None:
    """The shipped MiniLM as ``embeddings`` loaded it (in torch), for a cross-encoder over the same weights to
    share rather than load again; None for any other embedding model or runtime."""
    from selfrag_langchain.embeddings import MiniLMEmbeddings, default_model_path

    if isinstance(embeddings, MiniLMEmbeddings) and embeddings.model_path in (None, default_model_path()):
        return embeddings.transformer()
    return None


class CalibratedReflector(Reflector):
    """Judges Retrieve, IsRel, IsSup and IsUse from sentence embeddings and word overlap, calibrated on
    the GPT-4 labels of Self-RAG's critic data.

    Small instruct models answer the critic's questions near chance, but the signals below separate
    good evidence from bad: how close the passage is to the question, how many of the question's words
    and names it holds, whether its title is what the question names (IsRel); how many of the answer's
    words, above all those it adds to the question, the passage holds (IsSup); whether the answer says
    something beyond the question, about what was asked, without declining (IsUse); what kind of request
    the instruction is (Retrieve). A logistic regression per group, fitted by ``selfrag train
    judge`` and shipped as tens of kilobytes of JSON, turns them into the group distributions, so the
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
    embedding_runtime: EmbeddingRuntime = "onnx-fp32"
    """How the default embeddings run: in full precision, the vectors the shipped calibration was fitted on, in
    ONNX Runtime, which embeds the few sentences of a question's branches twice as fast as torch on a CPU."""

    def __init__(self, calibration: JudgeCalibration | str | Path | None = None, *,
                 embeddings: Embeddings | None = None) -> None:
        """Args:
            calibration: a :class:`JudgeCalibration`, the path of one written by ``selfrag train judge``,
                or None for the one shipped with the package.
            embeddings: the embedding model the calibration was fitted with; None loads all-MiniLM-L6-v2
                in full precision (:attr:`embedding_runtime`), the vectors the shipped calibration was fitted on.
        """
        self.calibration = (calibration if isinstance(calibration, JudgeCalibration)
                            else JudgeCalibration.load(calibration))
        if embeddings is None:
            from selfrag_langchain.embeddings import MiniLMEmbeddings

            embeddings = MiniLMEmbeddings(runtime=self.embedding_runtime)
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
