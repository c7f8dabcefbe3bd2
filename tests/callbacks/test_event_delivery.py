"""Where sync `stream_events` runs a run: on a producer thread while anyone could watch it go
on, in the caller's thread once it is known to be over before anyone could (`events._sync`)."""

from __future__ import annotations

import gc
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from leanchain.callbacks import StreamEvent
from leanchain.callbacks.events import _sync as _event_sync
from leanchain.callbacks.weak import WeakMemo
from leanchain.language_models import FakeListChatModel
from leanchain.runnables import Runnable, RunnableGenerator, RunnableLambda
from leanchain.tools import tool

PRODUCER = "leanchain-events"


@pytest.fixture(autouse=True)
def no_forced_switch() -> Iterator[None]:
    """No forced GIL hand-over mid-run: on a loaded machine a quick run could otherwise be
    seen going on (which is what sends a run back to the producer thread)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(5.0)
    yield
    sys.setswitchinterval(before)


class Where:
    """A step that records the thread each of its runs ran on."""

    def __init__(self, delay: float = 0.0) -> None:
        self.threads: list[str] = []
        self.delay = delay

    def __call__(self, x: int) -> int:
        self.threads.append(threading.current_thread().name)
        if self.delay:
            time.sleep(self.delay)
        return x + 1


def steps(where: Where, more: int = 2) -> Runnable[int, int]:
    chain: Runnable[int, Any] = RunnableLambda(where, name="where")
    for i in range(more):
        chain = chain | RunnableLambda(lambda x: x * 2, name=f"double{i}")
    return chain


def shape(events: list[StreamEvent]) -> list[tuple[str, str, int, list[str], Any]]:
    """Each event without its ids: kind, name, depth, tags and data."""
    return [(e["event"], e["name"], len(e["parent_ids"]), e["tags"], e["data"]) for e in events]


def test_a_quick_run_goes_to_the_callers_thread_from_its_second_call() -> None:
    where = Where()
    chain = steps(where)
    first = list(chain.stream_events(1))
    second = list(chain.stream_events(1))
    third = list(chain.stream_events(1))
    caller = threading.current_thread().name
    assert where.threads == [PRODUCER, caller, caller]
    # The same events either way.
    assert shape(first) == shape(second) == shape(third)
    assert shape(first)[0] == ("on_chain_start", "RunnableSequence", 0, [], {"input": 1})
    assert shape(first)[-1] == ("on_chain_end", "RunnableSequence", 0, [], {"output": 8})
    assert len(first) == 12


def test_a_run_that_reaches_a_chat_model_stays_on_the_producer_thread() -> None:
    where = Where()
    chain = RunnableLambda(where) | RunnableLambda(str) | FakeListChatModel(responses=["ok"])
    for _ in range(3):
        events = [e["event"] for e in chain.stream_events(1)]
        assert "on_chat_model_stream" in events
    assert where.threads == [PRODUCER] * 3


def test_a_run_that_reaches_a_tool_stays_on_the_producer_thread() -> None:
    @tool
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    where = Where()
    chain = RunnableLambda(where) | RunnableLambda(lambda x: {"text": str(x)}) | shout
    for _ in range(3):
        assert list(chain.stream_events(1))[-1]["data"]["output"] == "2"
    assert where.threads == [PRODUCER] * 3


def test_a_run_that_waits_on_its_caller_stays_on_the_producer_thread() -> None:
    # In the caller's thread this run could never end: it waits for the caller to react.
    seen = threading.Event()

    def chunks(_: Iterator[str]) -> Iterator[str]:
        seen.clear()
        yield "first"
        if not seen.wait(timeout=10):
            raise AssertionError("the caller did not get the first chunk while the run went on")
        yield "second"

    gen = RunnableGenerator(chunks, name="gen")
    for _ in range(3):
        got = []
        for event in gen.stream_events("go"):
            got.append(event["data"].get("chunk"))
            if event["data"].get("chunk") == "first":
                seen.set()
        assert got == [None, "first", "second", None]


def test_a_slow_pull_in_the_callers_thread_sends_the_next_call_back() -> None:
    where = Where()
    chain = steps(where)
    list(chain.stream_events(1))
    list(chain.stream_events(1))
    where.delay = 0.05  # 50x `QUICK_PULL_S`
    list(chain.stream_events(1))
    where.delay = 0.0
    list(chain.stream_events(1))
    caller = threading.current_thread().name
    assert where.threads == [PRODUCER, caller, caller, PRODUCER]


def test_a_slow_run_on_the_producer_thread_stays_there() -> None:
    # The caller wakes while the step sleeps (even a loaded machine schedules it in 0.2 s).
    where = Where(delay=0.2)
    chain = steps(where)
    list(chain.stream_events(1))
    list(chain.stream_events(1))
    assert where.threads == [PRODUCER, PRODUCER]


def test_in_the_callers_thread_the_events_before_an_error_come_first() -> None:
    fail = False

    def maybe_fail(x: int) -> int:
        if fail:
            raise LookupError(f"no {x}")
        return x

    chain = RunnableLambda(lambda x: x, name="first") | RunnableLambda(maybe_fail, name="fail")
    list(chain.stream_events(1))
    list(chain.stream_events(1))
    fail = True
    seen: list[str] = []
    with pytest.raises(LookupError, match=r"^no 1$"):
        seen.extend(f"{event['event']} {event['name']}" for event in chain.stream_events(1))
    assert seen == [
        "on_chain_start RunnableSequence",
        "on_chain_start first",
        "on_chain_stream first",
        "on_chain_start fail",
        "on_chain_end first",
    ]
    # A run that raised quickly is still quick.
    fail = False
    assert _event_sync._quick.get(chain) is True


def test_closing_a_stream_in_the_callers_thread_closes_the_run() -> None:
    closed: list[str] = []

    def numbers(_: Iterator[int]) -> Iterator[int]:
        try:
            yield 1
            yield 2
        finally:
            closed.append("closed")

    gen = RunnableGenerator(numbers, name="numbers")
    list(gen.stream_events(0))
    list(gen.stream_events(0))
    assert closed == ["closed", "closed"]
    assert _event_sync._quick.get(gen) is True
    events = gen.stream_events(0)
    assert [next(events)["event"], next(events)["data"]] == ["on_chain_start", {"chunk": 1}]
    events.close()
    assert closed == ["closed", "closed", "closed"]
    # Left mid-run: nothing is learnt from it.
    assert _event_sync._quick.get(gen) is True


def test_the_quick_runnables_remembered_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_event_sync, "_quick", WeakMemo(limit=2))
    chains = [RunnableLambda(lambda x: x, name=f"r{i}") for i in range(3)]
    for chain in chains:
        list(chain.stream_events(0))
    assert [_event_sync._quick.get(chain) for chain in chains] == [None, True, True]


def test_a_quick_runnable_is_not_kept_alive_by_being_remembered() -> None:
    chain = RunnableLambda(lambda x: x) | RunnableLambda(lambda x: x)
    list(chain.stream_events(0))
    assert _event_sync._quick.get(chain) is True
    alive = weakref.ref(chain)
    entries = _event_sync._quick._entries
    key = id(chain)
    del chain
    gc.collect()
    assert alive() is None
    assert key not in entries
