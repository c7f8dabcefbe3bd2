"""`batch`, `abatch`, `batch_as_completed` and `abatch_as_completed`."""

from __future__ import annotations

import asyncio
import gc
import threading
from typing import Any

import pytest
from runnables_support import Gauge

from leanchain.runnables import Runnable, RunnableConfig, RunnableLambda


def add_one(x: int) -> int:
    return x + 1


def fail_on_two(x: int) -> int:
    if x == 2:
        raise ValueError("two")
    return x


class Recording(Runnable[int, int]):
    """Records which thread ran each input."""

    def __init__(self) -> None:
        self.threads: dict[int, int] = {}

    def invoke(self, input: int, config: RunnableConfig | None = None, **kwargs: Any) -> int:
        self.threads[input] = threading.get_ident()
        return input


def test_empty_batch_is_an_empty_list() -> None:
    assert RunnableLambda(add_one).batch([]) == []
    assert list(RunnableLambda(add_one).batch_as_completed([])) == []


async def test_empty_abatch_is_an_empty_list() -> None:
    assert await RunnableLambda(add_one).abatch([]) == []
    assert [x async for x in RunnableLambda(add_one).abatch_as_completed([])] == []


def test_batch_keeps_input_order() -> None:
    assert RunnableLambda(add_one).batch(list(range(20))) == list(range(1, 21))


def test_a_single_input_runs_in_the_calling_thread() -> None:
    recording = Recording()
    assert recording.batch([5]) == [5]
    assert recording.threads == {5: threading.get_ident()}


def test_batch_passes_kwargs_to_every_item() -> None:
    def f(x: int, k: int = 0) -> int:
        return x + k

    assert RunnableLambda(f).batch([1, 2], k=10) == [11, 12]


def test_batch_with_a_config_per_input() -> None:
    def tagged(x: int, config: RunnableConfig) -> list[str]:
        return list(config.get("tags", []))

    assert RunnableLambda(tagged).batch([1, 2], [{"tags": ["a"]}, {"tags": ["b"]}]) == [
        ["a"],
        ["b"],
    ]


def test_config_list_length_must_match() -> None:
    with pytest.raises(ValueError) as error:
        RunnableLambda(add_one).batch([1, 2, 3], [{}, {}])
    assert str(error.value) == (
        "config must be a list of the same length as inputs, but got 2 configs for 3 inputs"
    )


async def test_abatch_config_list_length_must_match() -> None:
    with pytest.raises(ValueError, match="but got 1 configs for 2 inputs"):
        await RunnableLambda(add_one).abatch([1, 2], [{}])


def test_batch_first_exception_propagates() -> None:
    with pytest.raises(ValueError, match="two"):
        RunnableLambda(fail_on_two).batch([1, 2, 3])


def test_batch_return_exceptions() -> None:
    results = RunnableLambda(fail_on_two).batch([1, 2, 3], return_exceptions=True)
    assert [repr(r) if isinstance(r, Exception) else r for r in results] == [
        1,
        "ValueError('two')",
        3,
    ]


async def test_abatch_order_and_return_exceptions() -> None:
    async def afail_on_two(x: int) -> int:
        await asyncio.sleep(0.01 * (5 - x))
        return fail_on_two(x)

    lam = RunnableLambda(afail_on_two)
    assert await lam.abatch([1, 3, 4]) == [1, 3, 4]
    results = await lam.abatch([1, 2, 3], return_exceptions=True)
    assert [repr(r) if isinstance(r, Exception) else r for r in results] == [
        1,
        "ValueError('two')",
        3,
    ]
    with pytest.raises(ValueError, match="two"):
        await lam.abatch([1, 2, 3])


def test_batch_as_completed_yields_in_completion_order() -> None:
    # Item 0 waits until item 1 has finished, so item 1 is always reported first.
    one_done = threading.Event()

    def ordered(x: int) -> int:
        if x == 0:
            assert one_done.wait(5)
        else:
            one_done.set()
        return x * 10

    results = list(RunnableLambda(ordered).batch_as_completed([0, 1]))
    assert results == [(1, 10), (0, 0)]


def test_batch_as_completed_return_exceptions() -> None:
    results = dict(RunnableLambda(fail_on_two).batch_as_completed([1, 2], return_exceptions=True))
    assert sorted(results) == [0, 1]
    assert results[0] == 1
    assert repr(results[1]) == "ValueError('two')"
    with pytest.raises(ValueError, match="two"):
        list(RunnableLambda(fail_on_two).batch_as_completed([1, 2]))


async def test_abatch_as_completed_yields_in_completion_order() -> None:
    async def slow_first(x: int) -> int:
        await asyncio.sleep(0.05 if x == 0 else 0)
        return x * 10

    results = [r async for r in RunnableLambda(slow_first).abatch_as_completed([0, 1, 2])]
    assert results[-1] == (0, 0)
    assert sorted(results) == [(0, 0), (1, 10), (2, 20)]


def test_closing_batch_as_completed_cancels_pending_work() -> None:
    gauge = Gauge()

    def slow(x: int) -> int:
        with gauge:
            threading.Event().wait(0.02)
        return x

    results = RunnableLambda(slow).batch_as_completed(list(range(20)), {"max_concurrency": 2})
    first = next(results)
    results.close()  # type: ignore[attr-defined]
    threading.Event().wait(0.1)  # anything still running finishes; nothing new starts
    assert first[0] in range(20)
    assert gauge.calls <= 4
    assert gauge.current == 0


async def test_closing_abatch_as_completed_cancels_pending_work() -> None:
    started: list[int] = []
    cancelled: list[int] = []

    async def slow(x: int) -> int:
        started.append(x)
        try:
            await asyncio.sleep(0 if x == 0 else 10)
        except asyncio.CancelledError:
            cancelled.append(x)
            raise
        return x

    results = RunnableLambda(slow).abatch_as_completed(list(range(5)))
    assert await anext(results) == (0, 0)
    await results.aclose()  # type: ignore[attr-defined]
    assert sorted(cancelled) == [1, 2, 3, 4]
    assert sorted(started) == [0, 1, 2, 3, 4]


async def test_abatch_runs_items_concurrently() -> None:
    gauge = Gauge()
    all_in = asyncio.Event()

    async def meet(x: int) -> int:
        with gauge:
            if gauge.current == 5:
                all_in.set()
            await asyncio.wait_for(all_in.wait(), 5)
        return x

    assert await RunnableLambda(meet).abatch(list(range(5))) == list(range(5))
    assert gauge.peak == 5


def test_sync_batch_runs_items_concurrently() -> None:
    barrier = threading.Barrier(4, timeout=5)

    def meet(x: int) -> int:
        barrier.wait()
        return x

    assert RunnableLambda(meet).batch(list(range(4))) == list(range(4))


@pytest.mark.parametrize("bound", [None, 2])
async def test_abatch_failures_after_the_first_are_not_logged_as_unretrieved(
    bound: int | None, caplog: pytest.LogCaptureFixture
) -> None:
    async def fail(x: int) -> int:
        raise ValueError(str(x))

    config: RunnableConfig = {"max_concurrency": bound} if bound else {}
    with pytest.raises(ValueError, match="1"):
        await RunnableLambda(fail).abatch([1, 2, 3], config)
    await asyncio.sleep(0.01)
    gc.collect()
    await asyncio.sleep(0.01)
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []
