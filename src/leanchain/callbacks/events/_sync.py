"""Sync `stream_events`: where the run goes on while the caller reads its events.

An event reaches a sync caller while the run still goes on only if the run goes on in
another thread: the producer thread (`_producers`), whose events the caller reads from a
queue. That costs two thread wake-ups per call, about 50 µs on an idle virtual machine: more
than a whole chain of ten trivial steps, and nothing a caller can see when the run is that
short. So each runnable remembers how its last event stream went, and its next one runs in
the caller's thread — events handed over each time the run yields an output chunk — when
nothing could tell the two apart:

* the run started no chat model and no tool run (what a caller watches live), and
* on the producer thread, it had ended before the caller received its first event (it
  neither waited on the caller nor ran long enough to be seen going on); in the caller's
  thread, no wait for an output chunk took over `QUICK_PULL_S`.

Anything else sends the next call back to the producer thread, and a runnable's first call
always goes there. Either way the events, their order and the errors are the same.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections import deque
from collections.abc import Generator
from queue import SimpleQueue
from time import perf_counter
from typing import TYPE_CHECKING, Any, cast

from leanchain.callbacks.events._collector import EventCollector
from leanchain.callbacks.events._producers import start_producer
from leanchain.callbacks.events._types import EventFilter, StreamClosed, StreamEvent
from leanchain.callbacks.manager import merge_callbacks
from leanchain.callbacks.weak import WeakMemo

if TYPE_CHECKING:
    from leanchain.runnables.base import Runnable
    from leanchain.runnables.config import RunnableConfig

__all__ = ["DONE", "QUICK_PULL_S", "on_producer", "sync_events", "with_collector"]

QUICK_PULL_S = 0.001
"""The longest wait for an output chunk after which a run in the caller's thread goes back to
the producer thread: late by less than this, an event is as good as live to a person."""

_REMEMBERED = 256
"""How many runnables are remembered as quick (the oldest is forgotten first)."""

_quick: WeakMemo[bool] = WeakMemo(limit=_REMEMBERED)
"""The runnables whose next event stream runs in the caller's thread. Held weakly: a runnable
that is no longer used is forgotten with it, and nothing it holds stays alive for the memo."""


def _remember(runnable: Runnable[Any, Any], quick: bool) -> None:
    if (_quick.get(runnable) is not None) is quick:
        return
    if quick:
        _quick.put(runnable, True)
    else:
        _quick.discard(runnable)


class _Failed:
    """The run raised: the consumer re-raises `error`."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


DONE: Any = object()
"""The end of a run's events, behind the last one (the async form uses it too)."""


def with_collector(config: RunnableConfig, collector: EventCollector) -> RunnableConfig:
    """`config` (an effective one) with `collector` added to its callbacks."""
    callbacks = merge_callbacks(config.get("callbacks"), [collector])
    return cast("RunnableConfig", {**config, "callbacks": callbacks})


def sync_events(
    runnable: Runnable[Any, Any],
    input: Any,
    config: RunnableConfig,
    rules: EventFilter | None,
    kwargs: dict[str, Any],
) -> Generator[StreamEvent, None, None]:
    """The events of ``runnable.stream(input, config, **kwargs)``, filtered by `rules`."""
    if _quick.get(runnable) is not None:
        return _in_caller(runnable, input, config, rules, kwargs)
    return on_producer(runnable, input, config, rules, kwargs)


def on_producer(
    runnable: Runnable[Any, Any],
    input: Any,
    config: RunnableConfig,
    rules: EventFilter | None,
    kwargs: dict[str, Any],
) -> Generator[StreamEvent, None, None]:
    """The events of the run, which goes on on a producer thread, handed over a queue."""
    queue: SimpleQueue[Any] = SimpleQueue()
    collector = EventCollector(queue.put, rules, input)
    config = with_collector(config, collector)
    ended = False

    def produce() -> None:
        nonlocal ended
        try:
            for chunk in runnable.stream(input, config, **kwargs):
                collector.root_chunk(chunk)
        except StreamClosed:
            pass
        except BaseException as exc:
            ended = True
            queue.put(_Failed(exc))
        finally:
            ended = True
            queue.put(DONE)

    start_producer(contextvars.copy_context(), produce)
    get = queue.get
    try:
        item = get()
        # Before the end, the caller could watch the run go on (or the run wait on it).
        seen_going_on = not ended
        while item is not DONE:
            if type(item) is _Failed:
                _remember(runnable, not (seen_going_on or collector.reached_out))
                raise item.error
            yield item
            item = get()
        _remember(runnable, not (seen_going_on or collector.reached_out))
    finally:
        collector.closed = True


def _in_caller(
    runnable: Runnable[Any, Any],
    input: Any,
    config: RunnableConfig,
    rules: EventFilter | None,
    kwargs: dict[str, Any],
) -> Generator[StreamEvent, None, None]:
    """The events of the run, which goes on in this thread: handed over at each chunk."""
    sent: deque[StreamEvent] = deque()
    take = sent.popleft
    collector = EventCollector(sent.append, rules, input)
    config = with_collector(config, collector)
    chunks: Any = None
    longest = 0.0
    error: Exception | None = None
    try:
        while True:
            start = perf_counter()
            try:
                if chunks is None:
                    chunks = iter(runnable.stream(input, config, **kwargs))
                chunk = next(chunks, DONE)
            except Exception as exc:
                error, chunk = exc, DONE
            took = perf_counter() - start
            if took > longest:
                longest = took
            if chunk is DONE:
                break
            collector.root_chunk(chunk)
            while sent:
                yield take()
        chunks = None
        while sent:
            yield take()
        _remember(runnable, longest <= QUICK_PULL_S and not collector.reached_out)
        if error is not None:
            raise error
    finally:
        if chunks is not None:
            # The caller left mid-run: what the abandoned run raises on its way out concerns
            # no one any more (on the producer thread it would end the same way, unread).
            with contextlib.suppress(Exception):
                chunks.close()
        collector.closed = True
