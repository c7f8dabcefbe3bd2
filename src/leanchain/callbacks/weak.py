"""Remembering something about an object without keeping the object alive.

What the library learns about a user's object (a handler class's hooks, a function's
parameters, how a runnable's last event stream went) is remembered in a `WeakMemo`: by the
object's identity, through a weak reference, so the entry goes when the object does and a
cache never holds a user's function, class or runnable — or what they capture — alive.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Generic, TypeVar

__all__ = ["WeakMemo"]

V = TypeVar("V")


class WeakMemo(Generic[V]):
    """Values remembered per object, by identity, for as long as the object lives.

    The object is held through a weak reference only, and its entry is dropped when it dies.
    A value must not refer to its object (that would keep the object alive). An object that
    cannot be weakly referenced is not remembered. With `limit`, the oldest entry goes first
    when the memo is full.
    """

    __slots__ = ("_entries", "_limit", "_lock")

    def __init__(self, limit: int | None = None) -> None:
        self._entries: dict[int, tuple[weakref.ref[Any], V]] = {}
        self._limit = limit
        self._lock = threading.Lock()

    def get(self, obj: object) -> V | None:
        """The value remembered for `obj`, or ``None``."""
        entry = self._entries.get(id(obj))
        if entry is not None and entry[0]() is obj:
            return entry[1]
        return None

    def put(self, obj: object, value: V) -> None:
        """Remember `value` for `obj` (nothing happens if `obj` has no weak references)."""
        key = id(obj)
        entries = self._entries

        def forget(ref: weakref.ref[Any]) -> None:
            # Runs when `obj` dies, in whichever thread drops it: plain dict operations only.
            entry = entries.get(key)
            if entry is not None and entry[0] is ref:
                entries.pop(key, None)

        try:
            ref = weakref.ref(obj, forget)
        except TypeError:
            return
        with self._lock:
            limit = self._limit
            if limit is not None and key not in entries:
                while len(entries) >= limit:
                    try:
                        entries.pop(next(iter(entries)), None)
                    except (StopIteration, RuntimeError):
                        break
            entries[key] = (ref, value)

    def discard(self, obj: object) -> None:
        """Forget `obj`."""
        key = id(obj)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0]() is obj:
                self._entries.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)
