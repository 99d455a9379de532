"""Chat history that survives a restart and is shared by processes: LangChain's ``BaseChatMessageHistory``
in a database, through SQLAlchemy.

The database is a SQLite file by default (one machine) or any SQLAlchemy URL: a PostgreSQL server lets
several ``selfrag serve`` processes, on one machine or many, hold the same conversations. One row per
message, keyed by session id. A missing SQLite file starts a fresh history; a file that is not a readable
SQLite database is moved aside to ``<name>.corrupt-<timestamp>`` with a warning (also kept in
:attr:`HistoryDatabase.recovered`) and a fresh one is started, so a damaged file never stops a chat and is
never lost. A database that cannot be reached, or a URL without its driver, is a :class:`StoreError`.
"""

from __future__ import annotations

import json
import re
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage, message_to_dict, messages_from_dict
from sqlalchemy import (
    Column,
    Engine,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    func,
    inspect,
    select,
    text,
)
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL, make_url

from selfrag_langchain.errors import StoreError
from selfrag_langchain.files import paths

TABLE = "selfrag_messages"
DRIVERS = {"postgresql": "postgresql+psycopg"}
"""A URL naming only the database gets the driver this package installs (extra ``postgres``: psycopg 3)."""
DRIVER_PACKAGES = {"psycopg": "selfrag-langchain[postgres]", "psycopg2": "psycopg2-binary",
                   "pymysql": "pymysql", "MySQLdb": "mysqlclient"}


def default_history_path() -> Path:
    """Where ``selfrag chat`` and ``selfrag serve`` keep their conversations (under ``SELFRAG_HOME``)."""
    return paths.home_dir() / "chat-history.sqlite3"


def is_url(location: str | Path) -> bool:
    """Whether a ``--history`` value is a database URL rather than a file."""
    return "://" in str(location)


def _messages_table(metadata: MetaData) -> Table:
    return Table(TABLE, metadata,
                 Column("id", Integer, primary_key=True, autoincrement=True),
                 Column("session_id", String(255), nullable=False),
                 Column("created_at", Float, nullable=False),
                 Column("message", Text, nullable=False),
                 Index(f"{TABLE}_session", "session_id", "id"))


class HistoryDatabase:
    """The database of chat histories: its engine and tables, opened once per process.

    Args:
        location: a SQLite file (default: ``chat-history.sqlite3`` under ``SELFRAG_HOME``) or a SQLAlchemy
            URL (``sqlite:///chats.sqlite3``, ``postgresql://user:password@host/db``).

    Raises:
        StoreError: the database cannot be reached or created, its driver is missing, or it holds a
            table of this name with other columns.
    """

    def __init__(self, location: str | Path | None = None) -> None:
        self.recovered: str | None = None
        """Set when a SQLite file was unreadable: where the damaged file was moved."""
        self.path: Path | None = None
        """The SQLite file, when the database is one."""
        if location is None or not is_url(location):
            self.path = Path(location) if location is not None else default_history_path()
            self.url = URL.create("sqlite", database=str(self.path))
        else:
            self.url = self._parse(str(location))
            if self.url.get_backend_name() == "sqlite" and self.url.database not in (None, "", ":memory:"):
                self.path = Path(self.url.database)
        self.metadata = MetaData()
        self.messages = _messages_table(self.metadata)
        self.engine = self._engine()
        self._open()

    @property
    def name(self) -> str:
        """The database as a user may see it: the file, or the URL without its password."""
        return str(self.path) if self.path is not None else self.url.render_as_string(hide_password=True)

    def _parse(self, location: str) -> URL:
        try:
            url = make_url(location)
        except (sa_exc.ArgumentError, ValueError) as e:
            shown = re.sub(r"://([^:/@]*):[^@/]*@", r"://\1:***@", location)  # no password in the message
            raise StoreError(f"not a database URL: {shown!r} ({e})") from e
        return url.set(drivername=DRIVERS.get(url.drivername, url.drivername))

    def _engine(self) -> Engine:
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StoreError(f"cannot create the directory of the chat history {self.path}: {e}") from e
            return create_engine(self.url, connect_args={"timeout": 30})  # waits up to 30 s on a busy file
        try:
            return create_engine(self.url, pool_pre_ping=True)
        except ModuleNotFoundError as e:
            package = DRIVER_PACKAGES.get(e.name or "", e.name)
            raise StoreError(f"the chat history database {self.name} needs the driver {e.name}: "
                             f"pip install '{package}'") from e
        except (sa_exc.ArgumentError, sa_exc.NoSuchModuleError) as e:
            raise StoreError(f"cannot use the chat history database {self.name}: {e}") from e

    def _open(self) -> None:
        try:
            self._create()
        except sa_exc.DatabaseError as e:
            damaged = self.path is not None and self.path.exists() and "locked" not in str(e)
            if not damaged:
                raise StoreError(f"cannot open the chat history {self.name}: {_first_line(e)}") from e
            self.engine.dispose()
            self._move_aside(e)
            self._create()

    def _create(self) -> None:
        with self.engine.begin() as conn:
            if self.path is not None:
                check = conn.execute(text("PRAGMA quick_check")).fetchone()
                if check is None or check[0] != "ok":
                    raise sa_exc.DatabaseError("PRAGMA quick_check", None,
                                               Exception(f"integrity check failed: {check[0] if check else 'none'}"))
            self.metadata.create_all(conn)
            columns = {c["name"] for c in inspect(conn).get_columns(TABLE)}
        expected = {c.name for c in self.messages.columns}
        if columns != expected:
            raise StoreError(f"{self.name} has a table {TABLE} with other columns ({', '.join(sorted(columns))}): "
                             "choose another history database")

    def _move_aside(self, error: Exception) -> None:
        assert self.path is not None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
            n += 1
        try:
            self.path.rename(target)
        except OSError as e:
            msg = f"the chat history {self.path} is unreadable ({_first_line(error)}) and cannot be moved aside: {e}"
            raise StoreError(msg) from e
        for suffix in ("-wal", "-shm", "-journal"):  # leftovers of the damaged database
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        self.recovered = (f"chat history {self.path} was unreadable ({_first_line(error)}); moved it to "
                          f"{target.name} and started a fresh one")
        warnings.warn(self.recovered, stacklevel=4)

    def add_tables(self, *tables: Table) -> None:
        """Create further tables of this database's metadata (the server's conversations), if missing."""
        with self.engine.begin() as conn:
            self.metadata.create_all(conn, tables=list(tables))

    def sessions(self) -> list[str]:
        """Every session id in the database, in order of first message."""
        query = (select(self.messages.c.session_id).group_by(self.messages.c.session_id)
                 .order_by(func.min(self.messages.c.id)))
        with self.engine.connect() as conn:
            return [row[0] for row in conn.execute(query)]


