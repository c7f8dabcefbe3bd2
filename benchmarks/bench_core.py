"""The runnable core against hand-written baselines, measured in the same run (issue 2).

Workloads and goals:

- ``invoke`` of a 10-step chain of trivial lambdas, per step: <= 1 µs and <= 10x a minimal
  hand-written class-based pipeline; the same with one callback handler: <= 5 µs per step.
- ``RunnablePassthrough.assign`` with one key: <= 3 µs; ``RunnableParallel`` with 4 trivial
  branches: <= 50 µs.
- ``stream`` of 10,000 chunks through a generator and a streaming step: <= 0.5 µs per chunk.
- ``abatch`` of 1,000 ``asyncio.sleep(0.01)`` with ``max_concurrency=100``: <= 1.15x plain
  ``asyncio.gather`` + ``Semaphore``.
- ``batch`` of 1,000 inputs through a 10-step chain: <= 2x ``ThreadPoolExecutor.map``.
- ``python -c "import leanchain"``: wall time <= 1.3x ``from pydantic import BaseModel``, peak
  memory <= 30 MiB.

Run: ``python -m benchmarks core`` (``make bench`` runs every benchmark).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from benchmarks._util import Row, median_of, median_time, print_table, row, scaled
from leanchain.callbacks import BaseCallbackHandler
from leanchain.runnables import (
    Runnable,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)

STEPS = 10
US = 1e6
MS = 1e3


def identity(x: Any) -> Any:
    return x


class Step:
    """The baseline's step: a class with an ``invoke`` method that calls a function."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func

    def invoke(self, value: Any) -> Any:
        return self.func(value)


class Pipeline:
    """The baseline's pipeline: a loop over its steps."""

    __slots__ = ("steps",)

    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps

    def invoke(self, value: Any) -> Any:
        for step in self.steps:
            value = step.invoke(value)
        return value


class CountingHandler(BaseCallbackHandler):
    """A handler that counts chain starts and ends."""

    def __init__(self) -> None:
        self.starts = 0
        self.ends = 0

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.starts += 1

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.ends += 1


def lambda_chain() -> Runnable[Any, Any]:
    chain: Runnable[Any, Any] = RunnableLambda(identity)
    for _ in range(STEPS - 1):
        chain = chain | identity
    return chain


def bench_invoke() -> list[Row]:
    chain = lambda_chain()
    pipeline = Pipeline([Step(identity) for _ in range(STEPS)])
    number = scaled(20_000, 20)
    ours = median_time(lambda: chain.invoke(1), number=number) / STEPS * US
    base = median_time(lambda: pipeline.invoke(1), number=number) / STEPS * US
    handler = CountingHandler()
    config: Any = {"callbacks": [handler]}
    traced = median_time(lambda: chain.invoke(1, config), number=scaled(2_000, 5)) / STEPS * US
    assert handler.starts == handler.ends > 0
    return [
        row(
            "invoke, 10-step lambda chain, per step",
            ours,
            base,
            "µs",
            at_most=1.0,
            ratio_at_most=10.0,
        ),
        row(
            "invoke, same with one callback handler, per step",
            traced,
            ours,
            "µs",
            at_most=5.0,
        ),
    ]


def bench_assign_and_parallel() -> list[Row]:
    def double(d: dict[str, int]) -> int:
        return d["a"] * 2

    assign = RunnablePassthrough.assign(b=double)
    value = {"a": 1}
    assert assign.invoke(value) == {"a": 1, "b": 2}
    ours = median_time(lambda: assign.invoke(value), number=scaled(20_000, 20)) * US
    base = median_time(lambda: {**value, "b": double(value)}, number=scaled(20_000, 20)) * US

    branches = {k: identity for k in "abcd"}
    parallel = RunnableParallel(branches)
    pool = ThreadPoolExecutor()

    def plain_parallel() -> dict[str, Any]:
        futures = {k: pool.submit(f, 1) for k, f in branches.items()}
        return {k: f.result() for k, f in futures.items()}

    assert parallel.invoke(1) == plain_parallel()
    par = median_time(lambda: parallel.invoke(1), number=scaled(2_000, 5)) * US
    par_base = median_time(plain_parallel, number=scaled(2_000, 5)) * US
    pool.shutdown()
    return [
        row("RunnablePassthrough.assign, one key", ours, base, "µs", at_most=3.0),
        row("RunnableParallel, 4 trivial branches", par, par_base, "µs", at_most=50.0),
    ]


