"""`stream_events` / `astream_events`: a run's events, delivered while the run goes on.

The sync form runs the runnable's `stream` on a producer thread whose `EventCollector` feeds
a queue that the caller's generator drains, unless the run is known to be over before anyone
could see it go on (`_sync`); the async form runs `astream` as a task feeding a buffer
that the caller's generator drains. Either way an event reaches the caller as soon as it
happens, not when the next output chunk does: a model's tokens arrive while the model is
still answering, even inside an agent. Closing the stream early stops the run at its next
event.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import AsyncGenerator, Generator, Sequence
from typing import TYPE_CHECKING, Any

from leanchain.callbacks.events._collector import EventCollector
from leanchain.callbacks.events._sync import DONE, sync_events, with_collector
from leanchain.callbacks.events._types import EventFilter, StreamClosed, StreamEvent

if TYPE_CHECKING:
    from leanchain.runnables.base import Runnable
    from leanchain.runnables.config import RunnableConfig

__all__ = ["astream_events", "stream_events"]


def _check_version(version: str) -> None:
    if version == "v2":
        return
    if version in ("v1", "v3"):
        raise NotImplementedError(
            f"stream_events supports version 'v2' only, got {version!r}: 'v1' serialised run "
            "data and is deprecated, 'v3' exists for chat models and graphs only"
        )
    raise ValueError(f"Unknown stream_events version {version!r}; expected 'v2'")


def _filter(
    include_names: Sequence[str] | None,
    include_types: Sequence[str] | None,
    include_tags: Sequence[str] | None,
    exclude_names: Sequence[str] | None,
    exclude_types: Sequence[str] | None,
    exclude_tags: Sequence[str] | None,
) -> EventFilter | None:
    given = (include_names, include_types, include_tags, exclude_names, exclude_types, exclude_tags)
    if given == (None, None, None, None, None, None):
        return None
    rules = EventFilter(*given)
    return None if rules.is_empty else rules


def stream_events(
    runnable: Runnable[Any, Any],
    input: Any,
    config: RunnableConfig,
    *,
    version: str = "v2",
    include_names: Sequence[str] | None = None,
    include_types: Sequence[str] | None = None,
    include_tags: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    exclude_types: Sequence[str] | None = None,
    exclude_tags: Sequence[str] | None = None,
    **kwargs: Any,
) -> Generator[StreamEvent, None, None]:
    """The events of ``runnable.stream(input, config, **kwargs)``, as they happen (`config`
    is the effective one, `ensure_config`'s).

    Raises:
        NotImplementedError: `version` is ``"v1"`` or ``"v3"``.
        ValueError: `version` is anything else but ``"v2"``.
    """
    _check_version(version)
    rules = _filter(
        include_names, include_types, include_tags, exclude_names, exclude_types, exclude_tags
    )
    return sync_events(runnable, input, config, rules, kwargs)


def astream_events(
    runnable: Runnable[Any, Any],
    input: Any,
    config: RunnableConfig,
    *,
    version: str = "v2",
    include_names: Sequence[str] | None = None,
    include_types: Sequence[str] | None = None,
    include_tags: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    exclude_types: Sequence[str] | None = None,
    exclude_tags: Sequence[str] | None = None,
    **kwargs: Any,
) -> AsyncGenerator[StreamEvent, None]:
    """Async `stream_events`: the events of ``runnable.astream(...)``, as they happen.

    Raises:
        NotImplementedError: `version` is ``"v1"`` or ``"v3"``.
        ValueError: `version` is anything else but ``"v2"``.
    """
    _check_version(version)
    rules = _filter(
        include_names, include_types, include_tags, exclude_names, exclude_types, exclude_tags
    )
    return _aevents(runnable, input, config, rules, kwargs)


async def _aevents(
    runnable: Runnable[Any, Any],
    input: Any,
    config: RunnableConfig,
    rules: EventFilter | None,
    kwargs: dict[str, Any],
) -> AsyncGenerator[StreamEvent, None]:
    import asyncio

    loop = asyncio.get_running_loop()
    # A deque and one future to wait on when it is empty: an `asyncio.Queue` costs a
    # coroutine per event on each side.
    sent: deque[Any] = deque()
    waiter: asyncio.Future[None] | None = None
    loop_thread = threading.get_ident()

    def put(item: Any) -> None:
        sent.append(item)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def send(event: StreamEvent) -> None:
        # Sync parts of an async run (tools, sync models) send from worker threads.
        if threading.get_ident() == loop_thread:
            put(event)
        else:
            loop.call_soon_threadsafe(put, event)

    collector = EventCollector(send, rules, input)
    run_config = with_collector(config, collector)

    async def produce() -> None:
        try:
            async for chunk in runnable.astream(input, run_config, **kwargs):
                collector.root_chunk(chunk)
        finally:
            put(DONE)

    task = asyncio.ensure_future(produce())
    take = sent.popleft
    try:
        while True:
            if not sent:
                waiter = loop.create_future()
                await waiter
                waiter = None
                continue
            item = take()
            if item is DONE:
                break
            yield item
        await task
    finally:
        collector.closed = True
        if not task.done():
            task.cancel()
            # The consumer left: how the abandoned run ends concerns no one any more. Unless
            # the consumer is being cancelled itself while it waits: that goes on up.
            try:
                await task
            except (asyncio.CancelledError, StreamClosed, Exception):
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise
