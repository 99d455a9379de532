"""Self-RAG's relevance filter in an existing RAG chain: only the line that builds the retriever changes.

The plain retriever hands the prompt its k nearest passages, related or not; ``SelfRAGRetriever`` asks the
default judge (no language model, MiniLM embeddings) whether each one is relevant to the question and passes
on only those, best first. The chain stops at the prompt, so the example runs in seconds; put any LLM after it.

    python -m examples.relevance_filter_retriever
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.documents import Document
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

from examples.corpus import documents
from selfrag_langchain import SelfRAGRetriever
from selfrag_langchain.embeddings import MiniLMEmbeddings

QUESTION = "Who designed the Eiffel Tower?"

PROMPT = ChatPromptTemplate.from_template(
    "Answer from the context; say you don't know if it does not say.\n\nContext:\n{context}\n\nQuestion: {question}"
)


def format_docs(docs: list[Document]) -> str:
    """The context block of the prompt; says so when the filter left nothing."""
    return "\n\n".join(f"[{d.metadata['title']}] {d.page_content}" for d in docs) or "(no relevant passages)"


def rag_chain(retriever: BaseRetriever) -> Runnable:
    """The usual LCEL RAG chain up to the prompt (add ``| llm | StrOutputParser()`` for answers)."""
    return {"context": retriever | format_docs, "question": RunnablePassthrough()} | PROMPT


@dataclass(frozen=True)
class Comparison:
    plain: list[Document]
    """What the plain retriever hands the chain."""
    filtered: list[Document]
    """What SelfRAGRetriever hands it: the relevant passages, best first, judgement in the metadata."""
    prompt: str
    """The prompt the filtered chain builds for the LLM."""


def main(question: str = QUESTION) -> Comparison:
    """One store, the plain retriever and the filtered one, over the same five passages."""
    store = InMemoryVectorStore.from_documents(documents(), MiniLMEmbeddings())
    plain = store.as_retriever(search_kwargs={"k": 3})
    filtered = SelfRAGRetriever(retriever=store.as_retriever(), k=3)  # the one line that changes
    return Comparison(plain=plain.invoke(question), filtered=filtered.invoke(question),
                      prompt=rag_chain(filtered).invoke(question).to_string())


if __name__ == "__main__":
    result = main()
    print(result.prompt)
    print("\nplain retriever: ", [d.metadata["title"] for d in result.plain])
    print("SelfRAGRetriever:", [(d.metadata["title"], round(d.metadata["selfrag"]["relevance"], 2))
                               for d in result.filtered])
