"""The shared, thread-safe state of a FakeProviderServer: its script, records and connections."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import deque
from typing import Any

from leanchain.testing._recording import RecordedRequest
from leanchain.testing._script import Provider, ScriptItem

__all__ = ["ServerState"]


class ServerState:
    """What the handler threads and the test thread share; every method takes the one lock."""

    def __init__(self, *, chunk_size: int, anthropic_ping: bool) -> None:
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {chunk_size!r}")
        self.chunk_size = chunk_size
        self.anthropic_ping = anthropic_ping
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._script: deque[tuple[Provider | None, ScriptItem]] = deque()
        self._requests: list[RecordedRequest] = []
        self._counters: dict[str, int] = {}
        self._rejections: list[tuple[str, str | None]] = []
        self._keys: frozenset[str] | None = None
        self._connections: dict[socket.socket, threading.Thread] = {}

    def enqueue(self, items: tuple[ScriptItem, ...], provider: Provider | None) -> None:
        """Append items that a request of ``provider`` (or of either, for ``None``) may take."""
        with self._lock:
            self._script.extend((provider, item) for item in items)

    def take(self, provider: Provider) -> ScriptItem | None:
        """Remove and return the first item a request of ``provider`` may take."""
        with self._lock:
            for position, (wanted, item) in enumerate(self._script):
                if wanted is None or wanted == provider:
                    del self._script[position]
                    return item
        return None

    def reject(self, param: str, model: str | None) -> None:
        """Have OpenAI requests for ``model`` (any, for ``None``) that send ``param`` fail."""
        with self._lock:
            self._rejections.append((param, model))

    def rejected_parameter(self, body: dict[str, Any]) -> str | None:
        """The first parameter of ``body`` that a rejection rule matches, or ``None``."""
        with self._lock:
            rules = list(self._rejections)
        model = body.get("model")
        for param, wanted in rules:
            if param in body and (wanted is None or wanted == model):
                return param
        return None

    def require_keys(self, keys: frozenset[str] | None) -> None:
        """Accept only requests that carry one of `keys` (``None``: any)."""
        with self._lock:
            self._keys = keys

    def key_accepted(self, key: str | None) -> bool:
        """Whether a request with credential `key` is let through."""
        with self._lock:
            keys = self._keys
        return keys is None or key in keys

    def pending(self) -> tuple[ScriptItem, ...]:
        """The items not taken yet, in order."""
        with self._lock:
            return tuple(item for _, item in self._script)

    def record(self, request: RecordedRequest) -> None:
        """Keep ``request`` for the tests' assertions."""
        with self._lock:
            self._requests.append(request)

    def requests(self, provider: Provider | None = None) -> list[RecordedRequest]:
        """The recorded requests, all of them or those of one provider's route."""
        with self._lock:
            if provider is None:
                return list(self._requests)
            return [request for request in self._requests if request.provider == provider]

    def next_id(self, prefix: str) -> str:
        """``prefix`` plus the next number for that prefix: ``call_1``, ``call_2``, ..."""
        with self._lock:
            number = self._counters.get(prefix, 0) + 1
            self._counters[prefix] = number
        return f"{prefix}{number}"

    def reset(self) -> None:
        """Forget the script, the records and the id counters."""
        with self._lock:
            self._script.clear()
            self._requests.clear()
            self._counters.clear()
            self._rejections.clear()
            self._keys = None

    def wait(self, seconds: float | None) -> bool:
        """Sleep, waking early when the server stops; returns whether it is still running."""
        if seconds == 0:
            return not self.stopping.is_set()
        return not self.stopping.wait(seconds)

    def track(self, conn: socket.socket) -> None:
        """Remember an open connection and the thread serving it, so that stop can drop it."""
        with self._lock:
            self._connections[conn] = threading.current_thread()
        if self.stopping.is_set():
            drop(conn)

    def untrack(self, conn: socket.socket) -> None:
        """Forget a connection its handler has finished with."""
        with self._lock:
            self._connections.pop(conn, None)

    def drop_connections(self) -> list[threading.Thread]:
        """Shut every open connection down; returns the threads that were serving them."""
        with self._lock:
            connections = dict(self._connections)
        for conn in connections:
            drop(conn)
        return list(connections.values())


def drop(conn: socket.socket) -> None:
    """Shut a socket down both ways, waking a handler blocked on reading it."""
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)
