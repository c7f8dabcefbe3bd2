"""Small helpers shared by the runnables: `AddableDict` and signature inspection."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import lru_cache
from typing import Any

__all__ = ["AddableDict", "accepts_config", "accepts_kwarg"]


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


@lru_cache(maxsize=1024)
def _parameters(func: Callable[..., Any]) -> frozenset[str]:
    try:
        return frozenset(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return frozenset()


def accepts_kwarg(func: Callable[..., Any], name: str) -> bool:
    """Whether `func` declares a parameter called `name`."""
    try:
        return name in _parameters(func)
    except TypeError:  # unhashable callable
        return name in inspect.signature(func).parameters


def accepts_config(func: Callable[..., Any]) -> bool:
    """Whether `func` wants the run's config passed as ``config=``."""
    return accepts_kwarg(func, "config")
