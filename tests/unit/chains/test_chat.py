"""SelfRAGConversation on scripted models: follow-ups made standalone from the history, cited answers, history that
survives a restart, interrupted turns that leave it untouched, and the ``selfrag chat`` loop."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory
from pydantic import Field

from selfrag_langchain.chains.chat import SelfRAGConversation
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.errors import InputError
from selfrag_langchain.history import SQLChatMessageHistory
from selfrag_langchain.judging import InlineReflector
from selfrag_langchain.results import CitedSegment
from tests.fakes.mona_lisa_chat import FIRST, FOLLOW_UP, STANDALONE
from tests.fakes.scripted_long_form import FULL, REL, RecordingRetriever, ScriptedLongFormLLM, doc, judged


def _rag() -> tuple[SelfRAGLongForm, RecordingRetriever]:
    llm = ScriptedLongFormLLM(script={
        (0, "Mona Lisa"): judged("Leonardo da Vinci painted it.", REL, FULL),
        (1, "Mona Lisa"): judged("He worked on it for years.", REL, FULL),
        (0, "Louvre"): judged("It hangs in the Louvre.", REL, FULL),
        (1, "Louvre"): judged("The Louvre is in Paris.", REL, FULL),
    })
    retriever = RecordingRetriever(results={FIRST: [doc("Mona Lisa")], STANDALONE: [doc("Louvre")],
                                            f"{STANDALONE} It hangs in the Louvre.": [doc("Louvre")]},
                                   default=[doc("Mona Lisa")])
    rag = SelfRAGLongForm(min_name_coverage=0.0, generator=llm, reflector=InlineReflector(llm), retriever=retriever,
                          k=1, beam_width=1,
                          max_depth=2)
    return rag, retriever


class RecordingLLM(FakeListLLM):
    """Answers from a list and records the prompts it was given."""

    prompts: list[str] = Field(default_factory=list)

    def _call(self, prompt: str, *args: Any, **kwargs: Any) -> str:
        self.prompts.append(prompt)
        return super()._call(prompt, *args, **kwargs)


def _chat(path: Path, rewrites: list[str] | None = None
          ) -> tuple[SelfRAGConversation, RecordingLLM, RecordingRetriever]:
    rag, retriever = _rag()
    condense = RecordingLLM(responses=rewrites or [f"{STANDALONE}\nextra line"])
    chat = SelfRAGConversation(rag=rag, condense_llm=condense,
                       history_factory=lambda session: SQLChatMessageHistory(session, path))
    return chat, condense, retriever


def test_history_persists_across_a_restart_and_follow_ups_become_standalone(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    chat, condense, _ = _chat(path)
    first = chat.invoke({"question": FIRST, "session_id": "alice"})
    assert first.answer == "Leonardo da Vinci painted it [1]. He worked on it for years [1]."
    assert first.standalone_question == FIRST and condense.prompts == []  # no history: nothing to rewrite
    assert [d.metadata["title"] for d in first.citations] == ["Mona Lisa"]

    # A new chat, new models, the same file: the conversation continues.
    chat, condense, retriever = _chat(path)
    second = chat.invoke({"question": FOLLOW_UP, "session_id": "alice"})
    assert second.standalone_question == STANDALONE
    assert retriever.queries[0] == STANDALONE
    assert second.answer == "It hangs in the Louvre [1]. The Louvre is in Paris [1]."
    (prompt,) = condense.prompts
    assert f"User: {FIRST}" in prompt and "Assistant: Leonardo da Vinci painted it. He worked" in prompt
    assert "[1]" not in prompt and prompt.endswith(f"Last question: {FOLLOW_UP}\nRewritten question:")
    stored = SQLChatMessageHistory("alice", path).messages
    assert [m.content for m in stored] == [FIRST, first.answer, FOLLOW_UP, second.answer]
    assert stored[3].additional_kwargs["citations"] == [{"citation": 1, "title": "Louvre"}]
    assert SQLChatMessageHistory("bob", path).messages == []


def test_streaming_a_turn_yields_segments_then_the_answer(tmp_path: Path) -> None:
    chat, _, _ = _chat(tmp_path / "h.sqlite3")
    items = list(chat.stream(FIRST))
    assert [type(i).__name__ for i in items] == ["CitedSegment", "CitedSegment", "ChatAnswer"]
    assert " ".join(i.marked() for i in items[:2]) == items[-1].answer
    assert items[-1].session_id == "default"


def test_an_interrupted_turn_leaves_the_history_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    chat, _, _ = _chat(path)
    chat.invoke(FIRST)
    before = [m.content for m in SQLChatMessageHistory("default", path).messages]
    stream = chat.stream(FOLLOW_UP)
    assert isinstance(next(stream), CitedSegment)
    stream.close()  # the reader stopped mid-answer
    assert [m.content for m in SQLChatMessageHistory("default", path).messages] == before

    def interrupt(_: str) -> list:
        raise KeyboardInterrupt

    chat, _, _ = _chat(path)
    chat.rag.retriever = RunnableLambda(interrupt)  # type: ignore[assignment]
    with pytest.raises(KeyboardInterrupt):
        chat.invoke(FOLLOW_UP)
    assert [m.content for m in SQLChatMessageHistory("default", path).messages] == before


def test_empty_turn_is_an_input_error(tmp_path: Path) -> None:
    chat, _, _ = _chat(tmp_path / "h.sqlite3")
    with pytest.raises(InputError, match="empty"):
        chat.invoke("   ")


NOT_STANDALONE = ["   \n", "Leonardo da Vinci painted it.", "Where? " * 40 + "?", "Where is it shown?"]


@pytest.mark.parametrize("rewrite", NOT_STANDALONE)
def test_a_rewrite_that_is_no_standalone_question_puts_the_cited_subject_in_place_of_the_pronoun(
    tmp_path: Path, rewrite: str
) -> None:
    path = tmp_path / "h.sqlite3"
    chat, _, _ = _chat(path)
    assert chat.invoke(FIRST).citations[0].metadata["title"] == "Mona Lisa"
    chat, _, retriever = _chat(path, rewrites=[rewrite])
    assert chat.invoke(FOLLOW_UP).standalone_question == "Where is Mona Lisa shown?"
    assert retriever.queries[0] == "Where is Mona Lisa shown?"


@pytest.mark.parametrize("rewrite", NOT_STANDALONE)
def test_the_questions_fallback_joins_both_questions(tmp_path: Path, rewrite: str) -> None:
    path = tmp_path / "h.sqlite3"
    chat, _, _ = _chat(path)
    chat.invoke(FIRST)
    chat, _, retriever = _chat(path, rewrites=[rewrite])
    chat.fallback = "questions"
    assert chat.invoke(FOLLOW_UP).standalone_question == f"{FIRST} {FOLLOW_UP}"
    assert retriever.queries[0] == f"{FIRST} {FOLLOW_UP}"


def test_without_rewrite_no_model_is_asked_and_a_question_without_pronoun_stays_as_asked(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    chat, _, _ = _chat(path)
    chat.invoke(FIRST)
    chat, condense, _ = _chat(path)
    chat.rewrite = False
    assert chat.invoke("When was it painted?").standalone_question == "When was Mona Lisa painted?"
    assert chat.invoke("Who built the Louvre?").standalone_question == "Who built the Louvre?"
    assert condense.prompts == []


def test_without_a_cited_answer_the_subject_fallback_joins_the_questions() -> None:
    rag, _ = _rag()
    history = [HumanMessage(FIRST), AIMessage("Leonardo da Vinci.")]  # no citations recorded
    chat = SelfRAGConversation(rag=rag, rewrite=False, history_factory=lambda s: pytest.fail("history is passed"))
    assert chat.invoke({"question": FOLLOW_UP, "history": history}).standalone_question == f"{FIRST} {FOLLOW_UP}"


@pytest.mark.parametrize("rewrite", ["Where is the portrait shown?", "Where is the portrait shown? (Louvre)"])
def test_a_follow_up_calling_the_subject_by_its_kind_is_asked_of_the_subject(rewrite: str) -> None:
    rag, retriever = _rag()
    history = [HumanMessage(FIRST, additional_kwargs={"subject": "Mona Lisa"}),
               AIMessage("The Mona Lisa is a half-length portrait by Leonardo da Vinci [1].",
                         additional_kwargs={"citations": [{"citation": 1, "title": "Mona Lisa"}]})]
    chat = SelfRAGConversation(rag=rag, condense_llm=FakeListLLM(responses=[rewrite]),
                               history_factory=lambda s: pytest.fail("history is passed"))
    reply = chat.invoke({"question": "Where is the portrait shown?", "history": history})
    assert reply.standalone_question == "Where is Mona Lisa shown?"  # the rewrite did not name the Mona Lisa
    assert retriever.queries[0] == "Where is Mona Lisa shown?"


def test_a_follow_up_going_back_to_an_earlier_subject_by_its_kind_is_about_that_subject() -> None:
    rag, retriever = _rag()
    history = [HumanMessage("Which family does horseradish belong to?", additional_kwargs={"subject": "Horseradish"}),
               AIMessage("Horseradish is a perennial plant of the family Brassicaceae [1]."),
               HumanMessage("What's that family called?", additional_kwargs={"subject": "Brassicaceae"}),
               AIMessage("Brassicaceae is known as the mustards [1].")]
    chat = SelfRAGConversation(rag=rag, rewrite=False, history_factory=lambda s: pytest.fail("history is passed"))
    reply = chat.invoke({"question": "Back to the plant itself: where is it from?", "history": history})
    assert reply.standalone_question == "Back to Horseradish itself: where is Horseradish from?"
    assert retriever.queries[0] == reply.standalone_question
    assert reply.subject == "Horseradish"  # not the family the turn before was about


def test_works_under_runnable_with_message_history() -> None:
    rag, retriever = _rag()
    chat = SelfRAGConversation(rag=rag, condense_llm=FakeListLLM(responses=[STANDALONE]),
                       history_factory=lambda s: pytest.fail("the caller keeps the history"))
    store: dict[str, InMemoryChatMessageHistory] = {}
    wrapped = RunnableWithMessageHistory(
        chat | RunnableLambda(lambda a: AIMessage(a.answer)),
        lambda session_id: store.setdefault(session_id, InMemoryChatMessageHistory()),
        input_messages_key="question", history_messages_key="history")
    config = {"configurable": {"session_id": "s"}}
    wrapped.invoke({"question": FIRST}, config)
    reply = wrapped.invoke({"question": FOLLOW_UP}, config)
    assert reply.content == "It hangs in the Louvre [1]. The Louvre is in Paris [1]."
    assert retriever.queries[-2:] == [STANDALONE, f"{STANDALONE} It hangs in the Louvre."]
    assert len(store["s"].messages) == 4


async def test_async_turn_matches_and_persists(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    chat, _, _ = _chat(path)
    answer = await chat.ainvoke({"question": FIRST, "session_id": "a"})
    items = [i async for i in chat.astream({"question": FOLLOW_UP, "session_id": "a"})]
    assert answer.answer == "Leonardo da Vinci painted it [1]. He worked on it for years [1]."
    assert items[-1].standalone_question == STANDALONE
    assert len(SQLChatMessageHistory("a", path).messages) == 4


# ---------------------------------------------------------------------- the terminal loop


def _run_cli(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
             ) -> tuple[int, str, str]:
    from selfrag_langchain import cli
    from selfrag_langchain.commands import chat as chat_command

    monkeypatch.setattr(chat_command, "build_long_form", lambda args: _rag()[0])
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_selfrag_chat_streams_answers_with_sources_and_keeps_history_across_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["chat", "--session", "demo", "--history", str(tmp_path / "h.sqlite3")]
    code, out, _ = _run_cli(argv, f"\n{FIRST}\n", monkeypatch, capsys)
    assert code == 0
    assert "you> \n(empty question: type a question" in out  # piped input is echoed
    assert f"you> {FIRST}\nselfrag> Leonardo da Vinci painted it [1]. He worked on it for years [1].\n" in out
    assert "Sources:\n  [1] Mona Lisa:" in out
    code, out, _ = _run_cli(argv, "", monkeypatch, capsys)  # a second run: the history is there
    assert code == 0 and "continuing after 1 earlier turn" in out


def test_selfrag_chat_on_a_corrupt_history_warns_and_starts_fresh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "h.sqlite3"
    path.write_bytes(b"garbage" * 50)
    code, out, err = _run_cli(["chat", "--history", str(path)], f"{FIRST}\n", monkeypatch, capsys)
    assert code == 0 and "selfrag: warning: chat history" in err and "moved it to h.sqlite3.corrupt-" in err
    assert "Leonardo" in out and len(list(tmp_path.glob("h.sqlite3.corrupt-*"))) == 1


def test_ctrl_c_at_the_prompt_or_mid_answer_exits_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    from selfrag_langchain.commands.chat import chat_loop

    history = SQLChatMessageHistory("s", tmp_path / "h.sqlite3")

    def ctrl_c(_: str) -> str:
        raise KeyboardInterrupt

    assert chat_loop(object(), history, read=ctrl_c) == 0

    class Interrupted:
        def stream(self, _: str, config: object = None):
            raise KeyboardInterrupt
            yield

    lines = iter([FIRST])
    assert chat_loop(Interrupted(), history, read=lambda _: next(lines)) == 0
    assert "this turn was not saved" in capsys.readouterr().out
    assert history.messages == []


def test_chained_fallbacks_keep_the_subject_of_the_conversation(tmp_path: Path) -> None:
    """Each fallback builds on the previous turn's standalone question, not its bare words, and keeps at
    most history_turns + 1 questions."""
    path = tmp_path / "h.sqlite3"
    chat, _, _ = _chat(path)
    chat.invoke(FIRST)
    follow_ups = ["Where is it shown?", "When was it made?", "Why is it famous?"]
    asked: list[str] = []
    for follow_up in follow_ups:
        chat, _, _ = _chat(path, rewrites=["Leonardo da Vinci painted it."])
        chat.history_turns = 2
        chat.fallback = "questions"
        asked.append(chat.invoke(follow_up).standalone_question)
    assert asked[0] == f"{FIRST} {follow_ups[0]}"
    assert asked[1] == f"{FIRST} {follow_ups[0]} {follow_ups[1]}"
    assert asked[2] == " ".join(follow_ups)  # the first question has aged out: three questions at most


def test_the_subject_survives_an_answer_that_cites_another_article(tmp_path: Path) -> None:
    """The second answer cites the Louvre; the third follow-up's "it" is still the Mona Lisa."""
    path = tmp_path / "h.sqlite3"
    chat, _, _ = _chat(path)
    assert chat.invoke(FIRST).subject == "Mona Lisa"
    chat, _, _ = _chat(path, rewrites=[STANDALONE])
    second = chat.invoke(FOLLOW_UP)
    assert second.standalone_question == STANDALONE
    assert [d.metadata["title"] for d in second.citations] == ["Louvre"]
    assert second.subject == "Mona Lisa"
    chat, _, retriever = _chat(path)
    chat.rewrite = False
    assert chat.invoke("When was it painted?").standalone_question == "When was Mona Lisa painted?"
    assert retriever.queries[0] == "When was Mona Lisa painted?"


