"""Self-RAG as the chat model of a LangGraph chatbot: a ``MessagesState`` graph whose node calls
``ChatSelfRAG``, a checkpointer that keeps each thread's conversation (LangGraph's replacement for
``RunnableWithMessageHistory``), and ``stream_mode="messages"`` that streams the reply segment by segment.

    python -m examples.chat_model_langgraph
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph

from examples.chat_model_chain import QUESTIONS, build_model, sources
from selfrag_langchain import ChatSelfRAG


@dataclass
class Demo:
    streamed: list[str]
    """The text of each chunk ``stream_mode="messages"`` gave for the follow-up."""
    messages: list[BaseMessage]
    """The thread's conversation, as the checkpointer kept it."""


def build_graph(model: ChatSelfRAG | None = None) -> CompiledStateGraph:
    model = model or build_model()

    def chatbot(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.invoke(state["messages"])]}  # the whole thread: follow-ups are understood

    graph = StateGraph(MessagesState)
    graph.add_node("chatbot", chatbot)
    graph.add_edge(START, "chatbot")
    return graph.compile(checkpointer=InMemorySaver())


def main() -> Demo:
    graph = build_graph()
    config = {"configurable": {"thread_id": "demo"}}
    first, follow_up = QUESTIONS
    reply = graph.invoke({"messages": [HumanMessage(first)]}, config)["messages"][-1]
    print(f"you> {first}\nbot> {reply.text}")
    print(f"you> {follow_up}\nbot> ", end="")
    streamed = []
    for chunk, _ in graph.stream({"messages": [HumanMessage(follow_up)]}, config, stream_mode="messages"):
        print(chunk.text, end="", flush=True)
        streamed.append(chunk.text)
    messages = graph.get_state(config).values["messages"]
    print("\n     " + "; ".join(sources(messages[-1])))
    return Demo(streamed=streamed, messages=messages)


if __name__ == "__main__":
    main()
