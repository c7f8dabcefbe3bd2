"""Adding chunks together: how a step that cannot stream turns its input stream into a value.

Chunks add with ``+`` (message chunks merge, strings concatenate, `AddableDict`s merge); a
chunk that cannot be added to the sum so far replaces it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

__all__ = ["aclose", "add", "adds_at_once", "afold", "close", "fold"]


def add(left: Any, right: Any) -> Any:
    """``left + right``, or `right` when the two cannot be added."""
    try:
        return left + right
    except TypeError:
        return right


def adds_at_once(value: Any) -> bool:
    """Whether `value`'s class adds a list of chunks of its class in one step, giving the
    sum that adding them one by one gives (message chunks: ``a + [b, c] == a + b + c``)."""
    return getattr(type(value), "_adds_at_once", False) is True


def _add_held(total: Any, held: list[Any]) -> Any:
    """`total` plus the `held` chunks in one step; where that fails with a `TypeError` (a
    metadata value of another type), one by one, each that cannot be added replacing the
    sum, as `fold` adds any chunk."""
    try:
        return total + held
    except TypeError:
        for chunk in held:
            total = add(total, chunk)
        return total


def fold(chunks: Iterator[Any]) -> tuple[bool, Any]:
    """Whether there was any chunk, and the sum of the chunks.

    Chunks of the sum's own class that add a list at once (`adds_at_once`) are held and
    added in one step: one merge for a streamed reply, not one per token (each would copy
    the text so far). The sum is the same; an error other than a `TypeError` in adding
    them is raised when they are added, after the chunks held.
    """
    got = False
    total: Any = None
    held: list[Any] = []
    for chunk in chunks:
        if not got:
            total, got = chunk, True
            continue
        if type(chunk) is type(total) and adds_at_once(total):
            held.append(chunk)
            continue
        if held:
            total, held = _add_held(total, held), []
        try:
            total = total + chunk
        except TypeError:
            total = chunk
    return got, _add_held(total, held) if held else total


async def afold(chunks: AsyncIterator[Any]) -> tuple[bool, Any]:
    """Async `fold`."""
    got = False
    total: Any = None
    held: list[Any] = []
    async for chunk in chunks:
        if not got:
            total, got = chunk, True
            continue
        if type(chunk) is type(total) and adds_at_once(total):
            held.append(chunk)
            continue
        if held:
            total, held = _add_held(total, held), []
        try:
            total = total + chunk
        except TypeError:
            total = chunk
    return got, _add_held(total, held) if held else total


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
