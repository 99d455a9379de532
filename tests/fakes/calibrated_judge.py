"""A calibration for the calibrated judge over :class:`~tests.fakes.bag_of_words.BagOfWords`, in which each group
reads one signal (so a test can tell which distribution went where), a question about the Mona Lisa with one
passage that answers it and one that does not, and the branch a passage and an answer make."""

from __future__ import annotations

from langchain_core.documents import Document

from selfrag_langchain.judging import Branch, GroupCalibration, JudgeCalibration
from selfrag_langchain.judging.features import GROUP_FEATURES
from selfrag_langchain.tokens import (
    FULLY_SUPPORTED,
    IRRELEVANT,
    NO_RETRIEVAL,
    NO_SUPPORT,
    RELEVANT,
    RETRIEVAL,
    UTILITY,
    Group,
    ParsedGeneration,
)
from tests.fakes.bag_of_words import DIM


def _binary(group: Group, feature: str, weight: float, classes: tuple[str, str]) -> GroupCalibration:
    features = GROUP_FEATURES[group]
    row = tuple(weight if f == feature else 0.0 for f in features)
    return GroupCalibration(group, features, classes, (0.0,) * len(features), (1.0,) * len(features), (row,), (0.0,))


def calibration() -> JudgeCalibration:
    """Each group reads one signal, so a test can tell which distribution went where."""
    retrieve = GroupCalibration(Group.RETRIEVE, tuple(f"embedding_{i}" for i in range(DIM)),
                                (NO_RETRIEVAL, RETRIEVAL), (0.0,) * DIM, (1.0,) * DIM, ((0.0,) * DIM,), (1.0,))
    support = GroupCalibration(Group.ISSUP, GROUP_FEATURES[Group.ISSUP], (FULLY_SUPPORTED, NO_SUPPORT),
                               (0.0,) * 4, (1.0,) * 4, ((0.0, -4.0, 0.0, 0.0),), (2.0,))
    return JudgeCalibration({
        Group.RETRIEVE: retrieve,
        Group.ISREL: _binary(Group.ISREL, "question_coverage", 4.0, (IRRELEVANT, RELEVANT)),
        Group.ISSUP: support,
        Group.ISUSE: _binary(Group.ISUSE, "novelty", 4.0, (UTILITY[0], UTILITY[4])),
    }, "bag-of-words")


QUESTION = "Who painted the Mona Lisa?"
MONA = "Mona Lisa\nThe Mona Lisa is a portrait painting by Leonardo da Vinci."
MATISSE = "Henri Matisse\nHenri Matisse was a French painter of The Dance."


def branch(evidence: str | None, answer: str) -> Branch:
    doc = Document(page_content=evidence.split("\n", 1)[1]) if evidence else None
    return Branch(passage=doc, evidence=evidence, raw=answer, answer=answer, parsed=ParsedGeneration())
