"""Settings no run can serve are refused at once, in one line, instead of running for minutes."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from selfrag_langchain import CriticReflector, SelfRAG, SelfRAGLongForm
from selfrag_langchain.chains.controls import MAX_K
from selfrag_langchain.errors import ConfigurationError
from tests.fakes.plain_llm import PlainLLM


def _small_window() -> PlainLLM:
    """A generator with a 256-token context window."""
    return PlainLLM(answer="An answer.", window=256)


@pytest.mark.parametrize("cls", [SelfRAG, SelfRAGLongForm])
def test_more_branches_than_the_limit_are_refused(cls: type) -> None:
    llm = _small_window()
    with pytest.raises(ValidationError, match=rf"k must be at most {MAX_K} \(each passage .*got 1000"):
        cls(generator=llm, reflector=CriticReflector(llm), k=1000)
    assert cls(generator=llm, reflector=CriticReflector(llm), k=MAX_K).k == MAX_K


def test_an_answer_budget_the_context_cannot_hold_is_refused_before_any_model_call() -> None:
    llm = _small_window()
    rag = SelfRAG(generator=llm, reflector=CriticReflector(llm), max_new_tokens=200, mode="never")
    with pytest.raises(ConfigurationError, match=r"^max_new_tokens 200 leaves .* 256-token .*under 128 tokens$"):
        rag.invoke("Who?")
    assert llm.calls == 0
    assert SelfRAG(generator=llm, reflector=CriticReflector(llm), max_new_tokens=127, mode="never").invoke(
        "Who?").answer == "An answer."


def test_long_form_counts_the_answer_so_far_and_a_segment() -> None:
    llm = _small_window()
    rag = SelfRAGLongForm(generator=llm, reflector=CriticReflector(llm), max_new_tokens=100, max_segment_tokens=48,
                          mode="never")
    with pytest.raises(ConfigurationError, match=r"^max_new_tokens \+ max_segment_tokens \(100 \+ 48\) leaves"):
        rag.invoke("Tell me about Paris.")
    assert llm.calls == 0
