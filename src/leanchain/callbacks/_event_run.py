"""A run as the event stream describes it: what `EventCollector` keeps of a run between its
start and its end, and the names of its events (LangChain's v2 families)."""

from __future__ import annotations

from typing import Any

from leanchain.callbacks._event_types import StreamEvent

__all__ = ["EVENT_NAMES", "UNKNOWN", "EventRun"]

EVENT_NAMES = {
    family: (f"on_{family}_start", f"on_{family}_stream", f"on_{family}_end")
    for family in ("chain", "prompt", "parser", "chat_model", "tool", "llm")
}
"""The start, stream and end event names of each run type."""

UNKNOWN: Any = object()
"""The input of a streaming run, until its end reports the summed input chunks."""


class EventRun:
    """What the collector remembers of a run between its start and its end."""

    __slots__ = (
        "events",
        "id",
        "include",
        "inputs",
        "metadata",
        "name",
        "parent_ids",
        "tags",
    )

    id: str
    """The run's id, as events carry it."""
    name: str
    """The run's name."""
    tags: list[str]
    """The run's tags."""
    metadata: dict[str, Any]
    """The run's metadata."""
    parent_ids: list[str]
    """The ids of the run's ancestors, root first."""
    inputs: Any
    """The run's input (`UNKNOWN` for a streaming run until it ends)."""
    include: bool
    """Whether the run's events pass the filter."""
    events: tuple[str, str, str]
    """The names of the run's start, stream and end events."""

    def event(self, name: str, data: Any) -> StreamEvent:
        """The event `name` of this run, with `data`."""
        return {
            "event": name,
            "name": self.name,
            "run_id": self.id,
            "parent_ids": self.parent_ids,
            "tags": self.tags,
            "metadata": self.metadata,
            "data": data,
        }
