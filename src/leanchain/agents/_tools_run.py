"""Running the tool calls of one agent step at once, bounded, with results in call order.

Sync: the calling thread works through the calls itself and up to ``limit - 1`` helpers from
the shared pool join in, so nesting cannot deadlock (the caller never waits for a call that has
not started). Under a deadline the caller must be able to stop waiting, so every call then
runs on a daemon thread of its own and the caller only waits: a hung tool keeps its thread,
and that thread never holds up the interpreter's exit.

Async: up to ``limit`` worker tasks pull calls from one queue; a failure or a cancellation
(the executor's time limit) cancels the others, so nothing outlives the step.

Inside a ``batch``/``abatch`` with ``max_concurrency``, that bound holds for the whole call
tree (DESIGN §2): the step's first call runs in the item's own slot, and every further call
that runs at the same time needs a permit from the tree's limiter. With none free the calls
run one after another, so the step never waits for a permit and cannot deadlock.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from leanchain.runnables.concurrency import Limiter, cancelled_here, current_limiter, get_executor

__all__ = ["arun_calls", "run_calls"]

T = TypeVar("T")


class _Calls:
    """The shared state of one sync step: which call runs next, and what came back."""

    __slots__ = ("calls", "cond", "errors", "finished", "next", "results", "started", "stop")

    def __init__(self, calls: Sequence[Callable[[], Any]]) -> None:
        self.calls = calls
        self.cond = threading.Condition()
        self.next = 0
        self.started = 0
        self.finished = 0
        self.stop = False
        self.results: list[Any] = [None] * len(calls)
        self.errors: list[tuple[int, BaseException]] = []

    def work(self) -> None:
        """Run calls until none are left (or a failure stopped the step)."""
        calls, cond = self.calls, self.cond
        n = len(calls)
        while True:
            with cond:
                if self.stop or self.next >= n:
                    return
                i = self.next
                self.next += 1
                self.started += 1
            try:
                result = calls[i]()
            except BaseException as exc:
                with cond:
                    self.errors.append((i, exc))
                    self.stop = True
                    self.finished += 1
                    cond.notify_all()
                continue
            with cond:
                self.results[i] = result
                self.finished += 1
                cond.notify_all()

    def wait(self, deadline: float | None) -> bool:
        """Wait until every started call has finished; ``False`` if the deadline came first."""
        cond, n = self.cond, len(self.calls)
        with cond:
            while self.finished < (self.started if self.stop else n):
                if deadline is None:
                    cond.wait()
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.stop = True
                    # A failure already seen is the better answer than "out of time".
                    return bool(self.errors)
                cond.wait(remaining)
            return True

    def outcome(self) -> list[Any]:
        """The results in call order, or the failure of the earliest failed call."""
        if self.errors:
            raise min(self.errors, key=lambda e: e[0])[1]
        return self.results


def run_calls(
    calls: Sequence[Callable[[], T]], limit: int | None, deadline: float | None = None
) -> list[T] | None:
    """Run `calls`, at most `limit` at once, and return their results in call order.

    Args:
        calls: the tool calls of one step, as functions of no arguments.
        limit: how many may run at once (``None``: all of them).
        deadline: a `time.monotonic` instant after which the caller stops waiting.

    Returns:
        The results, or ``None`` when the deadline passed first (the calls still running
        finish in the background; the ones not started never start).

    Raises:
        BaseException: the earliest (in call order) failure, once the started calls finished.
    """
    n = len(calls)
    width = n if limit is None else min(limit, n)
    if deadline is None and width <= 1:
        return [call() for call in calls]
    state = _Calls(calls)
    helpers = _permits(current_limiter(), width - 1)
    if deadline is None:
        pool = get_executor()
        for release in helpers:
            pool.submit(contextvars.copy_context().run, _releasing(state.work, release))
        state.work()
    else:
        # The first thread works in the caller's slot; the caller itself only waits.
        for release in [None, *helpers]:
            thread = threading.Thread(
                target=contextvars.copy_context().run,
                args=(_releasing(state.work, release),),
                name="leanchain-tool",
                daemon=True,
            )
            thread.start()
    if not state.wait(deadline):
        return None
    return state.outcome()


async def arun_calls(calls: Sequence[Callable[[], Awaitable[T]]], limit: int | None) -> list[T]:
    """Await `calls`, at most `limit` at once, and return their results in call order.

    A failure cancels the calls still running and is raised once they have stopped; so is a
    cancellation of the caller.
    """
    n = len(calls)
    width = n if limit is None else min(limit, n)
    if width <= 1:
        return [await call() for call in calls]
    results: list[Any] = [None] * n
    errors: list[tuple[int, BaseException]] = []
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < n:
            i = next_index
            next_index += 1
            try:
                results[i] = await calls[i]()
            except BaseException as exc:
                # Any failure, a `BaseException` or a CancelledError the tool raised itself
                # too, is kept and raised as it is; only this worker's own cancellation (a
                # sibling failed, or the caller was cancelled) is not a result.
                if cancelled_here(exc):
                    raise
                errors.append((i, exc))
                raise _CallFailed from None

    async def helper(release: Callable[[], None] | None) -> None:
        try:
            await worker()
        finally:
            if release is not None:
                release()

    helpers = _permits(current_limiter(), width - 1)
    workers = [asyncio.ensure_future(helper(release)) for release in [None, *helpers]]
    try:
        await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    if errors:
        raise min(errors, key=lambda e: e[0])[1]
    return results


class _CallFailed(Exception):
    """A worker's call failed (the failure itself is in the step's errors): ends the wait.

    An `Exception`, whatever the failure was: a worker that re-raised a KeyboardInterrupt
    would have asyncio raise it out of the event loop instead of from the step.
    """


def _permits(limiter: Limiter | None, wanted: int) -> list[Callable[[], None] | None]:
    """Up to `wanted` helper slots: each a permit's release (or None when no tree bound)."""
    if limiter is None:
        return [None] * wanted
    taken: list[Callable[[], None] | None] = []
    while len(taken) < wanted and limiter.try_acquire():
        taken.append(limiter.release)
    return taken


def _releasing(work: Callable[[], None], release: Callable[[], None] | None) -> Callable[[], None]:
    """`work`, giving its permit back when it ends."""
    if release is None:
        return work

    def run() -> None:
        try:
            work()
        finally:
            release()

    return run
