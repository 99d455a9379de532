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
    # The answer comes from the Everest passage and cites it (with the passage's-words prompt the 135M model
    # answers "Mount Everest is the highest mountain on Earth.", without the height: benchmarks/RESULTS.md).
    assert "Everest" in tool_messages[0].content and tool_messages[0].content.endswith("[1] Mount Everest")


def test_chatbot_answers_a_conversation_with_citations(smollm2: TransformersLLM, tmp_path) -> None:
    from examples.chatbot import QUESTIONS, main
    from selfrag_langchain.history import SQLiteChatMessageHistory

    turns = main(QUESTIONS, history_file=tmp_path / "chat.sqlite3")
    assert [t.question for t in turns] == QUESTIONS
    assert turns[0].standalone_question == QUESTIONS[0] and turns[1].standalone_question.strip()
    assert [d.metadata["title"] for d in turns[0].citations][:1] == ["Mona Lisa"]
    for t in turns:
        assert t.answer.strip() and t.result.retrievals >= 1
        assert {s.citation for s in t.result.segments} - {None} == set(range(1, len(t.citations) + 1))
    history = SQLiteChatMessageHistory("example", tmp_path / "chat.sqlite3").messages
    assert [m.content for m in history] == [QUESTIONS[0], turns[0].answer, QUESTIONS[1], turns[1].answer]
