"""Judges of reflection: the distributions over Retrieve, IsRel, IsSup and IsUse, behind one interface.

- :class:`InlineReflector`: a fine-tuned Self-RAG model judges itself; the distributions are read from
  its own token probabilities where it generated the reflection tokens (the paper's method).
- :class:`CriticReflector`: a separate model is asked each group's question, and the distribution is
  the normalised likelihood of each label. It runs on top of any generator, fine-tuned or not.
"""

from __future__ import annotations

import asyncio
import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.documents import Document

from selfrag_langchain.boundary import boundary_for
from selfrag_langchain.errors import ConfigurationError, ModelLoadError
from selfrag_langchain.llms.base import ContinuationRequest, GenerationStats, GroupReading, ReflectiveLLM
from selfrag_langchain.llms.traced import score
from selfrag_langchain.prompts import (
    ZERO_SHOT_CRITIC,
    CriticPromptSet,
    critic_prompt_set,
    generator_prompt,
    selfrag_branch_prompt,
)
from selfrag_langchain.scoring import from_logprobs, normalize
from selfrag_langchain.tokens import (
    CONTINUE_EVIDENCE,
    IRRELEVANT,
    NO_RETRIEVAL,
    RELEVANT,
    RETRIEVAL,
    TOKEN_GROUP,
    Group,
    ParsedGeneration,
    strip_reflection_tokens,
)


@dataclass
class Branch:
    """One generated continuation: the passage it was conditioned on (None: no retrieval) and its output."""

    passage: Document | None
    evidence: str | None
    """The passage text the models read (escaped, possibly truncated); None without a passage."""
    raw: str
    """The generation as decoded, reflection tokens kept."""
    answer: str
    """The generation as a person reads it, reflection tokens and passages removed."""
    parsed: ParsedGeneration
    stats: GenerationStats | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CriticQuery:
    """One question to a critic about one group, with the fields its prompt shows (critic evaluation and
    training-data creation ask single groups rather than whole branches)."""

    group: Group
    instruction: str
    evidence: str | None = None
    output: str | None = None
    preceding: str | None = None


@dataclass
class Critique:
    """A judge's distributions for one branch; a group it could not judge is None, with a note why."""

    relevance: dict[str, float] | None = None
    support: dict[str, float] | None = None
    utility: dict[str, float] | None = None
    notes: list[str] = field(default_factory=list)

    def distributions(self) -> dict[str, dict[str, float] | None]:
        """Keyed by group name, as the trace reports them."""
        return {str(Group.ISREL): self.relevance, str(Group.ISSUP): self.support, str(Group.ISUSE): self.utility}


class Reflector(ABC):
    """A judge of reflection, as the control loop sees it."""

    name: str

    @abstractmethod
    def retrieve_distribution(self, instruction: str, *, preceding: str | None = None) -> dict[str, float] | None:
        """The Retrieve distribution for the question (and the answer so far, ``preceding``, as the generator
        wrote it: long form asks before each segment), or None if this judge cannot tell."""

    @abstractmethod
    def critique(self, instruction: str, branches: Sequence[Branch], *, preceding: str | None = None
                 ) -> list[Critique]:
        """IsRel, IsSup and IsUse distributions for each branch (a segment that follows ``preceding``)."""

    @abstractmethod
    def relevance_distributions(self, instruction: str, evidence: Sequence[str]) -> list[dict[str, float]]:
        """The IsRel distribution of each passage for the question alone, before any answer is written
        (the paper's IsRel judges x and d only): what a relevance filter in front of a retriever needs.
        ``evidence`` holds the passages as the models read them
        (:func:`~selfrag_langchain.prompts.format_passage`)."""

    def check_generator(self, generator: Any) -> None:  # noqa: B027 - optional hook
        """Raise :class:`ModelLoadError` if this judge cannot work with ``generator``."""

    async def arelevance_distributions(self, instruction: str, evidence: Sequence[str]) -> list[dict[str, float]]:
        return await asyncio.to_thread(self.relevance_distributions, instruction, evidence)

    async def aretrieve_distribution(self, instruction: str, *, preceding: str | None = None
                                     ) -> dict[str, float] | None:
        return await asyncio.to_thread(self.retrieve_distribution, instruction, preceding=preceding)

    async def acritique(self, instruction: str, branches: Sequence[Branch], *, preceding: str | None = None
                        ) -> list[Critique]:
        return await asyncio.to_thread(self.critique, instruction, branches, preceding=preceding)


class InlineReflector(Reflector):
    """Reads the judgements a fine-tuned Self-RAG generator emits about itself.

    The Retrieve distribution is the exact next-token distribution after the generator prompt; IsRel,
    IsSup and IsUse are the distributions the backend recorded where the generator emitted those
    tokens (first IsRel, first IsSup, last IsUse). A group the generator did not emit is None.
    """

    name = "inline"

    def __init__(self, llm: ReflectiveLLM) -> None:
        self.llm = llm

    def check_generator(self, generator: Any) -> None:
        if not self.llm.has_tokens(list(TOKEN_GROUP)):
            msg = (
                "the inline reflector needs a Self-RAG generator whose vocabulary has the reflection "
                "tokens ([Retrieval], [Relevant], ...); this model lacks them: use a Self-RAG checkpoint "
                "(e.g. selfrag/selfrag_llama2_7b) or the critic reflector (--reflector critic)"
            )
            raise ModelLoadError(msg)

    def retrieve_distribution(self, instruction: str, *, preceding: str | None = None) -> dict[str, float] | None:
        # After a segment the model may also keep its passage ([Continue to Use Evidence]).
        tokens = (RETRIEVAL, NO_RETRIEVAL, CONTINUE_EVIDENCE) if preceding else (RETRIEVAL, NO_RETRIEVAL)
        # ``preceding`` is the generator's own output, reflection tokens and all: only the question is cleaned.
        request = ContinuationRequest(generator_prompt(boundary_for(self.llm)(instruction)) + (preceding or ""),
                                      tokens)
        (logprobs,) = score(self.llm, [request])
        return from_logprobs(Group.RETRIEVE, dict(zip(request.continuations, logprobs, strict=True)))

    def critique(self, instruction: str, branches: Sequence[Branch], *, preceding: str | None = None
                 ) -> list[Critique]:
        return [self._critique_one(b) for b in branches]

    def relevance_distributions(self, instruction: str, evidence: Sequence[str]) -> list[dict[str, float]]:
        """The exact next-token IsRel distribution after each passage's branch prompt, where the generator
        would emit its IsRel token, all in one backend call."""
        if not evidence:
            return []
        self.check_generator(self.llm)
        clean = boundary_for(self.llm)
        requests = [ContinuationRequest(selfrag_branch_prompt(clean(instruction), clean(e)), (RELEVANT, IRRELEVANT))
                    for e in evidence]
        rows = score(self.llm, requests)
        return [from_logprobs(Group.ISREL, dict(zip(r.continuations, lps, strict=True)))
                for r, lps in zip(requests, rows, strict=True)]

    @staticmethod
    def _critique_one(branch: Branch) -> Critique:
        critique = Critique()
        if branch.stats is None:
            critique.notes.append("generator reported no token probabilities: no inline judgements")
            return critique
        rel = branch.stats.first(Group.ISREL)
        sup = branch.stats.first(Group.ISSUP)
        uses = [r for r in branch.stats.readings if r.group is Group.ISUSE]
        critique.relevance = rel.probs if rel and branch.passage is not None else None
        critique.support = sup.probs if sup and branch.passage is not None else None
        critique.utility = uses[-1].probs if uses else None
        for group, reading in ((Group.ISREL, rel), (Group.ISSUP, sup)):
            if branch.passage is not None and reading is None:
                critique.notes.append(f"generator emitted no {group} token: {group} term omitted")
        if not uses:
            critique.notes.append("generator emitted no IsUse token: IsUse term omitted")
        for reading in (rel, sup, uses[-1] if uses else None):
            if reading is not None and not reading.exact:
                critique.notes.append(top_k_note(reading))
        return critique


def resolve_relevance(relevance: str, prompts: CriticPromptSet) -> str:
    """``auto`` resolved for a prompt set: an instruct model asked zero-shot judges relevance better by how
    much more likely the passage makes the question (PopQA dev, benchmarks/RESULTS.md), a trained critic
    by its labels."""
    if relevance not in ("auto", "labels", "question_likelihood"):
        msg = f"unknown relevance judgement '{relevance}': choose auto, labels or question_likelihood"
        raise ConfigurationError(msg)
    if relevance != "auto":
        return relevance
    return "question_likelihood" if prompts.context_first else "labels"


class CriticReflector(Reflector):
    """Asks a critic model each group's question and reads the likelihood of each label.

    Works with the released or a trained Self-RAG critic (``prompts="paper"``) or any instruct model
    zero-shot (``prompts="zero_shot"``, the default). For each branch, the prompts of IsRel, IsSup and
    IsUse go to the backend in one call; with ``zero_shot`` they share the instruction, passage and
    output as a prefix, which the backend reads once, and every label is scored in one batch.

    Example:
        .. code-block:: python

            from selfrag_langchain.llms import TransformersLLM
            from selfrag_langchain.reflection import CriticReflector

            critic = CriticReflector(TransformersLLM())
            critic.retrieve_distribution("Who wrote Hamlet?")
            # {'[Retrieval]': 0.71, '[No Retrieval]': 0.29, '[Continue to Use Evidence]': 0.0}
    """

    name = "critic"

    def __init__(
        self,
        llm: ReflectiveLLM,
        prompts: str | CriticPromptSet = ZERO_SHOT_CRITIC,
        *,
        calibrate: bool | None = None,
        relevance: Literal["auto", "labels", "question_likelihood"] = "auto",
    ) -> None:
        self.llm = llm
        prompts = critic_prompt_set(prompts)
        self.prompts = prompts
        self.calibrate = prompts.context_first if calibrate is None else calibrate
        """Divide each label's likelihood by its likelihood for a content-free input (contextual
        calibration, Zhao et al. 2021), so a zero-shot critic's bias towards a label word ("No", "1")
        does not decide every judgement. On by default for zero-shot prompts, off for trained critics."""
        self._priors: dict[Group, dict[str, float]] = {}
        self.relevance = resolve_relevance(relevance, prompts)
        """How IsRel is judged (``auto``: ``question_likelihood`` for zero-shot prompts, ``labels`` for a
        trained critic's). ``labels``: the likelihood of the critic's answer labels, as for every
        group. ``question_likelihood``: how much more likely the passage makes the question,
        p([Relevant]) = sigmoid(PMI / n) with PMI = log p(question | passage) - log p(question) over the
        question's n tokens, i.e. the per-token likelihood ratio of "the question was asked about this
        passage" against "it was not", with equal priors. Small instruct models answer relevance
        questions near chance but read this ratio well; it costs a second, raw-text read of the passage."""
        self._question_logprob: dict[str, float] = {}

    def retrieve_distribution(self, instruction: str, *, preceding: str | None = None) -> dict[str, float] | None:
        request, tokens = self._request(Group.RETRIEVE, instruction, preceding=preceding_sentences(preceding))
        (logprobs,) = score(self.llm, [request])
        return self._distribution(Group.RETRIEVE, tokens, logprobs)

    def critique(self, instruction: str, branches: Sequence[Branch], *, preceding: str | None = None
                 ) -> list[Critique]:
        return [self._critique_one(instruction, b, preceding_sentences(preceding)) for b in branches]

    def _critique_one(self, instruction: str, branch: Branch, preceding: str | None = None) -> Critique:
        evidence = branch.evidence
        by_likelihood = evidence is not None and self.relevance == "question_likelihood"
        queries = branch_queries(self.prompts, instruction, branch, preceding, relevance=not by_likelihood)
        groups = [q.group for q in queries]
        built = [self._query_request(q) for q in queries]
        requests = [request for request, _ in built]
        token_lists = [tokens for _, tokens in built]
        if by_likelihood:
            requests.append(self._question_request(instruction, evidence))
        scores = score(self.llm, requests)
        dists = {
            g: self._distribution(g, toks, lps) for g, toks, lps in zip(groups, token_lists, scores, strict=False)
        }
        if by_likelihood:
            dists[Group.ISREL] = self._relevance_from_likelihood(instruction, scores[-1][0])
        return Critique(relevance=dists.get(Group.ISREL), support=dists.get(Group.ISSUP), utility=dists[Group.ISUSE])

    def relevance_distributions(self, instruction: str, evidence: Sequence[str]) -> list[dict[str, float]]:
        """IsRel of each passage for the question, judged as :attr:`relevance` says (question likelihood or
        the critic's labels), all passages in one backend call."""
        if not evidence:
            return []
        if self.relevance == "question_likelihood":
            rows = score(self.llm, [self._question_request(instruction, e) for e in evidence])
            return [self._relevance_from_likelihood(instruction, row[0]) for row in rows]
        return self.judge([CriticQuery(Group.ISREL, instruction, evidence=e) for e in evidence])

    def judge(self, queries: Sequence[CriticQuery]) -> list[dict[str, float]]:
        """The distribution over each query's group, read exactly as :meth:`critique` reads it (same
        prompts, labels and calibration), all queries in one backend call."""
        if not queries:
            return []
        built = [self._query_request(q) for q in queries]
        scores = score(self.llm, [request for request, _ in built])
        return [
            self._distribution(q.group, tokens, logprobs)
            for q, (_, tokens), logprobs in zip(queries, built, scores, strict=True)
        ]

    def _relevance_from_likelihood(self, instruction: str, with_passage: float) -> dict[str, float]:
        instruction = boundary_for(self.llm)(instruction)  # as _question_request scored it
        if instruction not in self._question_logprob:
            (row,) = score(self.llm, [self._question_request(instruction, None)])
            self._question_logprob[instruction] = row[0]
        per_token = (with_passage - self._question_logprob[instruction]) / max(
            self.llm.count_tokens(" " + instruction), 1)
        p_rel = 1.0 / (1.0 + math.exp(-per_token))
        return {RELEVANT: p_rel, IRRELEVANT: 1.0 - p_rel}

    def _question_request(self, instruction: str, evidence: str | None) -> ContinuationRequest:
        """The question as a continuation of the passage (or of nothing), scored as raw text."""
        clean = boundary_for(self.llm)
        prefix = f"{clean(evidence)}\n\nQuestion:" if evidence is not None else "Question:"
        return ContinuationRequest(prefix, (" " + clean(instruction),), chat=False)

    def _distribution(self, group: Group, tokens: list[str], logprobs: list[float]) -> dict[str, float]:
        dist = from_logprobs(group, dict(zip(tokens, logprobs, strict=True)))
        if not self.calibrate:
            return dist
        prior = self._prior(group)
        return normalize(group, {tok: p / prior[tok] if prior.get(tok) else 0.0 for tok, p in dist.items()})

    def _prior(self, group: Group) -> dict[str, float]:
        """The label distribution for a content-free input, computed once per group."""
        if group not in self._priors:
            fields = {} if group is Group.RETRIEVE else {"evidence": "N/A", "output": "N/A"}
            request, tokens = self._request(group, "N/A", **fields)
            (logprobs,) = score(self.llm, [request])
            self._priors[group] = from_logprobs(group, dict(zip(tokens, logprobs, strict=True)))
        return self._priors[group]

    def _query_request(self, query: CriticQuery) -> tuple[ContinuationRequest, list[str]]:
        return self._request(query.group, query.instruction, evidence=query.evidence, output=query.output,
                             preceding=query.preceding)

    def _request(self, group: Group, instruction: str, **fields: str | None) -> tuple[ContinuationRequest, list[str]]:
        labels = self.prompts.labels(group)
        clean = boundary_for(self.llm)
        prompt = self.prompts.prompt(group, clean(instruction), **{k: clean.optional(v) for k, v in fields.items()})
        return ContinuationRequest(prompt, tuple(text for _, text in labels)), [tok for tok, _ in labels]