def test_a_rewrite_that_drops_words_of_the_follow_up_is_not_taken(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    chat, _, _ = _chat(path)
    chat.invoke(FIRST)
    chat, _, _ = _chat(path, rewrites=["Who painted the Mona Lisa?"])  # the previous question asked again
    assert chat.invoke(FOLLOW_UP).standalone_question == "Where is Mona Lisa shown?"


@pytest.mark.parametrize("rewrite", ["And the frame?", "What is the frame of the Mona Lisa made of?"])
def test_a_follow_up_that_names_nothing_is_asked_of_the_subject_unless_the_rewrite_says_more(
    tmp_path: Path, rewrite: str
) -> None:
    path = tmp_path / "h.sqlite3"
    chat, _, _ = _chat(path)
    chat.invoke(FIRST)
    chat, _, retriever = _chat(path, rewrites=[rewrite])
    expected = "And the frame? (Mona Lisa)" if rewrite == "And the frame?" else rewrite
    assert chat.invoke("And the frame?").standalone_question == expected
    assert retriever.queries[0] == expected


def test_a_reference_that_stands_for_nothing_named_is_asked_with_the_subject(tmp_path: Path) -> None:
    """"That painting" names a noun no answer gave a name to: the subject in brackets, not the bare words, which
    find an article about paintings; the turn keeps the subject."""
    path = tmp_path / "h.sqlite3"
    chat, _, _ = _chat(path)
    chat.invoke(FIRST)
    chat, _, retriever = _chat(path)
    chat.rewrite = False
    answer = chat.invoke("Who restored that painting?")
    assert answer.standalone_question == "Who restored that painting? (Mona Lisa)"
    assert retriever.queries[0] == "Who restored that painting? (Mona Lisa)"
    assert answer.subject == "Mona Lisa"
