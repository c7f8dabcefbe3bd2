"""A run as the event stream describes it: what `EventCollector` keeps of a run between its
start and its end, and the names of its events (LangChain's v2 families)."""

from __future__ import annotations

from typing import Any

from leanchain.callbacks.events._types import StreamEvent

__all__ = ["CHAIN_EVENTS", "EVENT_NAMES", "UNKNOWN", "EventRun", "event_of"]

EVENT_NAMES = {
    family: (f"on_{family}_start", f"on_{family}_stream", f"on_{family}_end")
    for family in ("chain", "prompt", "parser", "chat_model", "tool", "llm", "retriever")
}
"""The start, stream and end event names of each run type."""

CHAIN_EVENTS = EVENT_NAMES["chain"]
"""The event names of a chain run (and of a run of an unknown type)."""

UNKNOWN: Any = object()
"""The input of a streaming run, until its end reports the summed input chunks."""


class EventRun:
    """What the collector remembers of a run between its start and its end.

    One is made per run, by `EventCollector.on_chain_start`, which sets every field: a slotted
    class without ``__init__`` costs about what a tuple of the fields did, and reads its fields
    by name as fast as a tuple by index.
    """

    __slots__ = ("events", "included", "inputs", "metadata", "name", "parent_ids", "run_id", "tags")

    events: tuple[str, str, str]
    """The names of the run's start, stream and end events."""
    name: str
    """The run's name."""
    run_id: str
    """The run's id, as events carry it."""
    parent_ids: list[str]
    """The ids of the run's ancestors, root first."""
    tags: list[str]
    """The run's tags."""
    metadata: dict[str, Any]
    """The run's metadata."""
    included: bool
    """Whether the run's events pass the stream's filter."""
    inputs: Any
    """The run's input (`UNKNOWN` for a streaming run until it ends)."""


def event_of(run: EventRun, event: str, data: Any) -> StreamEvent:
    """The event `event` of `run`, with `data`."""
    return {
        "event": event,
        "name": run.name,
        "run_id": run.run_id,
        "parent_ids": run.parent_ids,
        "tags": run.tags,
        "metadata": run.metadata,
        "data": data,
    }
