"""What watching a run costs: `stream_events` vs `stream`, and the OpenTelemetry handler.

Workloads, on a sequence of 10 `RunnableLambda` steps, per step (time of one call / 10):

* ``stream_events`` vs ``stream`` (goal: at most 5x). After its first call, a chain that is
  over before anyone could watch it go on (no model, no tool, no wait) runs in the caller's
  thread with an event-collecting handler. Shown with ``stream`` under a handler whose hooks do
  nothing (the callback machinery's share), and with what every call costs on the producer
  thread (a runnable's first call, and every call of a run that can be watched going on): the
  same events handed over a queue, and the bare hand-off alone, a producer thread that sends 33
  items and ends (two thread wake-ups per call).
* ``astream_events`` vs ``astream`` on 10 async steps (no goal of its own; the async twin needs
  no thread: the run is a task on the caller's event loop).
* ``invoke`` with the OpenTelemetry handler over a no-op tracer vs no callbacks (goal: at most
  3 µs added per step). Shown with its two parts: the callback machinery itself (a handler
  whose hooks do nothing) and what the OpenTelemetry handler adds on top of that.

Run: ``.venv/bin/python -m benchmarks observability``.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from queue import SimpleQueue
from typing import Any

from benchmarks._util import median_time, paired_times, print_table, row, scaled
from leanchain.callbacks import BaseCallbackHandler
from leanchain.callbacks.events._producers import start_producer
from leanchain.callbacks.events._sync import on_producer
from leanchain.runnables import Runnable, RunnableLambda, ensure_config
from leanchain.tracing import OpenTelemetryCallbackHandler

STEPS = 10


def _step(x: int) -> int:
    return x + 1


async def _astep(x: int) -> int:
    return x + 1


def ten_steps(step: Any = _step) -> Runnable[int, int]:
    """A sequence of 10 lambda steps."""
    chain: Runnable[int, Any] = RunnableLambda(step)
    for _ in range(STEPS - 1):
        chain = chain | RunnableLambda(step)
    return chain


def async_per_step_us(make: Callable[[], Awaitable[object]], number: int) -> float:
    """The median time of one ``await make()``, per chain step, in microseconds: `median_time`
    of `number` awaits in a row, all on one event loop (its start-up is not the work)."""
    loop = asyncio.new_event_loop()

    async def calls() -> None:
        for _ in range(number):
            await make()

    try:
        batch = median_time(lambda: loop.run_until_complete(calls()), number=1)
    finally:
        loop.close()
    return batch * 1e6 / number / STEPS


def hand_off() -> None:
    """What `stream_events` costs without a run: a producer thread that sends 33 items."""
    queue: SimpleQueue[int | None] = SimpleQueue()

    def produce() -> None:
        for i in range(3 * STEPS + 3):
            queue.put(i)
        queue.put(None)

    start_producer(contextvars.copy_context(), produce)
    while queue.get() is not None:
        pass


def per_step_us(func: Any, number: int) -> float:
    """The median time of one call of `func`, per chain step, in microseconds."""
    return median_time(func, number=number) * 1e6 / STEPS


def main() -> None:
    """Measure and print the table of medians, ratios and goals."""
    from opentelemetry.trace import NoOpTracerProvider

    chain = ten_steps()
    assert list(chain.stream(0)) == [10]
    events = list(chain.stream_events(0))
    assert len(events) == 3 * STEPS + 3  # start, stream, end per step, and the sequence's
    n = scaled(2_000, 20)

    noop = {"callbacks": [BaseCallbackHandler()]}
    # Timed in alternating rounds: the goal is their ratio, which noise must not skew.
    stream_s, events_s = paired_times(
        lambda: list(chain.stream(0)), lambda: list(chain.stream_events(0)), number=n
    )
    stream, stream_events = stream_s * 1e6 / STEPS, events_s * 1e6 / STEPS
    stream_noop = per_step_us(lambda: list(chain.stream(0, noop)), n)  # type: ignore[arg-type]
    config = ensure_config()
    producer = per_step_us(lambda: list(on_producer(chain, 0, config, None, {})), n)
    bare_hand_off = per_step_us(hand_off, n)

    achain = ten_steps(_astep)

    async def astream() -> list[int]:
        return [chunk async for chunk in achain.astream(0)]

    async def astream_events() -> list[Any]:
        return [event async for event in achain.astream_events(0)]

    async_stream = async_per_step_us(astream, n)
    async_events = async_per_step_us(astream_events, n)

    otel = {"callbacks": [OpenTelemetryCallbackHandler(NoOpTracerProvider())]}
    bare = per_step_us(lambda: chain.invoke(0), scaled(20_000, 20))
    machinery = per_step_us(lambda: chain.invoke(0, noop), n)  # type: ignore[arg-type]
    traced = per_step_us(lambda: chain.invoke(0, otel), n)  # type: ignore[arg-type]

    print_table(
        f"Observability, per step of a {STEPS}-step chain",
        [
            row("stream_events vs stream", stream_events, stream, "µs", ratio_at_most=5),
            row("stream with a no-op handler (machinery)", stream_noop, stream, "µs"),
            row("stream_events on the producer thread", producer, stream, "µs"),
            row("  the thread hand-off alone", bare_hand_off, stream, "µs"),
            row("astream_events vs astream (async steps)", async_events, async_stream, "µs"),
            row("invoke, OTel (no-op tracer), added", traced - bare, None, "µs", at_most=3),
            row("  of which: callbacks, no-op handler", machinery - bare, None, "µs"),
            row("  of which: OTel handler itself", traced - machinery, None, "µs", at_most=3),
            row("invoke, OTel (no-op tracer)", traced, bare, "µs"),
        ],
    )


if __name__ == "__main__":
    main()
