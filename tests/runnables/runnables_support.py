"""Test doubles shared by the runnable tests: a recording handler and a concurrency gauge."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from leanchain.callbacks import AsyncCallbackHandler, BaseCallbackHandler


@dataclass
class Event:
    """One callback event as a handler saw it."""

    kind: str
    name: str | None
    run_id: UUID
    parent_run_id: UUID | None
    tags: list[str] | None = None
    payload: Any = None
    metadata: dict[str, Any] | None = None


class Recorder(BaseCallbackHandler):
    """Records every chain event, in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.names: dict[UUID, str | None] = {}
        self._lock = threading.Lock()

    def _add(self, event: Event) -> None:
        with self._lock:
            self.events.append(event)

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        name = kwargs.get("name")
        self.names[run_id] = name
        self._add(Event("start", name, run_id, parent_run_id, tags, inputs, metadata))

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self._add(Event("end", self.names.get(run_id), run_id, parent_run_id, None, outputs))

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self._add(Event("error", self.names.get(run_id), run_id, parent_run_id, None, error))

    def on_chain_stream(
        self, chunk: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self._add(Event("stream", self.names.get(run_id), run_id, parent_run_id, None, chunk))

    def on_retry(
        self, retry_state: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self._add(Event("retry", self.names.get(run_id), run_id, parent_run_id, None, retry_state))

    def starts(self) -> list[tuple[str | None, list[str] | None]]:
        """``(name, tags)`` of every start event, in order."""
        return [(e.name, e.tags) for e in self.events if e.kind == "start"]

    def kinds(self) -> list[tuple[str, str | None]]:
        """``(kind, name)`` of every event, in order."""
        return [(e.kind, e.name) for e in self.events]

    def parent_of(self, name: str) -> str | None:
        """The name of the parent run of the first run called `name`."""
        for event in self.events:
            if event.kind == "start" and event.name == name:
                if event.parent_run_id is None:
                    return None
                return self.names[event.parent_run_id]
        raise KeyError(name)


class AsyncRecorder(AsyncCallbackHandler):
    """Records chain starts and ends from coroutine methods."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str | None]] = []

    async def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.events.append(("start", kwargs.get("name")))

    async def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self.events.append(("end", outputs))


@dataclass
class Gauge:
    """Counts how many calls are inside a section at once, and the most there ever were."""

    current: int = 0
    peak: int = 0
    calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __enter__(self) -> Gauge:
        with self._lock:
            self.current += 1
            self.calls += 1
            self.peak = max(self.peak, self.current)
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.current -= 1
