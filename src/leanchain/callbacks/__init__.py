"""Observing runs: the handler protocol and the run tree."""

from __future__ import annotations

from leanchain.callbacks.base import AsyncCallbackHandler, BaseCallbackHandler
from leanchain.callbacks.manager import CallbackManager, Callbacks, RunManager

__all__ = [
    "AsyncCallbackHandler",
    "BaseCallbackHandler",
    "CallbackManager",
    "Callbacks",
    "RunManager",
]
