"""Small helpers shared by the runnables and the packages above: `AddableDict`, adding
chunks (`add`, `fold`, `afold`) and signature inspection."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import FunctionType
from typing import Any

from leanchain.callbacks.weak import WeakMemo
from leanchain.runnables._chunks import add, afold, fold

__all__ = ["AddableDict", "accepts_config", "accepts_kwarg", "add", "afold", "fold"]


class AddableDict(dict[str, Any]):
    """A dict whose ``+`` merges keys: values under the same key are added with ``+``.

    Raises:
        TypeError: two values under the same key cannot be added.
    """

    def __add__(self, other: dict[str, Any]) -> AddableDict:
        merged = AddableDict(self)
        for key, value in other.items():
            current = merged.get(key)
            if current is None:
                merged[key] = value
            elif value is not None:
                merged[key] = current + value
        return merged

    def __radd__(self, other: dict[str, Any]) -> AddableDict:
        merged = AddableDict(other)
        for key, value in self.items():
            current = merged.get(key)
            if current is None:
                merged[key] = value
            elif value is not None:
                merged[key] = current + value
        return merged


_names: WeakMemo[frozenset[str]] = WeakMemo()
"""A plain function's parameter names, by its code object: held weakly, and never by the
function itself, so no function (nor what its closure captures) is kept alive by it."""


def _parameters(func: Callable[..., Any]) -> frozenset[str]:
    # A plain function's parameter names are its code's: every function made from the same
    # code (a lambda built per request) shares one entry. Any other callable, or a function
    # whose signature says otherwise (``__wrapped__``, ``__signature__``), is asked each time.
    code = None
    if type(func) is FunctionType and not func.__dict__:
        code = func.__code__
        names = _names.get(code)
        if names is not None:
            return names
    try:
        names = frozenset(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        names = frozenset()
    if code is not None:
        _names.put(code, names)
    return names


def accepts_kwarg(func: Callable[..., Any], name: str) -> bool:
    """Whether `func` declares a parameter called `name`."""
    return name in _parameters(func)


def accepts_config(func: Callable[..., Any]) -> bool:
    """Whether `func` wants the run's config passed as ``config=``."""
    return accepts_kwarg(func, "config")
