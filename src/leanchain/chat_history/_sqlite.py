"""`SQLiteChatMessageHistory`: conversations kept in a SQLite file (the standard library's).

Each message is one row ``(id, session_id, message)`` of a table (``message_store`` by
default), in the order it was added. ``message`` is JSON text: ``{"type": ..., "data": {...},
"version": 1}``, the ``type``/``data`` shape of `messages_to_dict` (LangChain's SQL history
stores the same two keys, so either library reads the other's rows). Rows are read back with
`messages_from_dict`, which builds only leanchain's own message types: nothing stored can name
a class. Every statement is parameterised; the table name must be a plain identifier.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from leanchain.chat_history._base import BaseChatMessageHistory
from leanchain.messages import BaseMessage, message_to_dict, messages_from_dict

__all__ = ["FORMAT_VERSION", "SQLiteChatMessageHistory"]

FORMAT_VERSION = 1
"""The version written into every stored message."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SQLiteChatMessageHistory(BaseChatMessageHistory):
    """The messages of one session, stored in SQLite.

    ``SQLiteChatMessageHistory("user-1", "chat.db")`` opens the file for each read or write
    and closes it again, so a history object holds nothing open and can be made per request
    (``get_session_history=lambda sid: SQLiteChatMessageHistory(sid, "chat.db")``). Pass
    ``connection=`` instead to use a connection you own (an in-memory database, say); the
    history then shares it under a lock and never closes it.

    Args:
        session_id: which conversation this is.
        database: the SQLite file (created with its table when missing).
        table_name: the table (a plain identifier).
        connection: a connection to use instead of `database`.

    Raises:
        ValueError: neither or both of `database` and `connection`, or a table name that is
            not an identifier.
    """

    def __init__(
        self,
        session_id: str,
        database: str | os.PathLike[str] | None = None,
        *,
        table_name: str = "message_store",
        connection: sqlite3.Connection | None = None,
    ) -> None:
        if (database is None) == (connection is None):
            raise ValueError(
                "SQLiteChatMessageHistory needs exactly one of database (a file path) "
                "and connection"
            )
        if not _IDENTIFIER.fullmatch(table_name):
            raise ValueError(
                f"table_name must be a plain SQL identifier (letters, digits, _), "
                f"got {table_name!r}"
            )
        self.session_id = session_id
        self.table_name = table_name
        self._database = None if database is None else os.fspath(database)
        self._connection = connection
        self._lock = threading.Lock()
        self._sql = _statements(table_name)
        with self._connect() as db:
            db.execute(self._sql["create"])
            db.execute(self._sql["index"])

    def __repr__(self) -> str:
        where = self._database if self._database is not None else "<connection>"
        return (
            f"SQLiteChatMessageHistory(session_id={self.session_id!r}, database={where!r}, "
            f"table_name={self.table_name!r})"
        )

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection inside a transaction (committed on success, rolled back on error)."""
        if self._connection is not None:
            with self._lock, self._connection:
                yield self._connection
            return
        assert self._database is not None
        db = sqlite3.connect(self._database, timeout=10)
        try:
            with db:
                yield db
        finally:
            db.close()

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The session's messages, oldest first.

        Raises:
            ValueError: a stored row is not a message this version can read.
        """
        with self._connect() as db:
            rows = db.execute(self._sql["select"], (self.session_id,)).fetchall()
        return [_load(text) for (text,) in rows]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store `messages` at the end of the session, in one transaction."""
        rows = [(self.session_id, _dump(m)) for m in messages]
        with self._connect() as db:
            db.executemany(self._sql["insert"], rows)

    def clear(self) -> None:
        """Delete the session's messages (other sessions keep theirs)."""
        with self._connect() as db:
            db.execute(self._sql["delete"], (self.session_id,))


def _statements(table: str) -> dict[str, str]:
    """The statements over `table`, a name already checked to be a plain identifier (the one
    part of the SQL that is not a parameter)."""
    return {
        "create": (
            f"CREATE TABLE IF NOT EXISTS {table} (id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "session_id TEXT NOT NULL, message TEXT NOT NULL)"
        ),
        "index": f"CREATE INDEX IF NOT EXISTS {table}_session ON {table} (session_id)",
        "select": f"SELECT message FROM {table} WHERE session_id = ? ORDER BY id",  # noqa: S608
        "insert": f"INSERT INTO {table} (session_id, message) VALUES (?, ?)",  # noqa: S608
        "delete": f"DELETE FROM {table} WHERE session_id = ?",  # noqa: S608
    }


def _dump(message: BaseMessage) -> str:
    return json.dumps({**message_to_dict(message), "version": FORMAT_VERSION})


def _load(text: str) -> BaseMessage:
    try:
        entry: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"A stored message is not JSON: {text[:80]!r}") from exc
    version = entry.get("version", FORMAT_VERSION) if isinstance(entry, dict) else None
    if version != FORMAT_VERSION:
        raise ValueError(
            f"A stored message has format version {version!r}; this version of leanchain "
            f"reads version {FORMAT_VERSION}"
        )
    [message] = messages_from_dict([entry])
    return message
