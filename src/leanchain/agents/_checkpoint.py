"""Checkpointers: where an agent run's state is kept, by thread id, between its steps.

``AgentExecutor(..., checkpointer=SqliteCheckpointer("runs.db"))`` saves the run's
`RunState` (its JSON form) when it starts, after every step, when it pauses and when it
finishes, under ``config["configurable"]["thread_id"]``; ``executor.resume(thread_id, ...)``
reads it back, in the same process or in another one after this one died.

A checkpointer also keeps a small journal of the tool calls a resumed run makes (started,
done with its observation), so that a call a person approved runs at most once even when
the process dies in the middle of that step.

`BaseCheckpointer` is the interface (four storage methods); `InMemoryCheckpointer` and
`SqliteCheckpointer` (standard library ``sqlite3``) implement it, and a shared database is
one more subclass. Every method is safe to call from several threads at once.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from abc import ABC, abstractmethod
from os import PathLike
from typing import TYPE_CHECKING, Any, Final

from leanchain.agents._state import RunState
from leanchain.errors import RunStateError

if TYPE_CHECKING:
    import sqlite3

__all__ = ["BaseCheckpointer", "InMemoryCheckpointer", "SqliteCheckpointer"]

SCHEMA_VERSION: Final = 1
"""The version of `SqliteCheckpointer`'s tables (SQLite's ``user_version``)."""


class BaseCheckpointer(ABC):
    """Keeps the latest state of each thread's run, and the journal of its resumed calls.

    Subclasses implement the storage methods `put_json`, `get_json`, `delete`, `threads`,
    `put_call` and `get_call`; the async twins run them on a worker thread (override them
    for a store with a real async client).
    """

    __slots__ = ()

    # -- storage (what a subclass writes) ---------------------------------------------------

    @abstractmethod
    def put_json(self, thread_id: str, run_id: str, seq: int, text: str) -> None:
        """Store `text` (a state's JSON form) as `thread_id`'s latest state.

        A state of a new run (`seq` 1) also drops the thread's journal of earlier runs.
        """

    @abstractmethod
    def get_json(self, thread_id: str) -> str | None:
        """`thread_id`'s latest state (its JSON form), or ``None``."""

    @abstractmethod
    def delete(self, thread_id: str) -> None:
        """Forget `thread_id`: its state and its journal."""

    @abstractmethod
    def threads(self) -> list[str]:
        """The thread ids with a saved state, sorted."""

    @abstractmethod
    def put_call(self, thread_id: str, run_id: str, key: str, record: dict[str, Any]) -> None:
        """Record what became of one tool call of `run_id` (`record` is plain JSON data)."""

    @abstractmethod
    def get_call(self, thread_id: str, run_id: str, key: str) -> dict[str, Any] | None:
        """The record of one tool call, or ``None`` when it was never started."""

    # -- states ---------------------------------------------------------------------------

    def put(self, thread_id: str, state: RunState) -> None:
        """Save `state` as `thread_id`'s latest.

        Raises:
            RunStateError: the state holds a value that is not plain data.
        """
        self.put_json(thread_id, state.run_id, state.seq, state.to_json())

    def get(self, thread_id: str) -> RunState | None:
        """`thread_id`'s latest state, read back from its JSON form, or ``None``.

        Raises:
            RunStateError: what is stored is not a run state this leanchain reads.
        """
        text = self.get_json(thread_id)
        return None if text is None else RunState.from_json(text)

    async def aput(self, thread_id: str, state: RunState) -> None:
        """Async `put`."""
        await asyncio.to_thread(self.put, thread_id, state)

    async def aput_json(self, thread_id: str, run_id: str, seq: int, text: str) -> None:
        """Async `put_json`."""
        await asyncio.to_thread(self.put_json, thread_id, run_id, seq, text)

    async def aget(self, thread_id: str) -> RunState | None:
        """Async `get`."""
        return await asyncio.to_thread(self.get, thread_id)

    async def aput_call(
        self, thread_id: str, run_id: str, key: str, record: dict[str, Any]
    ) -> None:
        """Async `put_call`."""
        await asyncio.to_thread(self.put_call, thread_id, run_id, key, record)

    async def aget_call(self, thread_id: str, run_id: str, key: str) -> dict[str, Any] | None:
        """Async `get_call`."""
        return await asyncio.to_thread(self.get_call, thread_id, run_id, key)


class InMemoryCheckpointer(BaseCheckpointer):
    """Keeps states in this process (as their JSON text, so a saved state never changes).

    For tests, and for pausing a run and resuming it later in the same process.
    """

    __slots__ = ("_calls", "_lock", "_states")

    def __init__(self) -> None:
        self._states: dict[str, str] = {}
        self._calls: dict[str, dict[tuple[str, str], str]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"InMemoryCheckpointer(threads={len(self._states)})"

    def put_json(self, thread_id: str, run_id: str, seq: int, text: str) -> None:
        with self._lock:
            self._states[thread_id] = text
            if seq == 1:
                calls = self._calls.get(thread_id)
                if calls:
                    self._calls[thread_id] = {k: v for k, v in calls.items() if k[0] == run_id}

    def get_json(self, thread_id: str) -> str | None:
        with self._lock:
            return self._states.get(thread_id)

    def delete(self, thread_id: str) -> None:
        with self._lock:
            self._states.pop(thread_id, None)
            self._calls.pop(thread_id, None)

    def threads(self) -> list[str]:
        with self._lock:
            return sorted(self._states)

    def put_call(self, thread_id: str, run_id: str, key: str, record: dict[str, Any]) -> None:
        text = json.dumps(record, ensure_ascii=False, allow_nan=False)
        with self._lock:
            self._calls.setdefault(thread_id, {})[(run_id, key)] = text

    def get_call(self, thread_id: str, run_id: str, key: str) -> dict[str, Any] | None:
        with self._lock:
            text = self._calls.get(thread_id, {}).get((run_id, key))
        return None if text is None else _record(text)

    async def aput(self, thread_id: str, state: RunState) -> None:
        self.put(thread_id, state)

    async def aput_json(self, thread_id: str, run_id: str, seq: int, text: str) -> None:
        self.put_json(thread_id, run_id, seq, text)

    async def aget(self, thread_id: str) -> RunState | None:
        return self.get(thread_id)

    async def aput_call(
        self, thread_id: str, run_id: str, key: str, record: dict[str, Any]
    ) -> None:
        self.put_call(thread_id, run_id, key, record)

    async def aget_call(self, thread_id: str, run_id: str, key: str) -> dict[str, Any] | None:
        return self.get_call(thread_id, run_id, key)


def _record(text: str) -> dict[str, Any]:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise RunStateError(f"A tool-call record must be a JSON object, got {text[:80]!r}")
    return data


_TABLES: Final = """
CREATE TABLE IF NOT EXISTS runs (
    thread_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS calls (
    thread_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    key TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (thread_id, run_id, key)
);
"""


class SqliteCheckpointer(BaseCheckpointer):
    """Keeps states in a SQLite database file (standard library ``sqlite3``).

    Several processes may share the file. The database runs in WAL mode with
    ``synchronous=NORMAL``: a committed step survives the process being killed (a power
    cut may lose the last steps). Every query is parameterised.

    Args:
        path: the database file (created with its tables if missing), or ``":memory:"``.
        timeout: seconds to wait for another process's write lock.

    Raises:
        RunStateError: the file's tables were made by a newer leanchain.
    """

    __slots__ = ("_conn", "_lock", "path")

    def __init__(self, path: str | PathLike[str], *, timeout: float = 30.0) -> None:
        import sqlite3

        self.path = str(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection = sqlite3.connect(
            self.path, timeout=timeout, check_same_thread=False, isolation_level=None
        )
        try:
            self._setup()
        except BaseException:
            self._conn.close()
            raise

    def _setup(self) -> None:
        conn = self._conn
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RunStateError(
                f"The checkpoint database {self.path!r} has tables of version {version}, "
                f"written by a newer leanchain; this one reads version {SCHEMA_VERSION}"
            )
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(_TABLES)
        if version < SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def __repr__(self) -> str:
        return f"SqliteCheckpointer({self.path!r})"

    def close(self) -> None:
        """Close the database connection (the checkpointer cannot be used afterwards)."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SqliteCheckpointer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def put_json(self, thread_id: str, run_id: str, seq: int, text: str) -> None:
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(
                    "INSERT INTO runs (thread_id, run_id, seq, state, updated_at) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT(thread_id) DO UPDATE SET "
                    "run_id = excluded.run_id, seq = excluded.seq, state = excluded.state, "
                    "updated_at = excluded.updated_at",
                    (thread_id, run_id, seq, text, time.time()),
                )
                if seq == 1:
                    conn.execute(
                        "DELETE FROM calls WHERE thread_id = ? AND run_id <> ?",
                        (thread_id, run_id),
                    )
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def get_json(self, thread_id: str) -> str | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT state FROM runs WHERE thread_id = ?", (thread_id,)
            ).fetchone()
        return None if row is None else str(row[0])

    def delete(self, thread_id: str) -> None:
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute("DELETE FROM runs WHERE thread_id = ?", (thread_id,))
                conn.execute("DELETE FROM calls WHERE thread_id = ?", (thread_id,))
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def threads(self) -> list[str]:
        with self._lock:
            rows = self._conn.execute("SELECT thread_id FROM runs ORDER BY thread_id").fetchall()
        return [str(row[0]) for row in rows]

    def put_call(self, thread_id: str, run_id: str, key: str, record: dict[str, Any]) -> None:
        text = json.dumps(record, ensure_ascii=False, allow_nan=False)
        with self._lock:
            self._conn.execute(
                "INSERT INTO calls (thread_id, run_id, key, record) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(thread_id, run_id, key) DO UPDATE SET record = excluded.record",
                (thread_id, run_id, key, text),
            )

    def get_call(self, thread_id: str, run_id: str, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT record FROM calls WHERE thread_id = ? AND run_id = ? AND key = ?",
                (thread_id, run_id, key),
            ).fetchone()
        return None if row is None else _record(str(row[0]))
