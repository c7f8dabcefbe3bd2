"""The input side of a traced streaming run: chunks passed on, and their sum kept for the end.

A streaming run starts only once its first input chunk exists (so that the runs producing
its input start before it, as in LangChain), and its end event reports the sum of the input
chunks, since the input is not known when the run starts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from leanchain.runnables._chunks import add

__all__ = ["AsyncInputSum", "InputSum"]

_NONE: Any = object()


class InputSum:
    """An iterator over input chunks that adds them up (``+``; a non-addable chunk wins)."""

    __slots__ = ("_first", "_input", "total")

    def __init__(self, input: Iterator[Any]) -> None:
        self._input = iter(input)
        self._first: Any = _NONE
        self.total: Any = None
        """The sum of the chunks passed on so far (``None`` before the first)."""

    def pull_first(self) -> None:
        """Wait for the first chunk (it is passed on by the first `__next__`)."""
        first = next(self._input, _NONE)
        self._first = first
        if first is not _NONE:
            self.total = first

    def __iter__(self) -> InputSum:
        return self

    def __next__(self) -> Any:
        first = self._first
        if first is not _NONE:
            self._first = _NONE
            return first
        chunk = next(self._input)
        self.total = add(self.total, chunk)
        return chunk


class AsyncInputSum:
    """Async `InputSum`."""

    __slots__ = ("_first", "_input", "total")

    def __init__(self, input: AsyncIterator[Any]) -> None:
        self._input = input
        self._first: Any = _NONE
        self.total: Any = None
        """The sum of the chunks passed on so far (``None`` before the first)."""

    async def pull_first(self) -> None:
        """Wait for the first chunk (it is passed on by the first `__anext__`)."""
        first = await anext(self._input, _NONE)
        self._first = first
        if first is not _NONE:
            self.total = first

    def __aiter__(self) -> AsyncInputSum:
        return self

    async def __anext__(self) -> Any:
        first = self._first
        if first is not _NONE:
            self._first = _NONE
            return first
        chunk = await anext(self._input)
        self.total = add(self.total, chunk)
        return chunk
