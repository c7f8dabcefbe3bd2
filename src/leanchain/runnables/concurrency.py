"""Running several pieces of work at once, bounded for a whole call tree, without deadlock.

This is the core's public home for concurrency: the packages above it (tools, models, the
agent loop, chat histories, the Ray runner) use the shared pool, the tree-wide limiter and
`run_in_executor` from here.

Sync work uses one shared, lazily created thread pool. The calling thread always runs work
itself; pool threads are only *helpers* that pull from the same queue. A caller therefore
never waits for work that has not started, which is why nesting cannot deadlock however full
the pool is.

``max_concurrency`` bounds the whole tree: the first batch that sees it creates a `Limiter`
and publishes it in a context variable; nested batches draw helpers from the same limiter.
The caller itself holds one slot implicitly, so a limiter of ``n`` hands out ``n - 1`` helper
permits.
"""

from __future__ import annotations

import contextvars
import functools
import os
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Sequence
from contextlib import aclosing
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = [
    "Limiter",
    "arun_all",
    "arun_as_completed",
    "cancelled_here",
    "current_limiter",
    "get_executor",
    "run_all",
    "run_as_completed",
    "run_in_executor",
]

T = TypeVar("T")

POOL_WORKERS = 256
"""The shared pool's ceiling. Threads start only when work needs them, so a high ceiling costs
nothing until a batch asks for that much concurrency (``max_concurrency=100`` of blocking
calls must get 100 threads, not the CPU-sized default)."""
UNBOUNDED_HELPERS = min(64, (os.cpu_count() or 1) + 32)
"""Helpers for a batch without ``max_concurrency``: enough for I/O-bound work, bounded."""
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_limiter: ContextVar[Limiter | None] = ContextVar("leanchain_limiter", default=None)


def get_executor() -> ThreadPoolExecutor:
    """The shared thread pool, created on first use."""
    global _pool
    if _pool is None:
        from concurrent.futures import ThreadPoolExecutor

        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(POOL_WORKERS, thread_name_prefix="leanchain")
    return _pool


def current_limiter() -> Limiter | None:
    """The limiter of the call tree running now (``None`` when no ``max_concurrency`` bounds it)."""
    return _limiter.get()


class Limiter:
    """Permits for helpers beyond the caller: at most ``n`` work items of a tree run at once."""

    __slots__ = ("_free", "_lock", "limit")

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {limit}")
        self.limit = limit
        self._free = limit - 1
        self._lock = threading.Lock()

    def try_acquire(self) -> bool:
        """Take a helper permit if one is free; never blocks."""
        with self._lock:
            if self._free > 0:
                self._free -= 1
                return True
            return False

    def release(self) -> None:
        """Give a helper permit back."""
        with self._lock:
            self._free += 1


def _limiter_for(max_concurrency: int | None) -> tuple[Limiter | None, bool]:
    """The tree's limiter (creating it from `max_concurrency`), and whether it is new."""
    current = _limiter.get()
    if current is not None:
        return current, False
    if max_concurrency is None:
        return None, False
    return Limiter(max_concurrency), True


def run_all(tasks: Sequence[Callable[[], T]], max_concurrency: int | None = None) -> list[T]:
    """Run every task, concurrently where allowed, and return results in task order.

    The first exception is re-raised once every started task has finished; tasks not yet
    started are skipped.
    """
    return [r for _, r in _run(tasks, max_concurrency, ordered=True)]


def run_as_completed(
    tasks: Sequence[Callable[[], T]], max_concurrency: int | None = None
) -> Iterator[tuple[int, T]]:
    """Run every task and yield ``(index, result)`` as each finishes."""
    return _run(tasks, max_concurrency, ordered=False)


def _run(
    tasks: Sequence[Callable[[], T]], max_concurrency: int | None, *, ordered: bool
) -> Iterator[tuple[int, T]]:
    n = len(tasks)
    if n == 0:
        return
    if n == 1 and max_concurrency is None:
        yield 0, tasks[0]()
        return
    limiter, is_new = _limiter_for(max_concurrency)
    context = _publishing(limiter) if is_new and limiter is not None else None
    yield from _run_with_helpers(tasks, limiter, context, ordered)


