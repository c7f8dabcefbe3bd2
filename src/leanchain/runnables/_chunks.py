"""Adding chunks together: how a step that cannot stream turns its input stream into a value.

Chunks add with ``+`` (message chunks merge, strings concatenate, `AddableDict`s merge); a
chunk that cannot be added to the sum so far replaces it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

__all__ = ["aclose", "add", "afold", "close", "fold"]


def add(left: Any, right: Any) -> Any:
    """``left + right``, or `right` when the two cannot be added."""
    try:
        return left + right
    except TypeError:
        return right


def fold(chunks: Iterator[Any]) -> tuple[bool, Any]:
    """Whether there was any chunk, and the sum of the chunks."""
    got = False
    total: Any = None
    for chunk in chunks:
        if not got:
            total, got = chunk, True
            continue
        try:
            total = total + chunk
        except TypeError:
            total = chunk
    return got, total


async def afold(chunks: AsyncIterator[Any]) -> tuple[bool, Any]:
    """Async `fold`."""
    got = False
    total: Any = None
    async for chunk in chunks:
        if not got:
            total, got = chunk, True
            continue
        try:
            total = total + chunk
        except TypeError:
            total = chunk
    return got, total


def close(chunks: Iterator[Any]) -> None:
    """Close `chunks` now when it can be closed (a generator a consumer stopped reading), so
    that the runs inside it end before the run around it does."""
    stop = getattr(chunks, "close", None)
    if stop is not None:
        stop()


async def aclose(chunks: AsyncIterator[Any]) -> None:
    """Close `chunks` now when it can be closed (an async generator left early: call it from
    an ``except BaseException`` around the loop, so that a stream read to its end costs
    nothing).

    Its ``finally`` blocks, and the tasks they cancel, then end before the caller goes on,
    instead of whenever the event loop finalises the abandoned generator.
    """
    close = getattr(chunks, "aclose", None)
    if close is not None:
        await close()
