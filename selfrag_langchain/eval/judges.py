"""Entailment judges for citation precision and recall.

ALCE judges citations with a large NLI model (TRUE, T5-11B). The default here needs nothing beyond the
models Self-RAG already runs: the reflector's IsSup distribution for (question, passage, sentence), read
as "entailed" when ``[Fully supported]`` is its most likely label. Any object with an ``entails`` method
(:class:`selfrag_langchain.eval.metrics.EntailmentJudge`) can replace it.
"""

from __future__ import annotations

from selfrag_langchain.judging import Branch, Reflector
from selfrag_langchain.scoring import argmax
from selfrag_langchain.text.boundary import DEFAULT_BOUNDARY
from selfrag_langchain.tokens import FULLY_SUPPORTED, parse_generation


class IsSupJudge:
    """Entailment read from a reflector's IsSup judgement: supported when ``[Fully supported]`` is the most
    likely of the three IsSup labels.

    Example:
        .. code-block:: python

            from selfrag_langchain import CriticReflector, TransformersLLM
            from selfrag_langchain.eval.judges import IsSupJudge

            judge = IsSupJudge(CriticReflector(TransformersLLM()))
            judge.entails("Paris is the capital of France.", "The capital of France is Paris.")
    """

    def __init__(self, reflector: Reflector) -> None:
        self.reflector = reflector
        self.calls = 0
        """How many judgements were asked (each is one critic call)."""

    def support_distribution(self, premise: str, claim: str, *, question: str = "") -> dict[str, float] | None:
        """The reflector's IsSup distribution for ``claim`` given ``premise`` (None if it gave none)."""
        from langchain_core.documents import Document

        self.calls += 1
        branch = Branch(passage=Document(page_content=premise), evidence=DEFAULT_BOUNDARY.clean(premise), raw=claim,
                        answer=claim, parsed=parse_generation(claim))
        (critique,) = self.reflector.critique(question or claim, [branch])
        return critique.support

    def entails(self, premise: str, claim: str, *, question: str = "") -> bool:
        """Whether ``[Fully supported]`` is the most likely IsSup label of ``claim`` given ``premise``."""
        dist = self.support_distribution(premise, claim, question=question)
        return bool(dist) and argmax(dist) == FULLY_SUPPORTED
