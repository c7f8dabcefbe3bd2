"""The event-stream module (`leanchain.callbacks.events`), for `Runnable.stream_events`.

Imported on the first event stream, not when `runnables` is imported (most programs never
stream events), then kept: an import statement on every call costs more than the lookup.
"""

from __future__ import annotations

from types import ModuleType

__all__ = ["event_stream"]

_module: ModuleType | None = None


def event_stream() -> ModuleType:
    """`leanchain.callbacks.events` with its entry points loaded, imported on first use."""
    global _module
    if _module is None:
        from leanchain.callbacks import events
        from leanchain.callbacks.events import astream_events, stream_events  # noqa: F401

        _module = events
    return _module