def bench_stream() -> list[Row]:
    chunks = scaled(10_000, 200)

    def produce(n: int) -> Iterator[int]:
        yield from range(n)

    def relay(items: Iterator[int]) -> Iterator[int]:
        for item in items:  # noqa: UP028 - a streaming step does work per chunk
            yield item

    pipeline = RunnableLambda(produce) | RunnableGenerator(relay)

    def ours() -> None:
        for _ in pipeline.stream(chunks):
            pass

    def plain() -> None:
        for _ in relay(produce(chunks)):
            pass

    assert list(pipeline.stream(3)) == [0, 1, 2]
    per_chunk = median_time(ours, number=scaled(5, 2)) / chunks * US
    base = median_time(plain, number=scaled(5, 2)) / chunks * US
    return [
        row("stream, 10,000 chunks, generator | streaming step", per_chunk, base, "µs", at_most=0.5)
    ]


def bench_abatch() -> list[Row]:
    items = list(range(scaled(1_000, 100)))

    async def nap(x: int) -> int:
        await asyncio.sleep(0.01)
        return x

    runnable = RunnableLambda(nap)

    async def plain() -> list[int]:
        semaphore = asyncio.Semaphore(100)

        async def one(x: int) -> int:
            async with semaphore:
                return await nap(x)

        return await asyncio.gather(*(one(x) for x in items))

    async def measure() -> tuple[float, float]:
        ours: list[float] = []
        base: list[float] = []
        for _ in range(scaled(5, 1)):
            start = time.perf_counter()
            assert await runnable.abatch(items, {"max_concurrency": 100}) == items
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            assert await plain() == items
            base.append(time.perf_counter() - start)
        return median_of(ours), median_of(base)

    ours, base = asyncio.run(measure())
    return [
        row(
            "abatch, 1,000 x sleep(0.01), max_concurrency=100",
            ours * MS,
            base * MS,
            "ms",
            ratio_at_most=1.15,
        )
    ]


def bench_batch() -> list[Row]:
    items = list(range(scaled(1_000, 50)))
    chain = lambda_chain()
    pipeline = Pipeline([Step(identity) for _ in range(STEPS)])
    pool = ThreadPoolExecutor()
    assert chain.batch(items) == list(pool.map(pipeline.invoke, items)) == items
    ours = median_time(lambda: chain.batch(items), number=scaled(20, 2)) * MS
    base = median_time(lambda: list(pool.map(pipeline.invoke, items)), number=scaled(20, 2)) * MS
    pool.shutdown()
    return [
        row(
            "batch, 1,000 inputs through a 10-step chain",
            ours,
            base,
            "ms",
            ratio_at_most=2.0,
        )
    ]


_PEAK_KIB = """
import sys
try:
    with open("/proc/self/status") as status:
        sys.stdout.write(status.read().split("VmHWM:")[1].split()[0])
except OSError:
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sys.stdout.write(str(peak // 1024 if sys.platform == "darwin" else peak))
"""


def _wall_time(code: str) -> float:
    """Seconds that ``python -c code`` takes in a fresh process."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def _peak_rss(code: str) -> float:
    """Peak resident memory (MiB) of a fresh process that runs `code`.

    The child reports its own high-water mark (``VmHWM``): the parent's `wait4` usage would
    include the memory the child inherited from this (bigger) process before ``exec``.
    """
    out = subprocess.run(
        [sys.executable, "-c", code + "\n" + _PEAK_KIB], check=True, capture_output=True
    )
    return int(out.stdout) / 1024


def bench_import() -> list[Row]:
    rounds = scaled(7, 1)
    ours = "import leanchain"
    base = "from pydantic import BaseModel"
    wall = median_of([_wall_time(ours) for _ in range(rounds)]) * MS
    wall_base = median_of([_wall_time(base) for _ in range(rounds)]) * MS
    rss = max(_peak_rss(ours) for _ in range(scaled(3, 1)))
    rss_base = max(_peak_rss(base) for _ in range(scaled(3, 1)))
    return [
        row("import leanchain, wall time", wall, wall_base, "ms", ratio_at_most=1.3),
        row("import leanchain, peak RSS", rss, rss_base, "MiB", at_most=30.0),
    ]


WORKLOADS: list[Callable[[], list[Row]]] = [
    bench_invoke,
    bench_assign_and_parallel,
    bench_stream,
    bench_abatch,
    bench_batch,
    bench_import,
]


def main() -> None:
    """Run every workload and print the table."""
    rows: list[Row] = []
    for workload in WORKLOADS:
        rows.extend(workload())
    print_table("leanchain runnable core", rows)


if __name__ == "__main__":
    main()
