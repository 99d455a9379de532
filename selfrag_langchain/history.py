"""Chat history that survives a restart: LangChain's ``BaseChatMessageHistory`` in a SQLite file.

One row per message, keyed by session id, written with the standard library's ``sqlite3``. A missing file
starts a fresh history; a file that is not a readable SQLite database is moved aside to
``<name>.corrupt-<timestamp>`` with a warning (also kept in :attr:`SQLiteChatMessageHistory.recovered`), and
a fresh one is started, so a damaged file never stops a chat and is never lost.
"""

from __future__ import annotations

import json
import sqlite3
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage, message_to_dict, messages_from_dict

from selfrag_langchain import paths
from selfrag_langchain.errors import StoreError

TABLE = "selfrag_messages"
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, "
    "created_at REAL NOT NULL, message TEXT NOT NULL)",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_session ON {TABLE} (session_id, id)",
)
_COLUMNS = {"id", "session_id", "created_at", "message"}


def default_history_path() -> Path:
    """Where ``selfrag chat`` keeps its conversations (under ``SELFRAG_HOME``)."""
    return paths.home_dir() / "chat-history.sqlite3"


class SQLiteChatMessageHistory(BaseChatMessageHistory):
    """The messages of one session, one row each, in a SQLite file.

    Example:
        .. code-block:: python

            from langchain_core.messages import AIMessage, HumanMessage
            from selfrag_langchain.history import SQLiteChatMessageHistory

            history = SQLiteChatMessageHistory("alice", "chats.sqlite3")
            history.add_messages([HumanMessage("Who painted the Mona Lisa?"), AIMessage("Leonardo [1].")])
            SQLiteChatMessageHistory("alice", "chats.sqlite3").messages  # the same two messages, after a restart

    Messages added in one :meth:`add_messages` call are written in one transaction: all or none.
    """

    def __init__(self, session_id: str, path: str | Path | None = None, *, prepare: bool = True) -> None:
        """``prepare=False`` skips creating and checking the file, for a caller that prepared it once
        already (a server opens a history per request)."""
        if not session_id:
            msg = "session_id must not be empty"
            raise StoreError(msg)
        self.session_id = session_id
        self.path = Path(path) if path is not None else default_history_path()
        self.recovered: str | None = None
        """Set when the file was unreadable: where the damaged file was moved."""
        if prepare:
            self._prepare()

    # ------------------------------------------------------------------ the file

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.path, timeout=30)) as conn, conn:
            yield conn

    def _prepare(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            msg = f"cannot create the directory of the chat history {self.path}: {e}"
            raise StoreError(msg) from e
        try:
            self._create()
        except sqlite3.DatabaseError as e:
            if not self.path.exists():
                msg = f"cannot create the chat history {self.path}: {e}"
                raise StoreError(msg) from e
            self._move_aside(e)
            self._create()

    def _create(self) -> None:
        with self._connect() as conn:
            check = conn.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {check[0] if check else 'no answer'}")
            conn.execute(_SCHEMA[0])
            columns = {row[1] for row in conn.execute(f"PRAGMA table_info({TABLE})")}
            if columns != _COLUMNS:
                msg = (f"{self.path} has a table {TABLE} with other columns ({', '.join(sorted(columns))}): "
                       "choose another history file")
                raise StoreError(msg)
            conn.execute(_SCHEMA[1])

    def _move_aside(self, error: Exception) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
            n += 1
        try:
            self.path.rename(target)
        except OSError as e:
            msg = f"the chat history {self.path} is unreadable ({error}) and cannot be moved aside: {e}"
            raise StoreError(msg) from e
        for suffix in ("-wal", "-shm", "-journal"):  # leftovers of the damaged database
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        self.recovered = (f"chat history {self.path} was unreadable ({error}); moved it to {target.name} "
                          "and started a fresh one")
        warnings.warn(self.recovered, stacklevel=3)

    # ------------------------------------------------------------------ BaseChatMessageHistory

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The session's messages, oldest first (a row that no longer parses is skipped)."""
        with self._connect() as conn:
            rows = conn.execute(f"SELECT message FROM {TABLE} WHERE session_id = ? ORDER BY id",
                                (self.session_id,)).fetchall()
        messages = []
        for (text,) in rows:
            try:
                messages.extend(messages_from_dict([json.loads(text)]))
            except (ValueError, KeyError, TypeError):
                continue
        return messages

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append messages in one transaction."""
        now = time.time()
        rows = [(self.session_id, now, json.dumps(message_to_dict(m), ensure_ascii=False)) for m in messages]
        with self._connect() as conn:
            conn.executemany(f"INSERT INTO {TABLE} (session_id, created_at, message) VALUES (?, ?, ?)", rows)

    def clear(self) -> None:
        with self._connect() as conn:
            conn.execute(f"DELETE FROM {TABLE} WHERE session_id = ?", (self.session_id,))

    def sessions(self) -> list[str]:
        """Every session id in the file, in order of first message."""
        with self._connect() as conn:
            rows = conn.execute(f"SELECT session_id FROM {TABLE} GROUP BY session_id ORDER BY MIN(id)").fetchall()
        return [r[0] for r in rows]
