"""``selfrag chat``: a conversation with cited answers in the terminal, its history kept per session.

Examples:
    selfrag chat                              # long-form answers from the demo corpus, session "default"
    selfrag chat --session alice --store ./store --max-depth 3
    printf 'Who painted the Mona Lisa?\\nWhere is it shown?\\n' | selfrag chat --session demo
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from selfrag_langchain.commands.ask import print_sources, stream_answer
from selfrag_langchain.commands.options import (
    add_conversation_options,
    add_long_form_options,
    add_run_options,
    run_settings,
)
from selfrag_langchain.commands.output import ask_line, emit
from selfrag_langchain.commands.status import StatusLine
from selfrag_langchain.errors import SelfRAGError
from selfrag_langchain.history import SQLChatMessageHistory
from selfrag_langchain.pipeline import build_long_form, build_selfrag

PROMPT = "you> "
EMPTY_TURN = "(empty question: type a question, or press Ctrl-D to leave)"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("chat", help="chat with Self-RAG: cited answers, history kept per session")
    parser.add_argument("--session", default="default",
                        help="conversation id; the same id continues the conversation (default: %(default)s)")
    add_conversation_options(parser, history_of="the conversations")
    add_run_options(parser)
    add_long_form_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from selfrag_langchain.chains.chat import SelfRAGConversation

    if not args.session.strip():
        raise SelfRAGError("--session must not be empty")
    settings = run_settings(args)
    history = SQLChatMessageHistory(args.session, args.history)
    if history.recovered:
        print(f"selfrag: warning: {history.recovered}", file=sys.stderr)
    rag = build_selfrag(settings) if args.short else build_long_form(settings)
    chat = SelfRAGConversation(rag=rag, session_id=args.session,
                       history_factory=lambda session: SQLChatMessageHistory(session, history.database))
    return chat_loop(chat, history, echo=not sys.stdin.isatty())


def chat_loop(chat: Any, history: SQLChatMessageHistory, read: Callable[[str], str] = ask_line,
              echo: bool = False) -> int:
    """Read a question, stream its answer and sources, until end of input or Ctrl-C.

    An empty line asks again; an interrupted answer is not stored (the history keeps the finished turns).
    ``echo`` prints each question after the prompt, for input that is not typed (a pipe, a file).
    """
    turns = len(history.messages) // 2
    if turns:
        emit(f"(session {history.session_id}: continuing after {turns} earlier turn{'s' if turns != 1 else ''})")
    while True:
        try:
            line = read(PROMPT)
        except (EOFError, KeyboardInterrupt):
            emit()
            return 0
        if echo:
            emit(line)
        if not line.strip():
            emit(EMPTY_TURN)
            continue
        try:
            answer = _turn(chat, line)
        except KeyboardInterrupt:
            emit("\n(interrupted: this turn was not saved)")
            return 0
        except SelfRAGError as e:
            print(f"selfrag: error: {e}", file=sys.stderr)
            continue
        print_sources(answer.citations)
        emit()


def _turn(chat: Any, question: str) -> Any:
    with StatusLine() as status:
        answer = stream_answer(chat.stream(question, config={"callbacks": [status]}), status=status,
                               prefix="selfrag> ")
    if answer.standalone_question != answer.question:
        emit(f"(answered as: {answer.standalone_question})")
    return answer
