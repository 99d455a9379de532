"""The signals each reflection group is judged from, computed the same way at training and at inference.

- Retrieve: the instruction's sentence embedding (what kind of request it is).
- IsRel: embedding similarity of instruction and evidence; the share of the instruction's content words,
  and of its pairs of adjacent content words (names, terms), that the evidence contains; how much of
  the passage's title (its first line) the instruction names; and the share of the instruction's names
  (capitalised words, numbers) the evidence contains, so a passage about a neighbouring entity is seen.
- IsSup: embedding similarity of output and evidence, the share of the output's content words the
  evidence contains, the same share for the words the output adds to the question, and the share of
  the output's adjacent word pairs the evidence contains.
- IsUse: embedding similarity of instruction and output, the share of the output's words that are new
  to the question (an answer that repeats the question says nothing), the output's length, the share of
  the question's words the output takes up, and whether the output declines or hedges.

:class:`SignalReader` embeds every distinct text of a batch of judgements in one call.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.embeddings import Embeddings

from selfrag_langchain.judging.base import CriticQuery
from selfrag_langchain.judging.signals import (
    content_bigrams,
    content_words,
    coverage,
    hedging,
    log_length,
    name_coverage,
    novel_words,
    novelty,
)
from selfrag_langchain.tokens import Group

GROUP_FEATURES: dict[Group, tuple[str, ...]] = {
    Group.ISREL: ("similarity", "question_coverage", "question_bigram_coverage", "title_coverage", "name_coverage"),
    Group.ISSUP: ("similarity", "answer_coverage", "novel_coverage", "answer_bigram_coverage"),
    Group.ISUSE: ("similarity", "novelty", "log_length", "question_coverage", "hedging"),
}
"""The named signals of the groups judged per branch (Retrieve reads ``embedding_0`` ... instead)."""


def embedding_features(vector: Sequence[float]) -> dict[str, float]:
    """An embedding as named signals ``embedding_0``, ``embedding_1``, ..."""
    return {f"embedding_{i}": float(v) for i, v in enumerate(vector)}


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return float(sum(x * y for x, y in zip(a, b, strict=True)))


def lexical_signals(j: CriticQuery) -> dict[str, float]:
    """The signals of ``j`` that need no model."""
    evidence = j.evidence or ""
    evidence_words = content_words(evidence)
    output = j.output or ""
    if j.group is Group.ISREL:
        title = evidence.split("\n", 1)[0] if "\n" in evidence else ""
        return {"question_coverage": coverage(content_words(j.instruction), evidence_words),
                "question_bigram_coverage": coverage(content_bigrams(j.instruction), content_bigrams(evidence)),
                "title_coverage": coverage(content_words(title), content_words(j.instruction)),
                "name_coverage": name_coverage(j.instruction, evidence)}
    if j.group is Group.ISSUP:
        return {"answer_coverage": coverage(content_words(output), evidence_words),
                "novel_coverage": coverage(novel_words(output, j.instruction), evidence_words),
                "answer_bigram_coverage": coverage(content_bigrams(output), content_bigrams(evidence))}
    if j.group is Group.ISUSE:
        return {"novelty": novelty(output, j.instruction), "log_length": log_length(output),
                "question_coverage": coverage(content_words(j.instruction), content_words(output)),
                "hedging": hedging(output)}
    return {}


def _compared(j: CriticQuery) -> tuple[str, str] | None:
    """The two texts whose embedding similarity the group reads."""
    if j.group is Group.ISREL:
        return j.instruction, j.evidence or ""
    if j.group is Group.ISSUP:
        return j.output or "", j.evidence or ""
    if j.group is Group.ISUSE:
        return j.instruction, j.output or ""
    return None


class SignalReader:
    """Computes the signals of many judgements with one embedding call over their distinct texts."""

    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings

    def read(self, judgements: Sequence[CriticQuery]) -> list[dict[str, float]]:
        texts: list[str] = []
        for j in judgements:
            pair = _compared(j)
            texts.extend(pair if pair is not None else (j.instruction,))
        distinct = list(dict.fromkeys(texts))
        vectors = dict(zip(distinct, self.embeddings.embed_documents(distinct), strict=True)) if distinct else {}
        rows = []
        for j in judgements:
            pair = _compared(j)
            if pair is None:
                rows.append(embedding_features(vectors[j.instruction]))
                continue
            a, b = pair
            # An empty side has nothing to be similar to.
            similarity = _dot(vectors[a], vectors[b]) if a.strip() and b.strip() else 0.0
            rows.append({"similarity": similarity, **lexical_signals(j)})
        return rows
