"""The paper's own judge: a fine-tuned Self-RAG generator judges itself, its distributions read from its
token probabilities where it generated the reflection tokens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.judging.base import Branch, CriticQuery, Critique, Reflector, top_k_note
from selfrag_langchain.llms.base import ContinuationRequest, ReflectiveLLM
from selfrag_langchain.llms.traced import score
from selfrag_langchain.prompts import generator_prompt, selfrag_branch_prompt
from selfrag_langchain.scoring import from_logprobs
from selfrag_langchain.text.boundary import boundary_for
from selfrag_langchain.tokens import (
    CONTINUE_EVIDENCE,
    GROUP_TOKENS,
    NO_RETRIEVAL,
    RELEVANT,
    RETRIEVAL,
    TOKEN_GROUP,
    Group,
)


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
        would emit its IsRel token, all in one backend call (:meth:`judge` asked about IsRel)."""
        return self.judge([CriticQuery(Group.ISREL, instruction, evidence=e) for e in evidence])

    def judge(self, queries: Sequence[CriticQuery]) -> list[dict[str, float]]:
        """The next-token distribution over each query's group where the generator's format would emit it,
        all in one backend call: Retrieve after the prompt (and the answer so far), IsRel after the passage,
        IsSup after ``[Relevant]`` and the output, IsUse after the output written without retrieval (the
        paper's IsUse judges the output for the question alone).

        Raises:
            ValueError: for a query without the fields its group needs (a passage for IsRel, a passage and
                an output for IsSup, an output for IsUse).
        """
        if not queries:
            return []
        self.check_generator(self.llm)
        requests = [self._position(q) for q in queries]
        rows = score(self.llm, requests)
        return [from_logprobs(q.group, dict(zip(r.continuations, lps, strict=True)))
                for q, r, lps in zip(queries, requests, rows, strict=True)]

    def _position(self, query: CriticQuery) -> ContinuationRequest:
        clean = boundary_for(self.llm)
        instruction = clean(query.instruction)
        needs = {Group.ISREL: ("evidence",), Group.ISSUP: ("evidence", "output"), Group.ISUSE: ("output",)}
        missing = [name for name in needs.get(query.group, ()) if getattr(query, name) is None]
        if missing:
            msg = f"an inline {query.group} judgement needs the query's {' and '.join(missing)}"
            raise ValueError(msg)
        if query.group is Group.RETRIEVE:
            preceding = clean(query.preceding) if query.preceding else ""
            tokens = (RETRIEVAL, NO_RETRIEVAL, CONTINUE_EVIDENCE) if preceding else (RETRIEVAL, NO_RETRIEVAL)
            return ContinuationRequest(generator_prompt(instruction) + preceding, tokens)
        if query.group is Group.ISUSE:
            prompt = selfrag_branch_prompt(instruction, None) + clean(query.output or "")
        else:
            prompt = selfrag_branch_prompt(instruction, clean(query.evidence or ""))
            if query.group is Group.ISSUP:
                prompt += RELEVANT + clean(query.output or "")
        return ContinuationRequest(prompt, GROUP_TOKENS[query.group])

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
