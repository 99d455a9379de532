"""The same Self-RAG Runnable over three vector stores: only the line that builds the store changes.

    python -m examples.swap_vector_stores
"""

from __future__ import annotations

import tempfile

from langchain_community.vectorstores import FAISS
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from examples.corpus import documents
from selfrag_langchain import CalibratedReflector, SelfRAG, TransformersLLM
from selfrag_langchain.corpus import index_documents, open_store
from selfrag_langchain.embeddings import MiniLMEmbeddings


def chroma_store() -> VectorStore:
    """The embedded default: persistent Chroma with MiniLM embeddings."""
    directory = tempfile.mkdtemp(prefix="selfrag-chroma-")
    index_documents(documents(), directory, progress=False)
    return open_store(directory, create=False)


STORES = {
    "chroma": chroma_store,
    "faiss": lambda: FAISS.from_documents(documents(), MiniLMEmbeddings()),
    "in-memory": lambda: InMemoryVectorStore.from_documents(documents(), MiniLMEmbeddings()),
}


def answer_with(store: VectorStore, question: str, llm: TransformersLLM | None = None) -> tuple[str, str]:
    """Answer and the title of the cited passage."""
    llm = llm or TransformersLLM(max_new_tokens=40)
    selfrag = SelfRAG(generator=llm, reflector=CalibratedReflector(), retriever=store.as_retriever(), k=2,
                      mode="always")
    result = selfrag.invoke(question)
    return result.answer, result.citations[0].metadata["title"]


def main() -> dict[str, tuple[str, str]]:
    return {name: answer_with(build(), "Who designed the Eiffel Tower?") for name, build in STORES.items()}


if __name__ == "__main__":
    for name, (answer, title) in main().items():
        print(f"{name:>10}: {answer}  [1] {title}")
