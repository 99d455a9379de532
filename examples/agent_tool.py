"""Self-RAG as a tool an agent calls: the agent decides to look something up, Self-RAG answers with its
source, and the tool result goes back to the agent.

The agent's chat model here is scripted (it issues one tool call, then replies with what the tool
returned) so the example runs offline on a CPU; put your tool-calling chat model in its place
(e.g. ``ChatOpenAI(model=...)``) and nothing else changes.

    python -m examples.agent_tool
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool
from langchain_core.vectorstores import InMemoryVectorStore

from examples.corpus import documents
from selfrag_langchain import CalibratedReflector, SelfRAG, SelfRAGResult, TransformersLLM
from selfrag_langchain.embeddings import MiniLMEmbeddings


def selfrag_tool(llm: TransformersLLM | None = None) -> BaseTool:
    """A tool whose output is the Self-RAG answer followed by its citation."""
    llm = llm or TransformersLLM(max_new_tokens=40)
    store = InMemoryVectorStore.from_documents(documents(), MiniLMEmbeddings())
    selfrag = SelfRAG(generator=llm, reflector=CalibratedReflector(), retriever=store.as_retriever(), k=2)

    def cited(result: SelfRAGResult) -> str:
        sources = " ".join(f"[{d.metadata['citation']}] {d.metadata['title']}" for d in result.citations)
        return f"{result.answer} {sources}".strip()

    return (selfrag | cited).as_tool(
        name="selfrag_search",
        description="Answer a factual question from the knowledge base, with the source cited.",
        arg_types={"question": str},
    )


class ScriptedAgentModel(GenericFakeChatModel):
    """Stands in for a tool-calling chat model: calls the tool once, then answers."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedAgentModel:
        return self


def main(llm: TransformersLLM | None = None) -> list[BaseMessage]:
    tool = selfrag_tool(llm)
    model = ScriptedAgentModel(messages=iter([
        AIMessage("", tool_calls=[{"name": "selfrag_search", "args": {"question": "How high is Mount Everest?"},
                                   "id": "call-1"}]),
        AIMessage("Here is what I found."),
    ]))
    agent = create_agent(model, [tool])
    return agent.invoke({"messages": [("user", "How high is Mount Everest?")]})["messages"]


if __name__ == "__main__":
    for message in main():
        print(f"{message.type}: {message.content}")
