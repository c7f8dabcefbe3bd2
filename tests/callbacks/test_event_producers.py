"""The threads behind sync `stream_events`: one per live producer, never starved, retired."""

from __future__ import annotations

import contextvars
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from leanchain.callbacks.events import _producers
from leanchain.runnables import RunnableLambda

CONSUMERS = 6


def test_concurrent_streams_each_get_a_producer_at_once() -> None:
    # Every run waits for all the others: producers queued behind one another would break it.
    barrier = threading.Barrier(CONSUMERS, timeout=10)

    def meet(x: int) -> int:
        barrier.wait()
        return x + 1

    chain = RunnableLambda(meet) | RunnableLambda(lambda x: x * 2)

    def consume(x: int) -> list[str]:
        return [event["event"] for event in chain.stream_events(x)]

    with ThreadPoolExecutor(CONSUMERS) as pool:
        results = list(pool.map(consume, range(CONSUMERS)))
    order = ["start", "start", "stream", "start", "end", "stream", "stream", "end", "end"]
    assert results == [[f"on_chain_{event}" for event in order]] * CONSUMERS


def test_a_stream_consumed_inside_a_producer() -> None:
    inner = RunnableLambda(lambda x: x + 1, name="inner")

    def outer(x: int) -> list[str]:
        return [f"{e['event']}:{e['name']}" for e in inner.stream_events(x)]

    events = list(RunnableLambda(outer, name="outer").stream_events(1))
    assert events[-1]["data"]["output"] == [
        "on_chain_start:inner",
        "on_chain_stream:inner",
        "on_chain_end:inner",
    ]


def test_an_idle_producer_thread_exits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_producers, "_IDLE_EXIT_S", 0.05)
    ran: list[threading.Thread] = []
    done = threading.Event()

    def target() -> None:
        ran.append(threading.current_thread())
        done.set()

    _producers.start_producer(contextvars.copy_context(), target)
    assert done.wait(10)
    (thread,) = ran
    assert thread.name == "leanchain-events"
    thread.join(10)
    assert not thread.is_alive()


def test_a_job_put_while_a_thread_retires_is_still_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_producers, "_IDLE_EXIT_S", 0.001)
    finished: list[int] = []
    for i in range(50):
        done = threading.Event()

        def target(i: int = i, done: threading.Event = done) -> None:
            finished.append(i)
            done.set()

        _producers.start_producer(contextvars.copy_context(), target)
        assert done.wait(10)
        time.sleep(0.001 * (i % 3))
    assert finished == list(range(50))
