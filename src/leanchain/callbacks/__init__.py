"""Observing runs: the handler protocol, the run tree, events and the console trace.

The names are imported on first use (module ``__getattr__``): a program that never prints a
trace does not import the console handler.
"""

from __future__ import annotations

import typing as _typing

from leanchain._lazy import lazy_face as _lazy_face

_EXPORTS: dict[str, str] = {
    "AsyncCallbackHandler": "leanchain.callbacks.base",
    "BaseCallbackHandler": "leanchain.callbacks.base",
    "CallbackManager": "leanchain.callbacks.manager",
    "Callbacks": "leanchain.callbacks.manager",
    "ConsoleCallbackHandler": "leanchain.callbacks.console",
    "EventData": "leanchain.callbacks.events",
    "RunManager": "leanchain.callbacks.manager",
    "StdOutCallbackHandler": "leanchain.callbacks._stdout",
    "StreamEvent": "leanchain.callbacks.events",
    "add_default_handler": "leanchain.callbacks.defaults",
    "adispatch_custom_event": "leanchain.callbacks._custom",
    "default_handlers": "leanchain.callbacks.defaults",
    "dispatch_custom_event": "leanchain.callbacks._custom",
    "remove_default_handler": "leanchain.callbacks.defaults",
}

__all__ = [
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


__getattr__, __dir__ = _lazy_face(__name__, _EXPORTS)


if _typing.TYPE_CHECKING:
    from leanchain.callbacks._custom import adispatch_custom_event, dispatch_custom_event
    from leanchain.callbacks._stdout import StdOutCallbackHandler
    from leanchain.callbacks.base import AsyncCallbackHandler, BaseCallbackHandler
    from leanchain.callbacks.console import ConsoleCallbackHandler
    from leanchain.callbacks.defaults import (
        add_default_handler,
        default_handlers,
        remove_default_handler,
    )
    from leanchain.callbacks.events import EventData, StreamEvent
    from leanchain.callbacks.manager import CallbackManager, Callbacks, RunManager
