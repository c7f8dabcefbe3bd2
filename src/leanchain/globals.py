"""Process-wide switches: LangChain's ``set_debug`` and ``set_verbose``.

``set_debug(True)`` prints every run of the process from then on, nested, through a
`ConsoleCallbackHandler` registered as a default handler (so it costs nothing while off);
``set_debug(False)`` removes it. ``set_verbose(True)`` is the default for the ``verbose``
setting of what reads it (an `AgentExecutor` prints its run). Both are plain flags, read with
`get_debug` and `get_verbose`.
"""

from __future__ import annotations

import threading

from leanchain.callbacks import add_default_handler, remove_default_handler
from leanchain.callbacks.console import ConsoleCallbackHandler

__all__ = ["get_debug", "get_verbose", "set_debug", "set_verbose"]

_lock = threading.Lock()
_state: dict[str, bool] = {"debug": False, "verbose": False}
_debug_handler: list[ConsoleCallbackHandler] = []


def set_debug(value: bool) -> None:
    """Print every run from now on (``True``), or stop (``False``)."""
    with _lock:
        _state["debug"] = bool(value)
        if value and not _debug_handler:
            handler = ConsoleCallbackHandler(nested=True)
            _debug_handler.append(handler)
            add_default_handler(handler)
        elif not value and _debug_handler:
            remove_default_handler(_debug_handler.pop())


def get_debug() -> bool:
    """Whether `set_debug` is on."""
    return _state["debug"]


def set_verbose(value: bool) -> None:
    """Make ``verbose`` on by default for what reads it (an `AgentExecutor`)."""
    _state["verbose"] = bool(value)


def get_verbose() -> bool:
    """Whether `set_verbose` is on."""
    return _state["verbose"]
