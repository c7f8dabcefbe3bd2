"""Observing runs: the handler protocol, the run tree, events and the console trace."""

from __future__ import annotations

from leanchain.callbacks._custom import adispatch_custom_event, dispatch_custom_event
from leanchain.callbacks._defaults import (
    add_default_handler,
    default_handlers,
    remove_default_handler,
)
from leanchain.callbacks._event_types import EventData, StreamEvent
from leanchain.callbacks._stdout import StdOutCallbackHandler
from leanchain.callbacks.base import AsyncCallbackHandler, BaseCallbackHandler
from leanchain.callbacks.console import ConsoleCallbackHandler
from leanchain.callbacks.manager import CallbackManager, Callbacks, RunManager

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
