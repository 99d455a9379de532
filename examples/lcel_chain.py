"""Self-RAG as one step of an existing LCEL chain: prompt in, parsed answer with citations out.

    python -m examples.lcel_chain
"""

from __future__ import annotations

from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.vectorstores import InMemoryVectorStore

from examples.corpus import documents
from selfrag_langchain import CalibratedReflector, SelfRAG, SelfRAGResult, TransformersLLM
from selfrag_langchain.embeddings import MiniLMEmbeddings


def with_citations(result: SelfRAGResult) -> str:
    """The answer followed by its numbered sources."""
    sources = [f"[{d.metadata['citation']}] {d.metadata.get('title', '')}" for d in result.citations]
    return "\n".join([result.answer, *sources])


def build_chain(llm: TransformersLLM | None = None) -> Runnable:
    llm = llm or TransformersLLM(max_new_tokens=40)
    store = InMemoryVectorStore.from_documents(documents(), MiniLMEmbeddings())
    selfrag = SelfRAG(generator=llm, reflector=CalibratedReflector(), retriever=store.as_retriever(), k=2,
                      mode="always")  # always cite a source
    prompt = PromptTemplate.from_template("{topic}: {question}")
    return prompt | selfrag | RunnableLambda(with_citations)


def main() -> str:
    chain = build_chain()
    return chain.invoke({"topic": "Art history", "question": "Who painted the Mona Lisa?"})


if __name__ == "__main__":
    print(main())
