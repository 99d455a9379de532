"""A critic on any LangChain chat model that returns top log-probabilities.

Hosted chat APIs, ``vllm serve`` and llama.cpp's server answer chat requests with the top
log-probabilities of each generated token, but cannot score a fixed continuation, which
:class:`~selfrag_langchain.judging.critic.CriticReflector` needs. This critic asks each group's question as one
human message, lets the model write one token, and reads the group's distribution from that token's top
log-probabilities: how likely the answer is to start the way each label starts. Labels whose first token is
not among the returned top-k get probability 0 and are reported exactly as the top-k backends report
their group tokens (:class:`~selfrag_langchain.llms.base.GroupReading` ``missing``, a note in the trace).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import Runnable, RunnableConfig

from selfrag_langchain.errors import BackendError, ConfigurationError
from selfrag_langchain.judging.base import Branch, CriticQuery, Critique, Reflector, top_k_note
from selfrag_langchain.judging.critic import branch_queries, preceding_sentences
from selfrag_langchain.llms.base import GroupReading
from selfrag_langchain.prompts import ZERO_SHOT_CRITIC, CriticPromptSet, critic_prompt_set
from selfrag_langchain.scoring import normalize
from selfrag_langchain.text.boundary import boundary_for
from selfrag_langchain.tokens import Group

DEFAULT_TOP_LOGPROBS = 20
"""The most top log-probabilities OpenAI's chat API and vLLM's default ``--max-logprobs`` return."""


def openai_logprob_kwargs(top_logprobs: int) -> dict[str, Any]:
    """What an OpenAI-compatible chat model (``ChatOpenAI``) is bound with: one token, its top-k."""
    return {"logprobs": True, "top_logprobs": top_logprobs, "max_tokens": 1}


def first_token_logprobs(message: BaseMessage) -> tuple[str, list[tuple[str, float]]]:
    """The first generated token and its top ``(token, logprob)`` pairs, from an ``AIMessage`` in the
    OpenAI format (``response_metadata["logprobs"]["content"][0]["top_logprobs"]``).

    Raises:
        BackendError: the response carries no top log-probabilities.
    """
    logprobs = (message.response_metadata or {}).get("logprobs") or {}
    content = logprobs.get("content") if isinstance(logprobs, Mapping) else None
    first = content[0] if content else None
    top = first.get("top_logprobs") if isinstance(first, Mapping) else None
    if not top:
        msg = (
            "the chat model returned no top log-probabilities (response_metadata['logprobs']['content'][0]"
            "['top_logprobs']): the chat critic reads its labels from them. Bind logprobs=True and "
            "top_logprobs=K (the default bind_kwargs do, for OpenAI-compatible chat models) and enable them "
            "on the server (llama-cpp-python: --logits_all True; vLLM: --max-logprobs >= K)"
        )
        raise BackendError(msg)
    pairs = [(str(t["token"]), float(t["logprob"])) for t in top]
    chosen = str(first.get("token", pairs[0][0]))
    if first.get("logprob") is not None and chosen not in {tok for tok, _ in pairs}:
        pairs.append((chosen, float(first["logprob"])))
    return chosen, pairs


def label_first_tokens(labels: Sequence[str], top: Sequence[tuple[str, float]]) -> dict[str, str | None]:
    """For each label text, the token text (stripped) it starts with among ``top``, or None if absent.

    A token can start a label when its text, without surrounding whitespace, is a non-empty prefix of the
    label (case as written) and of no other label of the group: "[" starts every bracketed label and tells
    none apart. Of those, the longest is taken as the label's first token ("Yes" over "Y"), so a
    one-token label reads exactly its token, and a longer one ("Fully": "F", "ul", "ly") its first piece.
    """
    texts = {tok.strip() for tok, _ in top} - {""}
    first: dict[str, str | None] = {}
    for label in labels:
        own = [t for t in texts if label.startswith(t) and not any(o.startswith(t) for o in labels if o != label)]
        first[label] = max(own, key=len) if own else None
    return first


def label_reading(group: Group, labels: Sequence[tuple[str, str]], token: str,
                  top: Sequence[tuple[str, float]]) -> GroupReading:
    """The group's reading at the first answer token, from its top log-probabilities.

    ``labels`` are (group token, label text) pairs. A label's probability is the summed probability of
    the top-k tokens that are its first token, with or without whitespace around it (" No", "No");
    normalised over the labels seen. Labels with none of them are 0 and named in ``missing``.
    """
    first = label_first_tokens([text for _, text in labels], top)
    seen: dict[str, float] = {}
    for tok, text in labels:
        start = first[text]
        if start is not None:
            seen[tok] = math.fsum(math.exp(lp) for t, lp in top if t.strip() == start)
    mass = math.fsum(seen.values())
    probs = {tok: (seen.get(tok, 0.0) / mass if mass > 0 else 0.0) for tok in group.tokens}
    missing = tuple(tok for tok, _ in labels if tok not in seen)
    return GroupReading(group, token, 0, probs, mass, exact=not missing, missing=missing)


def distribution(reading: GroupReading) -> dict[str, float]:
    """The reading as a group distribution: uniform when no label was seen, as nothing tells them apart."""
    return normalize(reading.group, reading.probs)


class ChatCriticReflector(Reflector):
    """Asks a chat model each group's question and reads the label distribution from the top
    log-probabilities of its first answer token.

    For chat models served by OpenAI-compatible endpoints (hosted APIs, ``vllm serve --max-logprobs 20``,
    ``python -m llama_cpp.server --logits_all True``), where the critic's labels cannot be scored as
    continuations. IsRel is asked like every group (a chat API cannot score how likely a passage makes the
    question). The questions about K branches go out as one ``batch`` (``abatch`` when async). The
    default prompts are the zero-shot ones, plain words an instruct model answers readily; no contextual
    calibration is applied.

    Set up:
        .. code-block:: bash

            pip install langchain-openai
            python -m llama_cpp.server --model model.gguf --model_alias smollm2 --logits_all True

    Construct and invoke:
        .. code-block:: python

            from langchain_openai import ChatOpenAI
            from selfrag_langchain import ChatCriticReflector

            chat = ChatOpenAI(base_url="http://127.0.0.1:8000/v1", api_key="none", model="smollm2",
                              temperature=0)
            # llama-cpp-python reads max_tokens, which ChatOpenAI sends as max_completion_tokens
            critic = ChatCriticReflector(chat, bind_kwargs={"extra_body": {"max_tokens": 1}})
            critic.retrieve_distribution("Who wrote Hamlet?")
            # {'[Retrieval]': 0.24, '[No Retrieval]': 0.76, '[Continue to Use Evidence]': 0.0}

    Async:
        .. code-block:: python

            await critic.aretrieve_distribution("Who wrote Hamlet?")

    Use in a chain:
        .. code-block:: python

            rag = SelfRAG(generator=my_llm, reflector=critic, retriever=my_retriever)
    """

    name = "chat_critic"

    def __init__(
        self,
        model: BaseChatModel,
        prompts: str | CriticPromptSet = ZERO_SHOT_CRITIC,
        *,
        top_logprobs: int = DEFAULT_TOP_LOGPROBS,
        bind_kwargs: Mapping[str, Any] | None = None,
        max_concurrency: int | None = 8,
    ) -> None:
        """Args:
            model: any LangChain chat model whose ``AIMessage.response_metadata["logprobs"]`` carries the
                top log-probabilities in OpenAI's format.
            prompts: ``zero_shot`` (default), ``paper`` (for a critic whose vocabulary has the bracketed
                labels as tokens) or a :class:`CriticPromptSet`.
            top_logprobs: how many log-probabilities to ask for at the first answer token; a label whose
                first token falls outside them reads 0 and is reported missing.
            bind_kwargs: merged over :func:`openai_logprob_kwargs` before ``model.bind``; a key set to None
                is dropped, for providers that name these settings otherwise.
            max_concurrency: requests in flight at once within one batch (None: no limit).

        Raises:
            ConfigurationError: ``top_logprobs`` below 1 or ``max_concurrency`` below 1.
            ModelLoadError: unknown prompt set name.
        """
        if top_logprobs < 1:
            msg = f"top_logprobs must be >= 1, got {top_logprobs}"
            raise ConfigurationError(msg)
        if max_concurrency is not None and max_concurrency < 1:
            msg = f"max_concurrency must be >= 1 or None, got {max_concurrency}"
            raise ConfigurationError(msg)
        prompts = critic_prompt_set(prompts)
        self.model = model
        self.prompts = prompts
        self.top_logprobs = top_logprobs
        kwargs = {**openai_logprob_kwargs(top_logprobs), **(bind_kwargs or {})}
        self.bind_kwargs = {key: value for key, value in kwargs.items() if value is not None}
        """What every request is bound with."""
        self.max_concurrency = max_concurrency
        self.runnable: Runnable[Any, BaseMessage] = model.bind(**self.bind_kwargs)

    # ----------------------------------------------------------------- readings

    def readings(self, queries: Sequence[CriticQuery]) -> list[GroupReading]:
        """Each query's reading (probabilities, labels outside the top-k), all queries in one batch."""
        if not queries:
            return []
        responses = self.runnable.batch(self._messages(queries), config=self._config())
        return self._read(queries, responses)

    async def areadings(self, queries: Sequence[CriticQuery]) -> list[GroupReading]:
        """:meth:`readings` on the event loop (``abatch``)."""
        if not queries:
            return []
        responses = await self.runnable.abatch(self._messages(queries), config=self._config())
        return self._read(queries, responses)

    def _config(self) -> RunnableConfig:
        return RunnableConfig(max_concurrency=self.max_concurrency) if self.max_concurrency else RunnableConfig()

    def _messages(self, queries: Sequence[CriticQuery]) -> list[list[BaseMessage]]:
        # A chat API's tokenizer is rarely known here: then the boundary removes the common templates' controls.
        clean = boundary_for(self.model)
        return [[HumanMessage(self.prompts.prompt(q.group, clean(q.instruction), evidence=clean.optional(q.evidence),
                                                  output=clean.optional(q.output),
                                                  preceding=clean.optional(q.preceding)))] for q in queries]

    def _read(self, queries: Sequence[CriticQuery], responses: Sequence[BaseMessage]) -> list[GroupReading]:
        readings = []
        for query, response in zip(queries, responses, strict=True):
            token, top = first_token_logprobs(response)
            readings.append(label_reading(query.group, self.prompts.labels(query.group), token, top))
        return readings

    # ----------------------------------------------------------------- the Reflector interface

    def judge(self, queries: Sequence[CriticQuery]) -> list[dict[str, float]]:
        """The distribution over each query's group, read as :meth:`critique` reads it, in one batch."""
        return [distribution(r) for r in self.readings(queries)]

    async def ajudge(self, queries: Sequence[CriticQuery]) -> list[dict[str, float]]:
        return [distribution(r) for r in await self.areadings(queries)]

    def retrieve_distribution(self, instruction: str, *, preceding: str | None = None) -> dict[str, float]:
        (dist,) = self.judge([_retrieve_query(instruction, preceding)])
        return dist

    async def aretrieve_distribution(self, instruction: str, *, preceding: str | None = None) -> dict[str, float]:
        (dist,) = await self.ajudge([_retrieve_query(instruction, preceding)])
        return dist

    def relevance_distributions(self, instruction: str, evidence: Sequence[str]) -> list[dict[str, float]]:
        """IsRel of each passage by the critic's labels, all passages in one batch."""
        return self.judge(_relevance_queries(instruction, evidence))

    async def arelevance_distributions(self, instruction: str, evidence: Sequence[str]) -> list[dict[str, float]]:
        return await self.ajudge(_relevance_queries(instruction, evidence))

    def critique(self, instruction: str, branches: Sequence[Branch], *, preceding: str | None = None
                 ) -> list[Critique]:
        """IsRel, IsSup and IsUse of every branch, all questions in one batch."""
        per_branch = self._branch_queries(instruction, branches, preceding)
        return _critiques(per_branch, self.readings([q for qs in per_branch for q in qs]))

    async def acritique(self, instruction: str, branches: Sequence[Branch], *, preceding: str | None = None
                        ) -> list[Critique]:
        per_branch = self._branch_queries(instruction, branches, preceding)
        return _critiques(per_branch, await self.areadings([q for qs in per_branch for q in qs]))

    def _branch_queries(self, instruction: str, branches: Sequence[Branch], preceding: str | None
                        ) -> list[list[CriticQuery]]:
        sentences = preceding_sentences(preceding)
        return [branch_queries(self.prompts, instruction, b, sentences) for b in branches]


def _retrieve_query(instruction: str, preceding: str | None) -> CriticQuery:
    return CriticQuery(Group.RETRIEVE, instruction, preceding=preceding_sentences(preceding))


def _relevance_queries(instruction: str, evidence: Sequence[str]) -> list[CriticQuery]:
    return [CriticQuery(Group.ISREL, instruction, evidence=e) for e in evidence]


def _critiques(per_branch: Sequence[Sequence[CriticQuery]], readings: Sequence[GroupReading]) -> list[Critique]:
    """One critique per branch from the flat readings of its queries, with a note per incomplete reading."""
    flat = iter(readings)
    critiques = []
    for queries in per_branch:
        by_group = {q.group: next(flat) for q in queries}
        critiques.append(Critique(
            relevance=distribution(by_group[Group.ISREL]) if Group.ISREL in by_group else None,
            support=distribution(by_group[Group.ISSUP]) if Group.ISSUP in by_group else None,
            utility=distribution(by_group[Group.ISUSE]),
            notes=[top_k_note(r) for r in by_group.values() if not r.exact],
        ))
    return critiques
