"""The web chat's conversations: ids the server issues, each bound to the key that made it.

A conversation id is 32 random URL-safe characters (``secrets.token_urlsafe``), never chosen by a
client; its owner is the digest of the client key that created it (see ``access.py``). Every lookup
names the owner, and a conversation of another owner is reported exactly as a missing one, so a client
learns nothing of other keys' conversations. The registry is a table of the history database beside the
messages (:class:`HistoryDatabase`), so every process on one database shares it; conversations unused for
``retention_days`` are deleted with their messages.
"""

from __future__ import annotations

import secrets
import time

from sqlalchemy import Column, Float, Index, String, Table, select, update

from selfrag_langchain.errors import SelfRAGError
from selfrag_langchain.history import HistoryDatabase, SQLChatMessageHistory

TABLE = "selfrag_conversations"
DAY = 86_400.0


class ConversationNotFound(SelfRAGError):
    """No conversation with this id belongs to the caller."""


class Conversations:
    """Issue, check and delete the conversations of a history database."""

    def __init__(self, database: HistoryDatabase, retention_days: float = 30.0) -> None:
        self.database = database
        self.retention_days = retention_days
        self.table = Table(TABLE, database.metadata,
                           Column("id", String(64), primary_key=True),
                           Column("owner", String(64), nullable=False),
                           Column("created_at", Float, nullable=False),
                           Column("used_at", Float, nullable=False),
                           Index(f"{TABLE}_used", "used_at"),
                           extend_existing=True)
        database.add_tables(self.table)
        self.expire()

    def create(self, owner: str) -> str:
        """A new conversation of ``owner``; its id. Expired conversations go first."""
        self.expire()
        conversation = secrets.token_urlsafe(24)
        now = time.time()
        with self.database.engine.begin() as conn:
            conn.execute(self.table.insert().values(id=conversation, owner=owner, created_at=now, used_at=now))
        return conversation

    def history(self, conversation: str, owner: str) -> SQLChatMessageHistory:
        """The messages of ``owner``'s conversation.

        Raises:
            ConversationNotFound: no such conversation, or another owner's.
        """
        with self.database.engine.connect() as conn:
            found = conn.execute(select(self.table.c.owner).where(self.table.c.id == conversation)).scalar()
        if found is None or not secrets.compare_digest(found, owner):
            raise ConversationNotFound(f"no conversation {conversation!r}")
        return SQLChatMessageHistory(conversation, self.database)

    def touch(self, conversation: str) -> None:
        """Mark a conversation used now (its retention starts again)."""
        with self.database.engine.begin() as conn:
            conn.execute(update(self.table).where(self.table.c.id == conversation).values(used_at=time.time()))

    def delete(self, conversation: str, owner: str) -> None:
        """Delete ``owner``'s conversation and its messages.

        Raises:
            ConversationNotFound: no such conversation, or another owner's.
        """
        self.history(conversation, owner)
        messages = self.database.messages
        with self.database.engine.begin() as conn:
            conn.execute(messages.delete().where(messages.c.session_id == conversation))
            conn.execute(self.table.delete().where(self.table.c.id == conversation))

    def expire(self) -> int:
        """Delete the conversations unused for ``retention_days`` (none when it is 0); how many."""
        if self.retention_days <= 0:
            return 0
        cutoff = time.time() - self.retention_days * DAY
        stale = select(self.table.c.id).where(self.table.c.used_at < cutoff)
        messages = self.database.messages
        with self.database.engine.begin() as conn:
            conn.execute(messages.delete().where(messages.c.session_id.in_(stale)))
            return conn.execute(self.table.delete().where(self.table.c.used_at < cutoff)).rowcount
