"""A chatbot with citations: follow-up questions understood from the conversation, answers written
sentence by sentence, each sentence retrieved for, judged and cited, the sources listed under the answer.

    python -m examples.chatbot              # in a terminal: type questions, Ctrl-D to leave
    python -m examples.chatbot < /dev/null  # not a terminal: answers a short scripted conversation
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from langchain_core.vectorstores import InMemoryVectorStore

from examples.corpus import documents
from selfrag_langchain import CalibratedReflector, TransformersLLM
from selfrag_langchain.chains.chat import ChatAnswer, SelfRAGConversation
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.history import SQLChatMessageHistory
from selfrag_langchain.results import CitedSegment

QUESTIONS = ["Who painted the Mona Lisa?", "Where is it displayed?"]
"""The conversation the example has when nobody types."""


def build_chat(history_file: Path, llm: TransformersLLM | None = None) -> SelfRAGConversation:
    llm = llm or TransformersLLM()
    store = InMemoryVectorStore.from_documents(documents(), MiniLMEmbeddings())
    rag = SelfRAGLongForm(generator=llm, reflector=CalibratedReflector(), retriever=store.as_retriever(),
                          k=2, beam_width=1, max_depth=2, max_segment_tokens=32, mode="always")
    return SelfRAGConversation(rag=rag, session_id="example",
                       history_factory=lambda session: SQLChatMessageHistory(session, history_file))


def turn(chat: SelfRAGConversation, question: str, echo: bool = True) -> ChatAnswer:
    """Ask one question; print the answer as its sentences become final, then its sources."""
    print(f"you> {question}\nbot> " if echo else "bot> ", end="", flush=True)
    answer: ChatAnswer | None = None
    for item in chat.stream(question):
        if isinstance(item, CitedSegment):
            print(item.marked(), end=" ", flush=True)
        else:
            answer = item
    assert answer is not None
    print()
    for doc in answer.citations:
        print(f"     [{doc.metadata['citation']}] {doc.metadata.get('title', '')}")
    return answer


def main(questions: list[str] | None = None, history_file: Path | None = None) -> list[ChatAnswer]:
    history_file = history_file or Path(tempfile.mkdtemp()) / "chat.sqlite3"
    chat = build_chat(history_file)
    if questions is None and sys.stdin.isatty():
        answers = []
        while True:
            try:
                question = input("you> ").strip()
            except (EOFError, KeyboardInterrupt):
                return answers
            if question:
                answers.append(turn(chat, question, echo=False))
    return [turn(chat, q) for q in questions or QUESTIONS]


if __name__ == "__main__":
    main()
