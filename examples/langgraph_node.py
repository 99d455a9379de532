"""Self-RAG as a node of a LangGraph graph: the node answers, a later node formats the sources.

    python -m examples.langgraph_node
"""

from __future__ import annotations

from typing import TypedDict

from langchain_core.vectorstores import InMemoryVectorStore
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from examples.corpus import documents
from selfrag_langchain import CalibratedReflector, SelfRAG, SelfRAGResult, TransformersLLM
from selfrag_langchain.embeddings import MiniLMEmbeddings


class State(TypedDict, total=False):
    question: str
    result: SelfRAGResult
    reply: str


def build_graph(llm: TransformersLLM | None = None) -> CompiledStateGraph:
    llm = llm or TransformersLLM(max_new_tokens=40)
    store = InMemoryVectorStore.from_documents(documents(), MiniLMEmbeddings())
    selfrag = SelfRAG(generator=llm, reflector=CalibratedReflector(), retriever=store.as_retriever(), k=2)

    def answer(state: State) -> State:
        return {"result": selfrag.invoke(state["question"])}

    def cite(state: State) -> State:
        result = state["result"]
        sources = "; ".join(f"[{d.metadata['citation']}] {d.metadata['title']}" for d in result.citations)
        return {"reply": f"{result.answer} (sources: {sources or 'none'})"}

    graph = StateGraph(State)
    graph.add_node("selfrag", answer)
    graph.add_node("cite", cite)
    graph.add_edge(START, "selfrag")
    graph.add_edge("selfrag", "cite")
    graph.add_edge("cite", END)
    return graph.compile()


def main() -> State:
    return build_graph().invoke({"question": "Who wrote Hamlet?"})


if __name__ == "__main__":
    print(main()["reply"])
