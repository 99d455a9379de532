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
    assert "Gustave Eiffel" in answer and title == "Eiffel Tower"  # the designer, from the tower's passage


def test_langgraph_node(smollm2: TransformersLLM) -> None:
    from examples.langgraph_node import main

    state = main()
    result = state["result"]
    assert "Shakespeare" in result.answer and len(result.citations) == int(result.retrieved)
    cited = "; ".join(f"[1] {d.metadata['title']}" for d in result.citations) or "none"
    assert state["reply"] == f"{result.answer} (sources: {cited})"


def test_agent_calls_selfrag_tool(smollm2: TransformersLLM) -> None:
    from examples.agent_tool import main

    messages = main()
    tool_messages = [m for m in messages if m.type == "tool"]
    assert len(tool_messages) == 1
    # The answer comes from the Everest passage and cites it (with the passage's-words prompt the 135M model
    # answers "Mount Everest is the highest mountain on Earth.", without the height: benchmarks/log.md).
    assert "Everest" in tool_messages[0].content and tool_messages[0].content.endswith("[1] Mount Everest")


def test_chatbot_answers_a_conversation_with_citations(smollm2: TransformersLLM, tmp_path) -> None:
    from examples.chatbot import QUESTIONS, main
    from selfrag_langchain.history import SQLChatMessageHistory

    turns = main(QUESTIONS, history_file=tmp_path / "chat.sqlite3")
    assert [t.question for t in turns] == QUESTIONS
    assert turns[0].standalone_question == QUESTIONS[0]
    assert "Mona Lisa" in turns[1].standalone_question  # "it" resolved to the subject, not any rewrite
    assert "Leonardo" in turns[0].answer
    assert [d.metadata["title"] for d in turns[0].citations][:1] == ["Mona Lisa"]
    for t in turns:
        assert t.answer.strip() and t.result.retrievals >= 1
        assert {s.citation for s in t.result.segments} - {None} == set(range(1, len(t.citations) + 1))
    history = SQLChatMessageHistory("example", tmp_path / "chat.sqlite3").messages
    assert [m.content for m in history] == [QUESTIONS[0], turns[0].answer, QUESTIONS[1], turns[1].answer]


def test_relevance_filter_retriever_keeps_only_the_relevant_passage() -> None:
    from examples.relevance_filter_retriever import main

    result = main()
    assert len(result.plain) == 3 and result.plain[0].metadata["title"] == "Eiffel Tower"  # and two others
    assert [d.metadata["title"] for d in result.filtered] == ["Eiffel Tower"]
    assert result.filtered[0].metadata["selfrag"]["relevant"] is True
    assert "Gustave Eiffel" in result.prompt and "Mona Lisa" not in result.prompt


def _check_annotations(message) -> None:
    """Each citation spans its segment, and its marker ``[n]`` stands inside that span."""
    (block,) = message.content_blocks
    assert block["annotations"]
    for note in block["annotations"]:
        n, extras = note["extras"]["citation"], note["extras"]
        assert block["text"][extras["marker_start"]:extras["marker_end"]] == f"[{n}]"
        assert note["start_index"] <= extras["marker_start"] < extras["marker_end"] <= note["end_index"]


def test_chat_model_in_a_chain_and_under_runnable_with_message_history(smollm2: TransformersLLM) -> None:
    from examples.chat_model_chain import main

    demo = main()
    assert "[1]" in "".join(demo.streamed) and demo.streamed[-1] == ""  # the last chunk brings the citations
    first, second = demo.turns
    assert first.content_blocks[0]["annotations"][0]["title"] == "Mona Lisa"
    for reply in demo.turns:
        _check_annotations(reply)
    # The follow-up's "it" was resolved from the conversation the history handed back.
    assert "Mona Lisa" in second.response_metadata["selfrag"]["standalone_question"]


def test_chat_model_as_a_langgraph_chatbot(smollm2: TransformersLLM) -> None:
    from examples.chat_model_langgraph import main

    demo = main()
    assert [m.type for m in demo.messages] == ["human", "ai", "human", "ai"]
    reply = demo.messages[-1]
    assert "".join(demo.streamed) == reply.text and reply.text.strip()  # streamed segment by segment
    _check_annotations(reply)  # the checkpointer kept the citations
    assert "Mona Lisa" in reply.response_metadata["selfrag"]["standalone_question"]  # "it" resolved
