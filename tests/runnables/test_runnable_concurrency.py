"""`max_concurrency` bounds the whole call tree; nesting never deadlocks; loops never block."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from runnables_support import Gauge

from leanchain.runnables import Runnable, RunnableConfig, RunnableLambda, RunnableParallel

NAP = 0.05


def sleeper(gauge: Gauge) -> RunnableLambda[Any, Any]:
    def nap(x: Any) -> Any:
        with gauge:
            time.sleep(NAP)
        return x

    return RunnableLambda(nap)


def asleeper(gauge: Gauge) -> RunnableLambda[Any, Any]:
    async def nap(x: Any) -> Any:
        with gauge:
            await asyncio.sleep(NAP)
        return x

    return RunnableLambda(nap)


def test_max_concurrency_2_peaks_at_exactly_2() -> None:
    gauge = Gauge()
    assert sleeper(gauge).batch(list(range(10)), {"max_concurrency": 2}) == list(range(10))
    assert (gauge.peak, gauge.calls) == (2, 10)


def test_max_concurrency_1_runs_one_at_a_time() -> None:
    gauge = Gauge()
    sleeper(gauge).batch(list(range(4)), {"max_concurrency": 1})
    assert (gauge.peak, gauge.calls) == (1, 4)


async def test_async_max_concurrency_3_peaks_at_exactly_3() -> None:
    gauge = Gauge()
    assert await asleeper(gauge).abatch(list(range(10)), {"max_concurrency": 3}) == list(range(10))
    assert (gauge.peak, gauge.calls) == (3, 10)


async def test_async_batch_of_sync_functions_is_bounded() -> None:
    gauge = Gauge()
    await sleeper(gauge).abatch(list(range(6)), {"max_concurrency": 2})
    assert (gauge.peak, gauge.calls) == (2, 6)


def test_batch_inside_a_batch_never_exceeds_the_bound() -> None:
    gauge = Gauge()
    leaf = sleeper(gauge)

    def inner_batch(x: int) -> list[int]:
        return leaf.batch([x * 10 + i for i in range(4)])

    outer = RunnableLambda(inner_batch)
    result = outer.batch(list(range(6)), {"max_concurrency": 3})
    assert result == [[x * 10 + i for i in range(4)] for x in range(6)]
    assert (gauge.peak, gauge.calls) == (3, 24)


async def test_abatch_inside_an_abatch_never_exceeds_the_bound() -> None:
    gauge = Gauge()
    leaf = asleeper(gauge)

    async def inner_batch(x: int) -> list[int]:
        return await leaf.abatch([x * 10 + i for i in range(4)])

    result = await RunnableLambda(inner_batch).abatch(list(range(6)), {"max_concurrency": 3})
    assert result == [[x * 10 + i for i in range(4)] for x in range(6)]
    assert (gauge.peak, gauge.calls) == (3, 24)


def test_parallel_branches_share_the_bound() -> None:
    gauge = Gauge()
    leaf = sleeper(gauge)
    parallel = RunnableParallel({str(i): leaf for i in range(6)})
    result = parallel.batch([1, 2], {"max_concurrency": 3})
    assert result == [{str(i): x for i in range(6)} for x in (1, 2)]
    assert (gauge.peak, gauge.calls) == (3, 12)


def test_parallel_invoke_respects_max_concurrency() -> None:
    gauge = Gauge()
    leaf = sleeper(gauge)
    RunnableParallel({str(i): leaf for i in range(5)}).invoke(0, {"max_concurrency": 2})
    assert (gauge.peak, gauge.calls) == (2, 5)


async def test_async_parallel_respects_max_concurrency() -> None:
    gauge = Gauge()
    leaf = asleeper(gauge)
    await RunnableParallel({str(i): leaf for i in range(5)}).ainvoke(0, {"max_concurrency": 2})
    assert (gauge.peak, gauge.calls) == (2, 5)


def test_bound_applies_to_a_lambda_that_batches_from_inside_a_sequence() -> None:
    gauge = Gauge()
    leaf = sleeper(gauge)

    def fan_out(x: int) -> list[int]:
        return leaf.batch(list(range(x)))

    seq = RunnableLambda(lambda x: x) | fan_out
    assert seq.invoke(8, {"max_concurrency": 2}) == list(range(8))
    assert gauge.peak == 2


@pytest.mark.timeout(60)
def test_deep_nested_sync_parallelism_does_not_deadlock() -> None:
    # Four levels of fan-out, 400 leaf calls: far more waiting callers than pool threads.
    leaves = Gauge()

    def leaf(x: int) -> int:
        with leaves:
            return x

    level3 = RunnableParallel(a=leaf, b=leaf)
    level2: Runnable[Any, Any] = RunnableLambda(lambda x: level3.batch([x] * 5))
    level1 = RunnableParallel(p=level2, q=level2)
    top = RunnableLambda(lambda x: level1.batch([x] * 10))
    result = top.batch(list(range(2)))
    assert leaves.calls == 2 * 10 * 2 * 5 * 2
    assert result[1][0]["p"][0] == {"a": 1, "b": 1}


@pytest.mark.timeout(60)
def test_hundreds_of_blocking_items_nested_inside_batches_finish() -> None:
    # Every leaf sleeps for a moment, holding its thread: 300 of them, nested in batches.
    gauge = Gauge()
    leaf = sleeper(gauge)
    middle = RunnableLambda(lambda x: leaf.batch([x] * 30))
    assert middle.batch(list(range(10))) == [[x] * 30 for x in range(10)]
    assert gauge.calls == 300


@pytest.mark.timeout(60)
def test_nested_bound_of_one_runs_everything_in_the_caller() -> None:
    threads: set[int] = set()

    def leaf(x: int) -> int:
        threads.add(threading.get_ident())
        return x

    inner = RunnableParallel(a=leaf, b=leaf)
    middle = RunnableLambda(lambda x: inner.batch([x, x]))
    middle.batch([1, 2, 3], {"max_concurrency": 1})
    assert threads == {threading.get_ident()}


async def test_sync_only_runnable_under_ainvoke_does_not_block_the_loop() -> None:
    ticked = threading.Event()

    class Blocking(Runnable[int, int]):
        def invoke(self, input: int, config: RunnableConfig | None = None, **kwargs: Any) -> int:
            if not ticked.wait(5):
                raise AssertionError("the event loop was blocked")
            return input

    async def tick() -> None:
        await asyncio.sleep(0.01)
        ticked.set()

    result, _ = await asyncio.gather(Blocking().ainvoke(7), tick())
    assert result == 7


async def test_sync_batch_under_abatch_does_not_block_the_loop() -> None:
    ticks = 0
    stop = threading.Event()

    def wait_for_loop(x: int) -> int:
        if not stop.wait(5):
            raise AssertionError("the event loop was blocked")
        return x

    async def ticker() -> None:
        nonlocal ticks
        while ticks < 5:
            await asyncio.sleep(0.005)
            ticks += 1
        stop.set()

    results, _ = await asyncio.gather(RunnableLambda(wait_for_loop).abatch([1, 2, 3]), ticker())
    assert (results, ticks) == ([1, 2, 3], 5)


def test_invalid_max_concurrency_is_refused() -> None:
    with pytest.raises(ValueError, match="max_concurrency must be at least 1, got 0"):
        RunnableLambda(lambda x: x).batch([1, 2], {"max_concurrency": 0})


def test_a_bound_does_not_leak_to_the_caller_between_as_completed_items() -> None:
    barrier = threading.Barrier(4, timeout=5)

    def meet(x: int) -> int:
        barrier.wait()
        return x

    results = RunnableLambda(lambda x: x).batch_as_completed([1, 2, 3], {"max_concurrency": 1})
    first = next(results)
    # The caller's own batch, between two items, is not bound by the first batch's limit.
    assert RunnableLambda(meet).batch([0, 1, 2, 3]) == [0, 1, 2, 3]
    assert sorted([first, *results]) == [(0, 1), (1, 2), (2, 3)]


async def test_a_bound_does_not_leak_to_the_caller_between_async_items() -> None:
    gauge = Gauge()
    all_in = asyncio.Event()

    async def meet(x: int) -> int:
        with gauge:
            if gauge.current == 4:
                all_in.set()
            await asyncio.wait_for(all_in.wait(), 5)
        return x

    async def echo(x: int) -> int:
        return x

    seen: list[tuple[int, int | Exception]] = []
    async for item in RunnableLambda(echo).abatch_as_completed([1, 2], {"max_concurrency": 1}):
        seen.append(item)
        if len(seen) == 1:
            assert await RunnableLambda(meet).abatch([0, 1, 2, 3]) == [0, 1, 2, 3]
    assert sorted(seen) == [(0, 1), (1, 2)]
    assert gauge.peak == 4


async def test_abatch_without_a_bound_reports_in_completion_order() -> None:
    release = asyncio.Event()

    async def gated(x: int) -> int:
        if x == 0:
            await asyncio.wait_for(release.wait(), 5)
        else:
            release.set()
        return x

    items = [i async for i in RunnableLambda(gated).abatch_as_completed([0, 1])]
    assert items == [(1, 1), (0, 0)]