def branch_queries(prompts: CriticPromptSet, instruction: str, branch: Branch, preceding: str | None, *,
                   relevance: bool = True) -> list[CriticQuery]:
    """A critic's questions about one branch (IsRel unless ``relevance`` is False, IsSup, IsUse; IsUse alone
    without a passage), with the fields each prompt shows, for every critic that asks by labels."""
    output = branch.answer or "(empty)"
    if branch.evidence is None:
        groups = [Group.ISUSE]
    else:
        groups = [Group.ISREL, Group.ISSUP, Group.ISUSE] if relevance else [Group.ISSUP, Group.ISUSE]
    queries = []
    for group in groups:
        # Zero-shot prompts put the evidence in every group's prompt, so all three share a prefix.
        shown = branch.evidence if (group is not Group.ISUSE or prompts.context_first) else None
        # The released critic judges IsRel from the instruction and evidence alone (its training data).
        said = output if (group is not Group.ISREL or prompts.context_first) else None
        queries.append(CriticQuery(group, instruction, evidence=shown, output=said, preceding=preceding))
    return queries


def top_k_note(reading: GroupReading) -> str:
    """The trace note for a reading whose group tokens fell outside a backend's top-k."""
    return f"{reading.group}: {', '.join(reading.missing)} outside the backend's top-k, taken as 0"


def preceding_sentences(preceding: str | None) -> str | None:
    """The answer so far as the critic reads it (the paper's "preceding sentences"): no tokens, no passages."""
    return (strip_reflection_tokens(preceding) or None) if preceding else None
