"""A critic model judges: each group's question is asked and the likelihood of each label read, with the
released or a trained Self-RAG critic's prompts or zero-shot prompts for any instruct model."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.judging.base import Branch, CriticQuery, Critique, Reflector
from selfrag_langchain.judging.label_bias import LabelBias
from selfrag_langchain.llms.base import ContinuationRequest, ReflectiveLLM
from selfrag_langchain.llms.traced import score
from selfrag_langchain.prompts import ZERO_SHOT_CRITIC, CriticPromptSet, critic_prompt_set
from selfrag_langchain.scoring import from_logprobs, normalize
from selfrag_langchain.text.boundary import boundary_for
from selfrag_langchain.tokens import IRRELEVANT, RELEVANT, Group, strip_reflection_tokens


def resolve_relevance(relevance: str, prompts: CriticPromptSet) -> str:
    """``auto`` resolved for a prompt set: an instruct model asked zero-shot judges relevance better by how
    much more likely the passage makes the question (measured on PopQA dev), a trained critic
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
            from selfrag_langchain.judging import CriticReflector

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
        label_bias: LabelBias | None = None,
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
        self.label_bias = label_bias
        """Log-weights per label fitted on rows the critic never trained on (``selfrag train critic-bias``),
        applied to every distribution read from labels; :func:`load_label_bias` finds a trained critic's."""

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
        if self.calibrate:
            prior = self._prior(group)
            dist = normalize(group, {tok: p / prior[tok] if prior.get(tok) else 0.0 for tok, p in dist.items()})
        return self.label_bias.apply(group, dist) if self.label_bias is not None else dist

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


def preceding_sentences(preceding: str | None) -> str | None:
    """The answer so far as the critic reads it (the paper's "preceding sentences"): no tokens, no passages."""
    return (strip_reflection_tokens(preceding) or None) if preceding else None
