"""The chat history database: persistence across objects, sessions, atomic turns, missing and corrupt files,
database URLs and databases that cannot be reached."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from selfrag_langchain.errors import StoreError
from selfrag_langchain.history import TABLE, HistoryDatabase, SQLChatMessageHistory, default_history_path


def test_messages_survive_a_restart_and_sessions_are_separate(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    alice = SQLChatMessageHistory("alice", path)
    alice.add_messages([HumanMessage("Who painted the Mona Lisa?"),
                        AIMessage("Leonardo da Vinci [1].", additional_kwargs={"citations": [{"citation": 1}]})])
    SQLChatMessageHistory("bob", path).add_messages([HumanMessage("Hi")])
    again = SQLChatMessageHistory("alice", path)  # a new object on the same file, as after a restart
    assert [(m.type, m.content) for m in again.messages] == [("human", "Who painted the Mona Lisa?"),
                                                             ("ai", "Leonardo da Vinci [1].")]
    assert again.messages[1].additional_kwargs == {"citations": [{"citation": 1}]}
    assert again.sessions() == ["alice", "bob"]
    again.clear()
    assert again.messages == [] and [m.content for m in SQLChatMessageHistory("bob", path).messages] == ["Hi"]


def test_one_row_per_message(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    SQLChatMessageHistory("s", path).add_messages([HumanMessage("a"), AIMessage("b"), HumanMessage("c")])
    with sqlite3.connect(path) as conn:
        rows = conn.execute(f"SELECT session_id, message FROM {TABLE} ORDER BY id").fetchall()
    assert [r[0] for r in rows] == ["s", "s", "s"] and '"content": "b"' in rows[1][1]


def test_a_missing_file_and_directory_start_fresh(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "chats.sqlite3"
    history = SQLChatMessageHistory("s", path)
    assert history.messages == [] and path.exists() and history.recovered is None


def test_a_corrupt_file_is_moved_aside_and_a_fresh_one_started(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.warns(UserWarning, match="moved it to chats.sqlite3.corrupt-"):
        history = SQLChatMessageHistory("s", path)
    aside = list(tmp_path.glob("chats.sqlite3.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == b"this is not a database" * 100
    assert history.recovered and aside[0].name in history.recovered
    history.add_messages([HumanMessage("works again")])
    assert [m.content for m in SQLChatMessageHistory("s", path).messages] == ["works again"]


def test_a_file_of_another_application_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(f"CREATE TABLE {TABLE} (x TEXT)")
    with pytest.raises(StoreError, match="other columns"):
        SQLChatMessageHistory("s", path)


def test_empty_session_id_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="session_id"):
        SQLChatMessageHistory("", tmp_path / "h.sqlite3")


def test_default_path_is_under_selfrag_home(store_home: Path) -> None:
    assert default_history_path() == store_home / "chat-history.sqlite3"
    SQLChatMessageHistory("s").add_messages([HumanMessage("x")])
    assert (store_home / "chat-history.sqlite3").exists()


async def test_async_methods(tmp_path: Path) -> None:
    history = SQLChatMessageHistory("s", tmp_path / "h.sqlite3")
    await history.aadd_messages([HumanMessage("q"), AIMessage("a")])
    assert [m.content for m in await history.aget_messages()] == ["q", "a"]


def test_a_sqlite_url_and_its_file_are_the_same_database(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    SQLChatMessageHistory("s", f"sqlite:///{path}").add_messages([HumanMessage("by url")])
    database = HistoryDatabase(path)
    assert database.path == path and [m.content for m in SQLChatMessageHistory("s", database).messages] == ["by url"]


def test_sessions_of_one_database_share_its_engine(tmp_path: Path) -> None:
    database = HistoryDatabase(tmp_path / "chats.sqlite3")
    one, two = SQLChatMessageHistory("a", database), SQLChatMessageHistory("b", database)
    one.add_messages([HumanMessage("x")])
    assert one.database is two.database and two.sessions() == ["a"]


GONE = "127.0.0.1:1/chats"  # nothing listens on port 1


@pytest.mark.parametrize(("url", "message"), [
    (f"postgresql://selfrag@{GONE}", f"cannot open the chat history postgresql+psycopg://selfrag@{GONE}: "),
    (f"postgresql://selfrag:secret@{GONE}",
     f"cannot open the chat history postgresql+psycopg://selfrag:***@{GONE}: "),
    (f"mysql://selfrag@{GONE}",
     f"the chat history database mysql://selfrag@{GONE} needs the driver MySQLdb: pip install 'mysqlclient'"),
    ("nosuchdb://host/x", "cannot use the chat history database nosuchdb://host/x: "),
    ("postgresql://host:port/x", "not a database URL: 'postgresql://host:port/x'"),
    ("postgresql://u:secret@host:port/x", "not a database URL: 'postgresql://u:***@host:port/x'"),
])
def test_a_database_that_cannot_be_used_is_one_line_without_its_password(url: str, message: str) -> None:
    with pytest.raises(StoreError) as raised:
        HistoryDatabase(url)
    text = str(raised.value)
    assert text.startswith(message) and "\n" not in text and "secret" not in text
