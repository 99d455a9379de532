"""The examples run as users would run them, on the real default model and real stores."""

from __future__ import annotations

import pytest

from selfrag_langchain.llms.transformers import TransformersLLM

pytestmark = pytest.mark.slow


def test_lcel_chain_returns_parsed_answer_with_citation(smollm2: TransformersLLM) -> None:
    from examples.lcel_chain import main

    text = main()
    answer, *sources = text.splitlines()
    assert "Leonardo" in answer
    assert sources == ["[1] Mona Lisa"]


def test_same_runnable_over_three_vector_stores(smollm2: TransformersLLM) -> None:
    from examples.swap_vector_stores import main

    results = main()
    assert set(results) == {"chroma", "faiss", "in-memory"}
    # Same passages, same greedy model: swapping the store must not change the answer or its source.
    assert len(set(results.values())) == 1
    answer, title = results["chroma"]
    assert answer.strip() and title in {"Eiffel Tower", "Mona Lisa"}  # the two Paris passages rank top-2


def test_langgraph_node(smollm2: TransformersLLM) -> None:
    from examples.langgraph_node import main

    state = main()
    result = state["result"]
    assert result.answer.strip() and len(result.citations) == int(result.retrieved)
    cited = "; ".join(f"[1] {d.metadata['title']}" for d in result.citations) or "none"
    assert state["reply"] == f"{result.answer} (sources: {cited})"


def test_agent_calls_selfrag_tool(smollm2: TransformersLLM) -> None:
    from examples.agent_tool import main

    messages = main()
    tool_messages = [m for m in messages if m.type == "tool"]
    assert len(tool_messages) == 1
    assert "8,849" in tool_messages[0].content and tool_messages[0].content.endswith("[1] Mount Everest")
