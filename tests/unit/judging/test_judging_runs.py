"""Judging is visible to LangChain: critic and retrieve-decision scoring are LLM runs under their steps."""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.outputs import LLMResult

from selfrag_langchain import CriticReflector, SelfRAG, SelfRAGLongForm
from selfrag_langchain.retrievers import PassageRetriever
from tests.fakes.plain_llm import PlainLLM


class _Runs(BaseCallbackHandler):
    """Every chain and LLM run: name, parent, tags and metadata."""

    def __init__(self) -> None:
        self.runs: dict[UUID, dict[str, Any]] = {}

    def _add(self, kind: str, run_id: UUID, parent_run_id: UUID | None, kwargs: dict[str, Any], **extra: Any) -> None:
        self.runs[run_id] = {"kind": kind, "name": kwargs.get("name"), "parent": parent_run_id,
                             "tags": kwargs.get("tags") or [], "metadata": kwargs.get("metadata") or {}, **extra}

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                       **kwargs: Any) -> None:
        self._add("chain", run_id, parent_run_id, kwargs)

    def on_llm_start(self, serialized: Any, prompts: list[str], *, run_id: UUID, parent_run_id: UUID | None = None,
                     **kwargs: Any) -> None:
        self._add("llm", run_id, parent_run_id, kwargs, prompt=prompts[0])

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        self.runs[run_id]["output"] = response.generations[0][0]

    def llm_runs_under(self, step: str) -> list[dict[str, Any]]:
        return [r for r in self.runs.values() if r["kind"] == "llm" and self.runs[r["parent"]]["name"] == step]


def _rag(cls: type = SelfRAG, **fields: Any) -> Any:
    llm = PlainLLM()
    docs = [Document(page_content="Paris is the capital of France.", metadata={"title": "Paris"}),
            Document(page_content="Lyon is a city.", metadata={"title": "Lyon"})]
    return cls(generator=llm, reflector=CriticReflector(llm), retriever=PassageRetriever(passages=docs), k=2,
               **fields)


CONFIG = {"tags": ["user-tag"], "metadata": {"session": "s1"}}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_every_model_call_is_an_llm_run_under_its_step(mode: str) -> None:
    runs = _Runs()
    rag = _rag()
    config = {**CONFIG, "callbacks": [runs]}
    if mode == "sync":
        rag.invoke("What is the capital of France?", config)
    else:
        asyncio.run(rag.ainvoke("What is the capital of France?", config))
    decide = runs.llm_runs_under("retrieve_decision")
    critique = runs.llm_runs_under("critique")
    generate = runs.llm_runs_under("generate_branches")
    assert len(decide) == 2  # the Retrieve question and its content-free prior (calibration)
    assert "encyclopedia" in decide[0]["prompt"]
    # The Lyon passage names nothing the question names, so its branch is not written and only its IsRel is
    # asked (the question's likelihood given it). The written branch: IsSup and IsUse labels and the
    # question's likelihood given its passage; then the question alone and the IsSup/IsUse priors, each once.
    assert len(critique) == 3 + 1 + 3
    assert {r["output"].text for r in critique if "supported by the evidence" in r["prompt"]} == {"Fully"}
    assert all(set(r["output"].generation_info["logprobs"]) for r in critique)
    assert len(generate) == 1 and "Paris is the capital" in generate[0]["prompt"]  # one run per written branch
    llm_runs = [r for r in runs.runs.values() if r["kind"] == "llm"]
    assert len(llm_runs) == len(decide) + len(critique) + len(generate)  # none outside a step
    for run in llm_runs:
        assert "user-tag" in run["tags"] and run["metadata"].get("session") == "s1"


def test_long_form_judging_is_under_its_judge_steps() -> None:
    runs = _Runs()
    _rag(SelfRAGLongForm, max_depth=1, mode="always").invoke("Tell me about Paris.", {"callbacks": [runs]})
    parents = {runs.runs[r["parent"]]["name"] for r in runs.runs.values() if r["kind"] == "llm"}
    assert parents and all(name.startswith(("critique", "generate", "retrieve_decision")) for name in parents), parents


def test_astream_events_reports_the_critic_runs() -> None:
    async def events() -> list[dict[str, Any]]:
        return [e async for e in _rag().astream_events("What is the capital of France?", version="v2")]

    seen = asyncio.run(events())
    steps = {e["run_id"]: e["name"] for e in seen if e["event"] == "on_chain_start"}
    scored = [e for e in seen if e["event"] == "on_llm_start" and e["name"] == "score_continuations"]
    assert scored
    assert {steps[e["parent_ids"][-1]] for e in scored} == {"retrieve_decision", "critique"}
