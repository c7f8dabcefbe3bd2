"""A run as the event stream describes it: what `EventCollector` keeps of a run between its
start and its end, and the names of its events (LangChain's v2 families)."""

from __future__ import annotations

from typing import Any, TypeAlias

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

EventRun: TypeAlias = tuple[
    tuple[str, str, str], str, str, list[str], list[str], dict[str, Any], bool, Any
]
"""What the collector remembers of a run between its start and its end, in this order: the
names of its start, stream and end events; its name; its id as events carry it; the ids of
its ancestors, root first; its tags; its metadata; whether its events pass the filter; its
input (`UNKNOWN` for a streaming run until it ends). A plain tuple: one is made per run, and
a tuple costs a third of an object with as many attributes."""


def event_of(run: EventRun, event: str, data: Any) -> StreamEvent:
    """The event `event` of `run`, with `data`."""
    _, name, run_id, parent_ids, tags, metadata, _, _ = run
    return {
        "event": event,
        "name": name,
        "run_id": run_id,
        "parent_ids": parent_ids,
        "tags": tags,
        "metadata": metadata,
        "data": data,
    }
