"""Event streaming: `Runnable.stream_events` / `astream_events` (LangChain's v2 events).

One idea in six modules: the event's shape and filters (`_types`), a run's event names and
bookkeeping (`_run`), the handler that turns callbacks into events (`_collector`), the
producer threads (`_producers`), the sync delivery (`_sync`) and the two entry points
(`_stream`). The names are imported on first use (module ``__getattr__``): a program that
never streams events imports none of the machinery.
"""

from __future__ import annotations

import typing as _typing

from leanchain._lazy import lazy_face as _lazy_face

_EXPORTS: dict[str, str] = {
    "EventData": "leanchain.callbacks.events._types",
    "EventFilter": "leanchain.callbacks.events._types",
    "StreamClosed": "leanchain.callbacks.events._types",
    "StreamEvent": "leanchain.callbacks.events._types",
    "astream_events": "leanchain.callbacks.events._stream",
    "stream_events": "leanchain.callbacks.events._stream",
}

__all__ = [
    "EventData",
    "EventFilter",
    "StreamClosed",
    "StreamEvent",
    "astream_events",
    "stream_events",
]


__getattr__, __dir__ = _lazy_face(__name__, _EXPORTS)


if _typing.TYPE_CHECKING:
    from leanchain.callbacks.events._stream import astream_events, stream_events
    from leanchain.callbacks.events._types import EventData, EventFilter, StreamClosed, StreamEvent
