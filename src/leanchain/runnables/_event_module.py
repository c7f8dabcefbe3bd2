"""The event-stream module (`leanchain.callbacks._event_stream`), for `Runnable.stream_events`.

Imported on the first event stream, not when `runnables` is imported (most programs never
stream events), then kept: an import statement on every call costs more than the lookup.
"""

from __future__ import annotations

from types import ModuleType

__all__ = ["event_stream"]

_module: ModuleType | None = None


def event_stream() -> ModuleType:
    """`leanchain.callbacks._event_stream`, imported on first use."""
    global _module
    if _module is None:
        from leanchain.callbacks import _event_stream

        _module = _event_stream
    return _module
