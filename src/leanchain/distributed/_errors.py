"""How an item's exception crosses from a Ray worker back to the caller.

The worker never ships the exception object itself: user exceptions often hold things that do
not serialize (clients, sockets, locks). It ships a `RemoteFailure` — the class's module and
qualified name, the message, the arguments and attributes that are plain data, and the
formatted traceback. The caller rebuilds the original class from that when the class is
already imported here (nothing is imported on the worker's say-so) and the rebuilt exception
prints the same message; otherwise it raises `DistributedItemError`, which names the type.
"""

from __future__ import annotations

import os
import sys
import traceback
from dataclasses import dataclass
from typing import Any

from leanchain.errors import DistributedItemError

__all__ = ["DistributedItemError", "RemoteFailure", "capture", "rebuild"]

_MAX_DEPTH = 6


@dataclass(frozen=True, slots=True)
class RemoteFailure:
    """An exception raised on a worker, described in plain data."""

    module: str
    """The module of the exception's class."""
    qualname: str
    """The qualified name of the exception's class."""
    message: str
    """``str(exc)`` on the worker."""
    args: tuple[Any, ...] | None
    """``exc.args`` when they are plain data, else ``None``."""
    state: dict[str, Any]
    """The exception's attributes that are plain data."""
    traceback: str
    """The formatted traceback, chained exceptions included."""
    pid: int
    """The worker process that raised it."""

    @property
    def type_name(self) -> str:
        """``module.QualName``, builtins by their bare name."""
        return self.qualname if self.module == "builtins" else f"{self.module}.{self.qualname}"


def _is_plain(value: object, depth: int = 0) -> bool:
    """Whether `value` is built only of str, numbers, bytes, None and containers of those."""
    if value is None or isinstance(value, (str, int, float, bytes)):
        return True
    if depth >= _MAX_DEPTH:
        return False
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain(v, depth + 1) for k, v in value.items())
    return False


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return f"<{type(exc).__name__}: str() failed>"


def capture(exc: BaseException) -> RemoteFailure:
    """Describe `exc` (on the worker) so that the caller can rebuild or name it."""
    cls = type(exc)
    state = {k: v for k, v in vars(exc).items() if _is_plain(v)}
    return RemoteFailure(
        module=cls.__module__,
        qualname=cls.__qualname__,
        message=_safe_str(exc),
        args=exc.args if _is_plain(exc.args) else None,
        state=state,
        traceback="".join(traceback.format_exception(exc)),
        pid=os.getpid(),
    )


def _find_class(module: str, qualname: str) -> type[Exception] | None:
    """The exception class, if its module is already imported here; never imports."""
    found: object = sys.modules.get(module)
    for part in qualname.split("."):
        if found is None or part == "<locals>":
            return None
        found = getattr(found, part, None)
    if isinstance(found, type) and issubclass(found, Exception):
        return found
    return None


def _construct(cls: type[Exception], failure: RemoteFailure) -> Exception | None:
    """Rebuild as pickle would (``cls(*args)`` and attributes), else without ``__init__``."""
    args = failure.args if failure.args is not None else (failure.message,)
    try:
        exc = cls(*args)
    except Exception:
        try:
            exc = cls.__new__(cls, *args)
            exc.args = args
        except Exception:
            return None
    try:
        exc.__dict__.update(failure.state)
    except Exception:
        return None
    if type(exc) is not cls or _safe_str(exc) != failure.message:
        return None
    return exc


def rebuild(failure: RemoteFailure, index: int) -> Exception:
    """The exception to hand the caller for item `index`: the original class when possible.

    Either way it carries a note naming the item and the worker, with the remote traceback.
    """
    cls = _find_class(failure.module, failure.qualname)
    exc = _construct(cls, failure) if cls is not None else None
    if exc is None:
        exc = DistributedItemError(failure.type_name, failure.message, failure.traceback)
    exc.add_note(
        f"Raised by item {index} on a Ray worker (pid {failure.pid}). "
        f"Remote traceback:\n{failure.traceback.rstrip()}"
    )
    return exc
