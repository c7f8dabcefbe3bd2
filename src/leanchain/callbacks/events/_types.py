"""The shape of stream events (LangChain's ``astream_events`` v2) and the rules that filter them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

__all__ = ["EventData", "EventFilter", "StreamClosed", "StreamEvent"]


class EventData(TypedDict, total=False):
    """The ``data`` of a standard event."""

    input: Any
    """The run's input (start and end events; absent when it was not known at the start)."""
    output: Any
    """The run's output (end events)."""
    chunk: Any
    """One chunk of the output (stream events)."""
    error: BaseException
    """What a tool raised (``on_tool_error``)."""


class StreamEvent(TypedDict):
    """One event of `Runnable.stream_events` / `astream_events`."""

    event: str
    """``on_{chain|prompt|parser|chat_model|tool}_{start|stream|end}``, ``on_tool_error``
    or ``on_custom_event``."""
    name: str
    """The run's name (a custom event's own name)."""
    run_id: str
    """The run's id (for a custom event: the run that dispatched it)."""
    parent_ids: list[str]
    """The ids of the run's ancestors, root first; empty for the root run."""
    tags: list[str]
    """The run's tags."""
    metadata: dict[str, Any]
    """The run's metadata."""
    data: Any
    """An `EventData` dict; for ``on_custom_event`` the value that was dispatched."""


class StreamClosed(BaseException):
    """Raised into a run whose event stream was closed by its consumer, to stop the run.

    A `BaseException`, like `GeneratorExit`, so that no ``except Exception`` swallows it.
    """


class EventFilter:
    """LangChain's include/exclude rules: by run name, run type and tag."""

    __slots__ = (
        "exclude_names",
        "exclude_tags",
        "exclude_types",
        "include_names",
        "include_tags",
        "include_types",
    )

    def __init__(
        self,
        include_names: Sequence[str] | None = None,
        include_types: Sequence[str] | None = None,
        include_tags: Sequence[str] | None = None,
        exclude_names: Sequence[str] | None = None,
        exclude_types: Sequence[str] | None = None,
        exclude_tags: Sequence[str] | None = None,
    ) -> None:
        self.include_names = None if include_names is None else frozenset(include_names)
        self.include_types = None if include_types is None else frozenset(include_types)
        self.include_tags = None if include_tags is None else frozenset(include_tags)
        self.exclude_names = None if exclude_names is None else frozenset(exclude_names)
        self.exclude_types = None if exclude_types is None else frozenset(exclude_types)
        self.exclude_tags = None if exclude_tags is None else frozenset(exclude_tags)

    @property
    def is_empty(self) -> bool:
        """Whether every event passes."""
        return all(getattr(self, slot) is None for slot in self.__slots__)

    def includes(self, name: str, run_type: str, tags: Sequence[str]) -> bool:
        """Whether the events of a run with this name, type and tags pass.

        With no include rule everything is included; otherwise a run must match one of them.
        Then any exclude rule that matches drops it.
        """
        names, types, with_tags = self.include_names, self.include_types, self.include_tags
        if names is None and types is None and with_tags is None:
            include = True
        else:
            include = (
                (names is not None and name in names)
                or (types is not None and run_type in types)
                or (with_tags is not None and any(tag in with_tags for tag in tags))
            )
        if self.exclude_names is not None and name in self.exclude_names:
            return False
        if self.exclude_types is not None and run_type in self.exclude_types:
            return False
        if self.exclude_tags is not None and any(tag in self.exclude_tags for tag in tags):
            return False
        return include
