"""Self-RAG as the chat model of an ordinary LangChain chat app: ``prompt | model | StrOutputParser()``
streams the cited answer, and ``RunnableWithMessageHistory`` keeps the conversation, so a follow-up is
understood from it. The sources come from the answer's citation annotations.

    python -m examples.chat_model_chain

``RunnableWithMessageHistory`` is deprecated since langchain-core 1.3.3 in favour of LangGraph's
persistence, which ``examples/chat_model_langgraph.py`` shows; it still works, and many apps use it.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_core.vectorstores import InMemoryVectorStore

from examples.corpus import documents
from selfrag_langchain import CalibratedReflector, ChatSelfRAG, SelfRAGLongForm, TransformersLLM
from selfrag_langchain.embeddings import MiniLMEmbeddings

QUESTIONS = ["Who painted the Mona Lisa?", "Where is it displayed?"]
"""A question and a follow-up that only makes sense after it."""

PROMPT = ChatPromptTemplate.from_messages([
    ("system", "Answer questions about art and places."),  # ChatSelfRAG ignores system messages
    MessagesPlaceholder("history"),
    ("human", "{question}"),
])


@dataclass
class Demo:
    streamed: list[str]
    """The pieces ``prompt | model | StrOutputParser()`` streamed: one per cited segment."""
    turns: list[AIMessage]
    """The replies of the conversation kept by ``RunnableWithMessageHistory``."""


def build_model(llm: TransformersLLM | None = None) -> ChatSelfRAG:
    """Long-form Self-RAG on a five-passage in-memory store: two short segments, each cited."""
    llm = llm or TransformersLLM()
    store = InMemoryVectorStore.from_documents(documents(), MiniLMEmbeddings())
    rag = SelfRAGLongForm(generator=llm, reflector=CalibratedReflector(), retriever=store.as_retriever(),
                          k=2, beam_width=1, max_depth=2, max_segment_tokens=32, mode="always")
    return ChatSelfRAG(rag=rag)


def sources(message: BaseMessage) -> list[str]:
    """``[n] title`` of each passage the reply cites, from its citation annotations."""
    seen: dict[int, str] = {}
    for block in message.content_blocks:
        for note in block.get("annotations", []) if block["type"] == "text" else []:
            seen.setdefault(note["extras"]["citation"], note.get("title", ""))
    return [f"[{n}] {title}" for n, title in seen.items()]


def main() -> Demo:
    model = build_model()

    # 1. One step of a chain: the parser hands on the text, [n] markers included, segment by segment.
    chain = PROMPT | model | StrOutputParser()
    streamed = []
    for piece in chain.stream({"question": "Who wrote Hamlet?", "history": []}):
        print(piece, end="", flush=True)
        streamed.append(piece)
    print()

    # 2. A conversation: the history holds the replies with their annotations and trace.
    histories: dict[str, InMemoryChatMessageHistory] = {}
    chat = RunnableWithMessageHistory(
        PROMPT | model, lambda session_id: histories.setdefault(session_id, InMemoryChatMessageHistory()),
        input_messages_key="question", history_messages_key="history")
    config = {"configurable": {"session_id": "demo"}}
    turns = []
    for question in QUESTIONS:
        reply = chat.invoke({"question": question}, config)
        print(f"you> {question}\nbot> {reply.text}")
        print("     " + "; ".join(sources(reply)))
        turns.append(reply)
    return Demo(streamed=streamed, turns=turns)


if __name__ == "__main__":
    main()
