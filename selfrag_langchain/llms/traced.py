"""Continuation scoring reported to LangChain callbacks as LLM runs of the step that asked for it.

A judge's label scoring and question likelihoods are most of the compute of a question, but they go to
:meth:`~selfrag_langchain.llms.base.ReflectiveLLM.score_continuations`, which is not a LangChain call. Made
through :func:`score`, each prompt is an LLM run under the current step (``retrieve_decision``, ``critique``,
a long-form ``judge`` step): tracing, callbacks and ``astream_events`` see its prompt, the continuations'
log-probabilities and its time, with the caller's tags and metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManager
from langchain_core.outputs import Generation, LLMResult
from langchain_core.runnables.config import ensure_config

from selfrag_langchain.llms.base import ContinuationRequest, ReflectiveLLM


def score(llm: ReflectiveLLM, requests: Sequence[ContinuationRequest], *, name: str = "score_continuations"
          ) -> list[list[float]]:
    """``llm.score_continuations(requests)``, each request reported as an LLM run named ``name`` under the
    run that is current in this context (the Runnable step calling the judge)."""
    config = ensure_config()
    manager = CallbackManager.configure(config.get("callbacks"), None, inheritable_tags=config.get("tags"),
                                        inheritable_metadata=config.get("metadata"))
    if not manager.handlers:
        return llm.score_continuations(requests)
    runs = manager.on_llm_start(_serialized(llm), [r.prompt for r in requests], name=name,
                                invocation_params={"continuations": [list(r.continuations) for r in requests],
                                                   "chat_template": [r.chat for r in requests]})
    try:
        rows = llm.score_continuations(requests)
    except BaseException as e:
        for run in runs:
            run.on_llm_error(e)
        raise
    for run, request, row in zip(runs, requests, rows, strict=True):
        run.on_llm_end(LLMResult(generations=[[_generation(request, row)]]))
    return rows


def _generation(request: ContinuationRequest, logprobs: Sequence[float]) -> Generation:
    """The most likely continuation as the run's text, every continuation's log-probability beside it."""
    best = max(range(len(logprobs)), key=logprobs.__getitem__)
    return Generation(text=request.continuations[best],
                      generation_info={"logprobs": dict(zip(request.continuations, logprobs, strict=True))})


def _serialized(llm: Any) -> dict[str, Any]:
    name = type(llm).__name__
    model = getattr(llm, "model", None)
    return {"name": name, "id": [type(llm).__module__, name], "kwargs": {"model": str(model)} if model else {}}