def _first_line(error: Exception) -> str:
    original = getattr(error, "orig", None) or error
    return (str(original).strip().splitlines() or [type(original).__name__])[0]


class SQLChatMessageHistory(BaseChatMessageHistory):
    """The messages of one session, one row each, in a :class:`HistoryDatabase`.

    Example:
        .. code-block:: python

            from langchain_core.messages import AIMessage, HumanMessage
            from selfrag_langchain.history import SQLChatMessageHistory

            history = SQLChatMessageHistory("alice", "chats.sqlite3")   # or a database URL
            history.add_messages([HumanMessage("Who painted the Mona Lisa?"), AIMessage("Leonardo [1].")])
            SQLChatMessageHistory("alice", "chats.sqlite3").messages  # the same two messages, after a restart

    ``database`` is a :class:`HistoryDatabase` (share one among the sessions of a process), a file, a URL,
    or None for the default file. Messages added in one :meth:`add_messages` call are written in one
    transaction: all or none.
    """

    def __init__(self, session_id: str, database: HistoryDatabase | str | Path | None = None) -> None:
        if not session_id:
            msg = "session_id must not be empty"
            raise StoreError(msg)
        self.session_id = session_id
        self.database = database if isinstance(database, HistoryDatabase) else HistoryDatabase(database)

    @property
    def recovered(self) -> str | None:
        """Set when the SQLite file was unreadable: where the damaged file was moved."""
        return self.database.recovered

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The session's messages, oldest first (a row that no longer parses is skipped)."""
        table = self.database.messages
        query = select(table.c.message).where(table.c.session_id == self.session_id).order_by(table.c.id)
        with self.database.engine.connect() as conn:
            rows = conn.execute(query).fetchall()
        messages = []
        for (stored,) in rows:
            try:
                messages.extend(messages_from_dict([json.loads(stored)]))
            except (ValueError, KeyError, TypeError):
                continue
        return messages

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append messages in one transaction."""
        now = time.time()
        rows = [{"session_id": self.session_id, "created_at": now,
                 "message": json.dumps(message_to_dict(m), ensure_ascii=False)} for m in messages]
        if rows:
            with self.database.engine.begin() as conn:
                conn.execute(self.database.messages.insert(), rows)

    def clear(self) -> None:
        table = self.database.messages
        with self.database.engine.begin() as conn:
            conn.execute(table.delete().where(table.c.session_id == self.session_id))

    def sessions(self) -> list[str]:
        """Every session id in the database, in order of first message."""
        return self.database.sessions()
