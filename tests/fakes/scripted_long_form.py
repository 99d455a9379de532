"""Scripted stand-ins for long-form tests: a Self-RAG generator whose answer at each step is looked up by
(depth, passage), a plain instruct generator that continues its reply as raw text, a critic with fixed
label likelihoods, and a retriever that records its queries. Everything a test asserts is known exactly."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import BaseLLM
from langchain_core.outputs import Generation, LLMResult
from langchain_core.retrievers import BaseRetriever
from pydantic import Field

from selfrag_langchain.llms.base import INFO_KEY, ContinuationRequest, GenerationStats, GroupReading
from selfrag_langchain.tokens import (
    CONTINUE_EVIDENCE,
    NO_RETRIEVAL,
    RETRIEVAL,
    Group,
    parse_generation,
)
from tests.fakes.plain_llm import InstructStandIn
from tests.fakes.selfrag_vocabulary import SelfRAGVocabulary

Step = tuple[str, GenerationStats]
"""Generated text (before stop strings are applied) and the stats a backend would report."""


def stats(n: int = 10, sum_logprob: float = -1.0, *readings: GroupReading, finish: str = "stop") -> GenerationStats:
    return GenerationStats(num_tokens=n, sum_logprob=sum_logprob, readings=tuple(readings), finish_reason=finish)


def reading(group: Group, probs: dict[str, float], index: int = 0) -> GroupReading:
    return GroupReading(group=group, token=max(probs, key=probs.__getitem__), index=index, probs=probs, mass=1.0)


def _cut_at_stop(text: str, stop: list[str] | None) -> str:
    cuts = [text.find(s) for s in stop or [] if s in text]
    return text[: min(cuts)] if cuts else text


class ScriptedLongFormLLM(SelfRAGVocabulary, BaseLLM):
    """A Self-RAG generator: the step's answer is ``script[(depth, title)]``, depth being the number of
    segments already in the prompt and title the passage of the step (None without one). It honours stop
    strings as backends do (the text ends before the stop string; the stats are as scripted)."""

    script: dict[tuple[int, str | None], Step]
    retrieve_logprobs: dict[int, dict[str, float]] = Field(default_factory=dict)
    """log p of each Retrieve token after ``depth`` segments (what the inline judge scores)."""
    calls: list[list[str]] = Field(default_factory=list)
    """The prompts of each generate call."""
    stops: list[list[str] | None] = Field(default_factory=list)
    judged: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-long-form"

    def _generate(self, prompts: list[str], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> LLMResult:
        self.calls.append(list(prompts))
        self.stops.append(stop)
        generations = []
        for prompt in prompts:
            key = self.key(prompt)
            if key not in self.script:
                raise KeyError(f"no scripted step for {key}: {prompt!r}")
            text, info = self.script[key]
            generations.append([Generation(text=_cut_at_stop(text, stop), generation_info={INFO_KEY: info.to_dict()})])
        return LLMResult(generations=generations)

    @staticmethod
    def key(prompt: str) -> tuple[int, str | None]:
        context = prompt.split("### Response:\n", 1)[1]
        segments = parse_generation(context).segments
        depth = sum(1 for s in segments if s.text.strip())
        current = segments[-1]
        if current.retrieve == CONTINUE_EVIDENCE:
            return depth, "continue"
        title = current.passage.split("\n", 1)[0] if current.passage is not None else None
        return depth, title

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        out = []
        for r in requests:
            self.judged.append(r.prompt)
            depth = len([s for s in parse_generation(r.prompt.split("### Response:\n", 1)[1]).segments
                         if s.text.strip()])
            table = self.retrieve_logprobs.get(depth, {RETRIEVAL: -0.5, NO_RETRIEVAL: -2.0, CONTINUE_EVIDENCE: -9.0})
            out.append([table.get(c, -50.0) for c in r.continuations])
        return out


class ScriptedPlainLLM(BaseLLM):
    """A plain instruct generator with a chat template: ``format_prompt`` wraps a request in
    ``<user>...</user><assistant>``, and a copy with ``chat_template=False`` reads raw text, so the long-form
    loop continues its reply. The answer is ``script[(depth, title)]``, depth counting the sentences of the
    reply so far."""

    script: dict[tuple[int, str | None], tuple[str, str]]
    """(depth, passage title) -> (generated text, finish reason)."""
    chat_template: bool | None = None
    calls: list[list[str]] = Field(default_factory=list)
    sentence_stop: bool = False
    """Honour ``stop_at_sentence_end`` as the in-process backends do: stop after the first word of the
    second sentence, finishing with ``sentence``."""
    asked_sentence_stop: list[bool] = Field(default_factory=list)
    """Whether each generate call asked to stop at the end of the first sentence."""

    @property
    def stops_at_sentence_end(self) -> bool:
        return self.sentence_stop

    @property
    def _llm_type(self) -> str:
        return "scripted-plain"

    def format_prompt(self, prompt: str) -> str:
        return prompt if self.chat_template is False else f"<user>{prompt}</user><assistant>"

    def _generate(self, prompts: list[str], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> LLMResult:
        self.calls.append(list(prompts))
        generations = []
        for prompt in prompts:
            text = self.format_prompt(prompt)
            so_far = text.split("<assistant>", 1)[1]
            depth = len(re.findall(r"[.!?](?:\s|$)", so_far))
            title = re.search(r"Passage: ([^\n]*)\n", text)
            key = (depth, title.group(1) if title else None)
            if key not in self.script:
                raise KeyError(f"no scripted step for {key}: {text!r}")
            out, finish = self.script[key]
            pieces = re.findall(r"\s*\S+", out)  # a word and the space before it is one token
            first = len(re.match(r"\s*.*?[.!?](?=\s|$)", out, re.S).group(0)) if re.search(r"[.!?]", out) else len(out)
            if kwargs.get("stop_at_sentence_end") and self.sentence_stop and first < len(out.rstrip()):
                at = len(re.match(r"\s*.*?[.!?]\s*\S+", out, re.S).group(0))
                out, finish = out[:at], "sentence"
                pieces = re.findall(r"\s*\S+", out)
            ends = [sum(len(p) for p in pieces[: i + 1]) for i in range(len(pieces))]
            # Words of the first sentence are likely (-0.1 each), words after it unlikely (-2.0 each).
            logprobs = [-0.1 if (ends[i - 1] if i else 0) < first else -2.0 for i in range(len(pieces))]
            info = GenerationStats(num_tokens=len(pieces), sum_logprob=sum(logprobs), finish_reason=finish,
                                   token_logprobs=tuple(logprobs), token_ends=tuple(ends))
            generations.append([Generation(text=out, generation_info={INFO_KEY: info.to_dict()})])
        self.asked_sentence_stop.append(bool(kwargs.get("stop_at_sentence_end")))
        return LLMResult(generations=generations)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


class ScriptedCritic(InstructStandIn):
    """A critic whose label log-likelihoods come from ``judge(prompt) -> {label: logprob}``; it records
    every prompt it was asked."""

    judge: Callable[[str], dict[str, float]]
    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-critic"

    def _generate(self, prompts: list[str], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> LLMResult:
        raise AssertionError("a critic is never asked to generate")

    def score_continuations(self, requests: Sequence[ContinuationRequest]) -> list[list[float]]:
        out = []
        for r in requests:
            self.prompts.append(r.prompt)
            table = self.judge(r.prompt)
            out.append([table.get(c, -5.0) for c in r.continuations])
        return out


class RecordingRetriever(BaseRetriever):
    """Returns ``results[query]`` (or ``default``), recording each query; raises on the calls in ``fail_on``."""

    results: dict[str, list[Document]] = Field(default_factory=dict)
    default: list[Document] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    fail_on: set[int] = Field(default_factory=set)
    """0-based numbers of the calls that raise ConnectionError."""

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun
                                ) -> list[Document]:
        self.queries.append(query)
        if len(self.queries) - 1 in self.fail_on:
            raise ConnectionError("store offline")
        return list(self.results.get(query, self.default))


# ---------------------------------------------------------------------- a scenario shared by several tests

REL = {"[Relevant]": 0.9, "[Irrelevant]": 0.1}
IRR = {"[Relevant]": 0.2, "[Irrelevant]": 0.8}
FULL = {"[Fully supported]": 0.7, "[Partially supported]": 0.2, "[No support / Contradictory]": 0.1}
PART = {"[Fully supported]": 0.2, "[Partially supported]": 0.7, "[No support / Contradictory]": 0.1}
NOSUP = {"[Fully supported]": 0.1, "[Partially supported]": 0.1, "[No support / Contradictory]": 0.8}
QUESTION = "Tell me about the Eiffel Tower."


def doc(title: str) -> Document:
    return Document(page_content=f"What the encyclopedia says about {title}.", metadata={"title": title})


def judged(text: str, rel: dict[str, float], sup: dict[str, float], *extra: GroupReading,
           n: int = 10, sum_logprob: float = -1.0, finish: str = "stop") -> Step:
    """A released-format step: ``[IsRel]text[IsSup]`` with those distributions read at the tokens."""
    return (f"{max(rel, key=rel.__getitem__)}{text}{max(sup, key=sup.__getitem__)}"
            + "".join(r.token for r in extra),
            stats(n, sum_logprob, reading(Group.ISREL, rel), reading(Group.ISSUP, sup), *extra, finish=finish))


def greedy_trap() -> tuple[ScriptedLongFormLLM, RecordingRetriever]:
    """Depth 0: the Eiffel passage scores best, but every continuation of it is irrelevant and unsupported;
    the Paris passage scores lower and leads to a well-supported second segment. Greedy search (beam 1)
    keeps Eiffel; beam 2 finds the better answer through Paris."""
    retriever = RecordingRetriever(results={
        QUESTION: [doc("Eiffel Tower"), doc("Paris")],
        f"{QUESTION} The Eiffel Tower is in Paris.": [doc("Gustave Eiffel"), doc("Wrought iron")],
        f"{QUESTION} Paris is the capital of France.": [doc("Louvre"), doc("Seine")],
    })
    llm = ScriptedLongFormLLM(script={
        (0, "Eiffel Tower"): judged("The Eiffel Tower is in Paris.", REL, FULL),
        (0, "Paris"): judged("Paris is the capital of France.", REL, PART),
        (1, "Gustave Eiffel"): judged("Gustave Eiffel was born in Dijon.", IRR, NOSUP),
        (1, "Wrought iron"): judged("Iron rusts.", IRR, NOSUP),
        (1, "Louvre"): judged("The Louvre is in Paris.", REL, FULL),
        (1, "Seine"): judged("The Seine flows through Paris.", REL, PART),
    })
    return llm, retriever
