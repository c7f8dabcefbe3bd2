"""The public faces of `leanchain.callbacks` and `leanchain.tracing`."""

from __future__ import annotations

import leanchain.callbacks
import leanchain.tracing


def test_callbacks_exports() -> None:
    assert leanchain.callbacks.__all__ == [
        "AsyncCallbackHandler",
        "BaseCallbackHandler",
        "CallbackManager",
        "Callbacks",
        "ConsoleCallbackHandler",
        "EventData",
        "RunManager",
        "StdOutCallbackHandler",
        "StreamEvent",
        "add_default_handler",
        "adispatch_custom_event",
        "default_handlers",
        "dispatch_custom_event",
        "remove_default_handler",
    ]
    public = {n for n in dir(leanchain.callbacks) if not n.startswith("_")}
    modules = {"base", "console", "defaults", "events", "manager", "weak"}
    assert public - modules - {"annotations"} == set(leanchain.callbacks.__all__)


def test_tracing_exports() -> None:
    assert leanchain.tracing.__all__ == [
        "OpenTelemetryCallbackHandler",
        "instrument",
        "uninstrument",
    ]
    for name in leanchain.tracing.__all__:
        assert getattr(leanchain.tracing, name).__module__.startswith("leanchain.tracing")