def _publishing(limiter: Limiter) -> contextvars.Context:
    """A copy of the current context in which `limiter` is the tree's limiter.

    The tasks of a batch run in it (or in copies of it), so nested batches find the limiter;
    setting the variable in the caller's own context instead would leak it to the caller's
    code between the items of `batch_as_completed`.
    """
    context = contextvars.copy_context()
    context.run(_limiter.set, limiter)
    return context


def _run_with_helpers(
    tasks: Sequence[Callable[[], T]],
    limiter: Limiter | None,
    context: contextvars.Context | None,
    ordered: bool,
) -> Iterator[tuple[int, T]]:
    """Run the tasks in this thread, with pool helpers joining in; `context` wraps them all."""
    n = len(tasks)
    base = context if context is not None else contextvars.copy_context()
    lock = threading.Lock()
    done = threading.Condition(lock)
    next_index = 0
    finished: list[tuple[int, Any, BaseException | None]] = []
    stop = False

    def take() -> int | None:
        nonlocal next_index
        with lock:
            if stop or next_index >= n:
                return None
            i = next_index
            next_index += 1
            return i

    def run_one(i: int) -> None:
        try:
            # Every item runs in its own copy of `base`, never in a context another item ran
            # in: a helper copies `base` while the caller's item runs, and items that share a
            # thread run one after another; neither may see an item's variables (a run's
            # model interceptors or config would leak into the other items).
            result: Any = base.copy().run(tasks[i])
            error: BaseException | None = None
        except BaseException as exc:
            result, error = None, exc
        with done:
            finished.append((i, result, error))
            done.notify_all()

    pool = get_executor()
    unspawned = min(n - 1, UNBOUNDED_HELPERS if limiter is None else POOL_WORKERS)
    starting = 0  # helpers submitted to the pool that have not started yet

    def spawn_one() -> None:
        # Helpers start one at a time, each starting the next: when the work is trivial the
        # caller finishes it all before the first helper wakes, and only one was submitted.
        nonlocal unspawned, starting
        with lock:
            if unspawned <= 0 or stop or next_index >= n:
                return
            if limiter is not None and not limiter.try_acquire():
                return
            unspawned -= 1
            starting += 1
        pool.submit(base.copy().run, helper, limiter is not None)

    def helper(holds_permit: bool) -> None:
        nonlocal starting
        with lock:
            starting -= 1
        try:
            spawn_one()
            while (i := take()) is not None:
                run_one(i)
        finally:
            if holds_permit and limiter is not None:
                limiter.release()

    results: list[Any] = [None] * n
    emitted = 0
    yielded_upto = 0
    ready = [False] * n
    try:
        while True:
            if starting == 0:
                spawn_one()
            i = take()
            if i is not None:
                run_one(i)
            with done:
                while i is None and len(finished) == emitted and emitted < next_index:
                    done.wait()
                fresh = finished[emitted:]
                emitted = len(finished)
            for index, result, error in fresh:
                if error is not None:
                    with lock:
                        stop = True
                    _wait_started(done, finished, lambda: next_index)
                    raise error
                if ordered:
                    results[index] = result
                    ready[index] = True
                else:
                    yield index, result
            if ordered:
                while yielded_upto < n and ready[yielded_upto]:
                    yield yielded_upto, results[yielded_upto]
                    yielded_upto += 1
            if emitted == n:
                return
    finally:
        with lock:
            stop = True


def _wait_started(
    done: threading.Condition, finished: list[Any], started: Callable[[], int]
) -> None:
    """Wait until every task that was started has finished."""
    with done:
        while len(finished) < started():
            done.wait()


async def arun_all(
    tasks: Sequence[Callable[[], Awaitable[T]]], max_concurrency: int | None = None
) -> list[T]:
    """Await every task, concurrently where allowed; results in task order."""
    results: list[Any] = [None] * len(tasks)
    async for i, result in arun_as_completed(tasks, max_concurrency):
        results[i] = result
    return results


async def arun_as_completed(
    tasks: Sequence[Callable[[], Awaitable[T]]], max_concurrency: int | None = None
) -> AsyncGenerator[tuple[int, T], None]:
    """Await every task and yield ``(index, result)`` as each finishes.

    Closing the generator early cancels the tasks still running.
    """
    if not tasks:
        return
    limiter, is_new = _limiter_for(max_concurrency)
    context = _publishing(limiter) if is_new and limiter is not None else None
    # `aclosing`: when our caller stops early, the inner generator must cancel its tasks now,
    # not whenever the event loop gets round to finalising it.
    inner = _gather_as_completed(tasks) if limiter is None else _abounded(tasks, limiter, context)
    async with aclosing(inner):
        async for item in inner:
            yield item


async def _gather_as_completed(
    tasks: Sequence[Callable[[], Awaitable[T]]],
) -> AsyncGenerator[tuple[int, T], None]:
    """Every task at once; results in completion order (a queue, so linear in the tasks)."""
    import asyncio

    async def indexed(i: int) -> tuple[int, T, BaseException | None]:
        try:
            return i, await tasks[i](), None
        except BaseException as exc:
            # Any failure, a `BaseException` too, comes back as data and is raised by the
            # consumer: asyncio would re-raise a KeyboardInterrupt out of the event loop
            # instead, and treat a CancelledError the code raised as this task's own.
            if cancelled_here(exc):
                raise
            return i, cast(T, None), exc

    finished: asyncio.Queue[asyncio.Task[tuple[int, T, BaseException | None]]] = asyncio.Queue()
    running = [asyncio.ensure_future(indexed(i)) for i in range(len(tasks))]
    for task in running:
        task.add_done_callback(finished.put_nowait)
    try:
        for _ in range(len(running)):
            i, result, error = (await finished.get()).result()
            if error is not None:
                raise error
            yield i, result
    finally:
        pending = [task for task in running if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        for task in running:
            # Other failures after the first: mark them seen, or asyncio logs each one as
            # "Task exception was never retrieved".
            if not task.cancelled():
                task.exception()


async def _abounded(
    tasks: Sequence[Callable[[], Awaitable[T]]],
    limiter: Limiter,
    context: contextvars.Context | None,
) -> AsyncGenerator[tuple[int, T], None]:
    """Worker coroutines pull tasks from one queue: the caller's own worker needs no permit.

    Workers run in copies of `context` when one is given (a new limiter to publish).
    """
    import asyncio

    n = len(tasks)
    next_index = 0
    queue: asyncio.Queue[tuple[int, Any, BaseException | None]] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    async def worker(holds_permit: bool) -> None:
        nonlocal next_index
        try:
            while next_index < n:
                i = next_index
                next_index += 1
                try:
                    result = await tasks[i]()
                except BaseException as exc:
                    # Every failure reaches the consumer, which raises it: a worker that died
                    # of a `BaseException` would leave it waiting on the queue for ever.
                    if cancelled_here(exc):
                        raise
                    queue.put_nowait((i, None, exc))
                    return
                queue.put_nowait((i, result, None))
        finally:
            if holds_permit:
                limiter.release()

    def start(holds_permit: bool) -> asyncio.Task[None]:
        own = context.copy() if context is not None else None
        return loop.create_task(worker(holds_permit), context=own)

    workers = [start(False)]
    spawnable = n - 1
    try:
        for _ in range(n):
            while spawnable > 0 and next_index < n and limiter.try_acquire():
                spawnable -= 1
                workers.append(start(True))
            i, result, error = await queue.get()
            if error is not None:
                raise error
            yield i, result
    finally:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


def cancelled_here(error: BaseException) -> bool:
    """Whether `error` is the cancellation of the running task, rather than a `CancelledError`
    that the code it awaited raised of its own accord (which is a failure like any other)."""
    import asyncio

    if not isinstance(error, asyncio.CancelledError):
        return False
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def run_in_executor(func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking function in the shared pool without blocking the event loop.

    Context variables travel into the worker thread. A `StopIteration` raised by `func`
    becomes a `RuntimeError`, since it cannot cross a coroutine boundary.
    """
    # Imported here, not at the top: asyncio (which imports ssl) would double the time and
    # memory that ``import leanchain`` costs, for users who never go async.
    import asyncio

    def call() -> T:
        try:
            return func(*args, **kwargs)
        except StopIteration as exc:
            raise RuntimeError(f"{func!r} raised StopIteration") from exc

    ctx = contextvars.copy_context()
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(get_executor(), functools.partial(ctx.run, call))
