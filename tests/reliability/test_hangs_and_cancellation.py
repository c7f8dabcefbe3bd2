"""Faults inside a run: a tool that hangs, a run cancelled in the middle of a step.

- A sync tool that never returns cannot hold a run past ``max_execution_time``: the stopped
  response comes back within a moment of the limit, in every entry point.
- An async run cancelled mid-step (the model answering, async tools running, a sync tool in a
  worker thread, a stream being read) raises `CancelledError` at once and leaves nothing
  behind: no pending task, no "Task was destroyed but it is pending", no "coroutine was never
  awaited", no thread beyond the shared pool.

Documented exception: a *sync* tool cannot be interrupted (Python cannot stop a thread), so a
hung sync tool keeps its thread — a daemon ``leanchain-tool`` thread under a sync time limit,
a shared-pool ``leanchain_N`` thread under async — until the tool returns by itself.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
import time
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import pytest

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import ScriptedChatModel
from leanchain.tools import BaseTool, tool

STOPPED = "Agent stopped due to iteration limit or time limit."
LIMIT = 0.3
MOMENT = 2.0
"""How long after the limit a stopped run may take to come back: scheduling slack only, wide
enough for a loaded CI machine and still far below the 30 s a hung tool would hold the run."""

Mode = Literal["invoke", "ainvoke", "stream", "astream"]


SHARED_THREADS = ("leanchain_", "leanchain-tool", "leanchain-events")


def other_threads() -> set[threading.Thread]:
    """Live threads that are neither the shared pools' (tasks, event-stream producers) nor a
    documented hung-tool thread."""
    return {
        t for t in threading.enumerate() if t.is_alive() and not t.name.startswith(SHARED_THREADS)
    }


def tool_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "leanchain-tool"]


class Hang:
    """A sync tool that blocks until released, and the event that releases it."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        release, started = self.release, self.started

        @tool
        def hang(text: str) -> str:
            """Blocks until the test lets it go."""
            started.set()
            release.wait(30)
            return "late"

        self.tool: BaseTool = hang


@pytest.fixture
def hang() -> Iterator[Hang]:
    hung = Hang()
    yield hung
    hung.release.set()
    for thread in tool_threads():
        thread.join(5)
    assert tool_threads() == []


def agent_executor(
    script: list[Any], tools: list[BaseTool], **kwargs: Any
) -> tuple[AgentExecutor, ScriptedChatModel]:
    model = ScriptedChatModel(script, **kwargs.pop("model_options", {}))
    agent = create_tool_calling_agent(model, tools, TOOL_CALLING_PROMPT)
    return AgentExecutor(agent=agent, tools=tools, **kwargs), model


async def run(executor: AgentExecutor, mode: Mode) -> dict[str, Any]:
    if mode == "invoke":
        return executor.invoke("q")
    if mode == "ainvoke":
        return await executor.ainvoke("q")
    if mode == "stream":
        return list(executor.stream("q"))[-1]
    return [chunk async for chunk in executor.astream("q")][-1]


# -- a hung sync tool against the time limit --------------------------------------------------


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream"])
@pytest.mark.parametrize("calls", [1, 3])
async def test_a_hung_sync_tool_cannot_hold_the_run_past_the_time_limit(
    hang: Hang, mode: Mode, calls: int
) -> None:
    reply = ScriptedChatModel.tool_calls(*[("hang", {"text": str(i)}) for i in range(calls)])
    executor, model = agent_executor([reply], [hang.tool], max_execution_time=LIMIT)
    before = other_threads()
    started = time.monotonic()
    result = await run(executor, mode)
    elapsed = time.monotonic() - started
    assert result["output"] == STOPPED
    assert LIMIT <= elapsed < LIMIT + MOMENT
    assert hang.started.is_set()
    assert len(model.requests) == 1  # the model is not asked again after the limit
    assert other_threads() == before


def test_hung_tool_threads_end_once_the_tool_returns(hang: Hang) -> None:
    reply = ScriptedChatModel.tool_calls(("hang", {"text": "a"}), ("hang", {"text": "b"}))
    executor, _ = agent_executor([reply], [hang.tool], max_execution_time=LIMIT)
    assert executor.invoke("q") == {"input": "q", "output": STOPPED}
    assert len(tool_threads()) == 2
    assert all(t.daemon for t in tool_threads())  # never holds up the interpreter's exit
    hang.release.set()
    for thread in tool_threads():
        thread.join(5)
    assert tool_threads() == []


# -- cancellation ------------------------------------------------------------------------------


class Leaks:
    """What a cancelled run left behind, collected by `watch`."""

    def __init__(self) -> None:
        self.unraisable: list[str] = []
        self.warnings: list[str] = []
        self.asyncio_log: list[str] = []
        self.tasks: set[asyncio.Task[Any]] = set()
        self.threads: set[threading.Thread] = set()


@asynccontextmanager
async def watch(caplog: pytest.LogCaptureFixture) -> AsyncIterator[Leaks]:
    """Record leftover tasks, threads, unraisable errors, warnings and asyncio's complaints."""
    leaks = Leaks()
    caplog.set_level(logging.DEBUG, logger="asyncio")
    before = other_threads()
    hook = sys.unraisablehook
    sys.unraisablehook = lambda u: leaks.unraisable.append(f"{u.exc_value!r} in {u.object!r}")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield leaks
            for _ in range(5):
                await asyncio.sleep(0)
            gc.collect()
            await asyncio.sleep(0)
    finally:
        sys.unraisablehook = hook
    leaks.warnings = [str(w.message) for w in caught]
    leaks.asyncio_log = [r.getMessage() for r in caplog.records if r.name == "asyncio"]
    leaks.tasks = {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}
    leaks.threads = other_threads() - before


def assert_clean(leaks: Leaks) -> None:
    assert leaks.tasks == set()
    assert leaks.unraisable == []
    assert leaks.warnings == []
    assert leaks.asyncio_log == []
    assert leaks.threads == set()


async def until(condition: Callable[[], bool]) -> None:
    """Wait (at most 5 s) for `condition`, which other threads or tasks make true."""
    async with asyncio.timeout(5):
        while not condition():  # noqa: ASYNC110 - set from worker threads too
            await asyncio.sleep(0.005)


async def cancel_when(task: asyncio.Task[Any], ready: asyncio.Event | threading.Event) -> float:
    """Cancel `task` once `ready` is set; seconds from the cancel to the task's end."""
    await until(ready.is_set)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return time.monotonic() - started


class Listener(BaseCallbackHandler):
    """A handler, so that the executor streams the agent (model tokens to the callbacks)."""

    def __init__(self) -> None:
        self.tokens: list[str] = []

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.tokens.append(token)


async def test_cancelled_while_the_model_answers(caplog: pytest.LogCaptureFixture) -> None:
    executor, model = agent_executor(["never seen"], [], model_options={"delay": 30})
    async with watch(caplog) as leaks:
        task = asyncio.create_task(executor.ainvoke("q"))
        await until(lambda: bool(model.requests))
        assert await cancel_when(task, already()) < MOMENT
    assert_clean(leaks)


def already() -> threading.Event:
    """An event that is set."""
    event = threading.Event()
    event.set()
    return event


async def test_cancelled_while_the_model_streams_tokens(caplog: pytest.LogCaptureFixture) -> None:
    listener = Listener()
    text = "one two three four five six seven eight nine ten"
    executor, _ = agent_executor(
        [text], [], callbacks=[listener], model_options={"chunk_delay": 0.05}
    )
    first_token = asyncio.Event()

    async def consume() -> None:
        async for _ in executor.astream("q"):
            pass

    async with watch(caplog) as leaks:
        task = asyncio.create_task(consume())
        await until(lambda: bool(listener.tokens))
        first_token.set()
        assert await cancel_when(task, first_token) < MOMENT
        assert 1 <= len(listener.tokens) < 10
    assert_clean(leaks)


async def test_cancelled_while_async_tools_run(caplog: pytest.LogCaptureFixture) -> None:
    running: list[str] = []
    cancelled: list[str] = []
    both = asyncio.Event()

    @tool
    async def wait(text: str) -> str:
        """Waits until cancelled."""
        running.append(text)
        if len(running) == 2:
            both.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(text)
            raise
        return text

    reply = ScriptedChatModel.tool_calls(("wait", {"text": "a"}), ("wait", {"text": "b"}))
    executor, _ = agent_executor([reply], [wait])
    async with watch(caplog) as leaks:
        task = asyncio.create_task(executor.ainvoke("q"))
        assert await cancel_when(task, both) < MOMENT
    assert sorted(cancelled) == ["a", "b"]
    assert_clean(leaks)


async def test_cancelled_while_async_tools_run_under_a_time_limit(
    caplog: pytest.LogCaptureFixture,
) -> None:
    started = asyncio.Event()

    @tool
    async def wait(text: str) -> str:
        """Waits until cancelled."""
        started.set()
        await asyncio.sleep(30)
        return text

    reply = ScriptedChatModel.tool_calls(("wait", {"text": "a"}), ("wait", {"text": "b"}))
    executor, _ = agent_executor([reply], [wait], max_execution_time=20)
    async with watch(caplog) as leaks:
        task = asyncio.create_task(executor.ainvoke("q"))
        assert await cancel_when(task, started) < MOMENT
    assert_clean(leaks)


async def test_cancelled_while_a_sync_tool_runs_in_a_worker_thread(
    hang: Hang, caplog: pytest.LogCaptureFixture
) -> None:
    reply = ScriptedChatModel.tool_call("hang", {"text": "a"})
    executor, _ = agent_executor([reply], [hang.tool])
    async with watch(caplog) as leaks:
        task = asyncio.create_task(executor.ainvoke("q"))
        assert await cancel_when(task, hang.started) < MOMENT
        # The thread cannot be stopped; once the tool returns, nothing is left.
        hang.release.set()
        await asyncio.sleep(0.05)
    assert_clean(leaks)


async def test_cancelled_while_reading_the_stream_of_steps(
    caplog: pytest.LogCaptureFixture,
) -> None:
    started = asyncio.Event()
    chunks: list[dict[str, Any]] = []

    @tool
    async def wait(text: str) -> str:
        """Waits until cancelled."""
        started.set()
        await asyncio.sleep(30)
        return text

    reply = ScriptedChatModel.tool_calls(("wait", {"text": "a"}), ("wait", {"text": "b"}))
    executor, _ = agent_executor([reply], [wait], callbacks=[Listener()])

    async def consume() -> None:
        async for chunk in executor.astream("q"):
            chunks.append(chunk)

    async with watch(caplog) as leaks:
        task = asyncio.create_task(consume())
        assert await cancel_when(task, started) < MOMENT
    assert [sorted(c) for c in chunks] == [["actions", "messages"], ["actions", "messages"]]
    assert_clean(leaks)


async def test_a_cancelled_run_leaves_the_executor_usable(caplog: pytest.LogCaptureFixture) -> None:
    gate = asyncio.Event()

    @tool
    async def slow(text: str) -> str:
        """Waits for the gate."""
        await gate.wait()
        return f"slow:{text}"

    script: list[Any] = [ScriptedChatModel.tool_call("slow", {"text": "a"})]
    script += [ScriptedChatModel.tool_call("slow", {"text": "b"}), "done"]
    executor, _ = agent_executor(script, [slow])
    async with watch(caplog) as leaks:
        task = asyncio.create_task(executor.ainvoke("q"))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        gate.set()
        assert await executor.ainvoke("q") == {"input": "q", "output": "done"}
    assert_clean(leaks)


# -- a BaseException in every concurrent path --------------------------------------------------
#
# A `BaseException` that is not an `Exception` (here `Boom`), a KeyboardInterrupt (sync paths:
# asyncio raises one out of the event loop whatever the library does), or a CancelledError
# that user code raises itself must come out of the call unchanged, at once, with nothing of
# the call left running: no task, no thread, no sibling still at work.


class Boom(BaseException):
    """A failure that ``except Exception`` does not catch."""


AsyncError = Literal["boom", "cancelled"]
SyncError = Literal["boom", "interrupt"]


def raised(kind: str) -> BaseException:
    if kind == "boom":
        return Boom("boom from user code")
    if kind == "interrupt":
        return KeyboardInterrupt("interrupt from user code")
    return asyncio.CancelledError("cancelled by user code")


class Siblings:
    """Async work items: ``1`` fails with `error` once ``0`` is running; the others wait for
    ever (one at a time: return at once). `running` is what has started and not ended."""

    def __init__(self, error: BaseException, one_at_a_time: bool) -> None:
        self.error = error
        self.running: set[int] = set()
        self.cancelled: list[int] = []
        self.first = asyncio.Event()
        self.wait_s = 0 if one_at_a_time else 30

    async def item(self, x: int) -> int:
        self.running.add(x)
        try:
            if x == 1:
                await self.first.wait()
                raise self.error
            self.first.set()
            await asyncio.sleep(self.wait_s)
        except asyncio.CancelledError:
            self.cancelled.append(x)
            raise
        finally:
            self.running.discard(x)
        return x

    async def stream(self, chunks: AsyncIterator[int]) -> AsyncIterator[int]:
        self.running.add(0)
        try:
            async for x in chunks:
                yield x
            self.first.set()
            while True:
                yield 0
                await asyncio.sleep(0.001)
        except asyncio.CancelledError:
            self.cancelled.append(0)
            raise
        finally:
            self.running.discard(0)

    async def failing_stream(self, chunks: AsyncIterator[int]) -> AsyncIterator[int]:
        async for _ in chunks:
            pass
        await self.first.wait()
        raise self.error
        yield 1  # pragma: no cover - makes this an async generator


async def _abatch(s: Siblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableLambda

    return await RunnableLambda(s.item).abatch([0, 1, 2], {"max_concurrency": limit})


async def _abatch_as_completed(s: Siblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableLambda

    items = RunnableLambda(s.item).abatch_as_completed([0, 1, 2], {"max_concurrency": limit})
    return [item async for item in items]


async def _amap(s: Siblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableLambda

    return await RunnableLambda(s.item).map().ainvoke([0, 1, 2], {"max_concurrency": limit})


async def _aparallel(s: Siblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableLambda, RunnableParallel

    both = RunnableParallel(a=RunnableLambda(s.item), b=RunnableLambda(lambda x: x + 1) | s.item)
    return await both.ainvoke(0, {"max_concurrency": limit})


async def _aparallel_stream(s: Siblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableGenerator, RunnableParallel

    both = RunnableParallel(a=RunnableGenerator(s.stream), b=RunnableGenerator(s.failing_stream))
    return [chunk async for chunk in both.astream(0, {"max_concurrency": limit})]


async def _aparallel_events(s: Siblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableGenerator, RunnableParallel

    both = RunnableParallel(a=RunnableGenerator(s.stream), b=RunnableGenerator(s.failing_stream))
    return [e async for e in both.astream_events(0, {"max_concurrency": limit})]


async def _atool_calls(s: Siblings, limit: int | None) -> Any:
    from leanchain.agents._tools_run import arun_calls

    return await arun_calls([lambda: s.item(0), lambda: s.item(1), lambda: s.item(2)], limit)


def _item_agent(item: Callable[[int], Any], limit: int | None) -> AgentExecutor:
    """An agent whose one step calls `item` on 0, 1 and 2 at once (`limit` at a time)."""
    items = tool("item", description="Works on one item.")(item)
    reply = ScriptedChatModel.tool_calls(*[("item", {"x": x}) for x in range(3)])
    executor, _ = agent_executor(
        [reply, "done"], [items], handle_tool_errors=True, max_tool_concurrency=limit
    )
    return executor


async def _aagent(s: Siblings, limit: int | None) -> Any:
    return await _item_agent(s.item, limit).ainvoke("q")


ASYNC_PATHS: dict[str, Callable[[Siblings, int | None], Any]] = {
    "abatch": _abatch,
    "abatch_as_completed": _abatch_as_completed,
    "map.ainvoke": _amap,
    "RunnableParallel.ainvoke": _aparallel,
    "RunnableParallel.astream": _aparallel_stream,
    "RunnableParallel.astream_events": _aparallel_events,
    "agent step tool calls": _atool_calls,
    "AgentExecutor.ainvoke": _aagent,
}


@pytest.mark.parametrize("limit", [None, 1, 2])
@pytest.mark.parametrize("kind", ["boom", "cancelled"])
@pytest.mark.parametrize("path", list(ASYNC_PATHS))
async def test_a_base_exception_propagates_unchanged_from_every_async_concurrent_path(
    path: str, kind: AsyncError, limit: int | None, caplog: pytest.LogCaptureFixture
) -> None:
    siblings = Siblings(raised(kind), one_at_a_time=limit == 1)
    async with watch(caplog) as leaks:
        with pytest.raises(BaseException) as caught:
            async with asyncio.timeout(5):
                await ASYNC_PATHS[path](siblings, limit)
    assert caught.value is siblings.error
    assert_clean(leaks)
    # Whatever was still waiting when the error came is cancelled, not left running.
    assert siblings.running == set()
    if limit != 1:
        assert 0 in siblings.cancelled


def _within(seconds: float, work: Callable[[], Any]) -> BaseException | None:
    """What `work` raised (``None``: it returned), failing the test if it took longer."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            work()
        except BaseException as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    thread = threading.Thread(target=target, name="test-bounded", daemon=True)
    thread.start()
    thread.join(seconds)
    if not outcome:
        pytest.fail(f"still running after {seconds} s")
    return outcome[0]


class SyncSiblings:
    """Sync work items: ``1`` fails with `error` once ``0`` is running; the others take a
    moment (a stream: for ever). `running` is what has started and not ended."""

    def __init__(self, error: BaseException, one_at_a_time: bool) -> None:
        self.error = error
        self.running: set[int] = set()
        self.first = threading.Event()
        if one_at_a_time:
            self.first.set()
        self.lock = threading.Lock()

    def _enter(self, x: int) -> None:
        with self.lock:
            self.running.add(x)

    def _leave(self, x: int) -> None:
        with self.lock:
            self.running.discard(x)

    def item(self, x: int) -> int:
        self._enter(x)
        try:
            if x == 1:
                self.first.wait(5)
                raise self.error
            self.first.set()
            time.sleep(0.05)
        finally:
            self._leave(x)
        return x

    def stream(self, chunks: Iterator[int]) -> Iterator[int]:
        self._enter(0)
        try:
            yield from chunks
            self.first.set()
            while True:
                yield 0
                time.sleep(0.001)
        finally:
            self._leave(0)

    def failing_stream(self, chunks: Iterator[int]) -> Iterator[int]:
        for _ in chunks:
            pass
        self.first.wait(5)
        raise self.error
        yield 1  # pragma: no cover - makes this a generator


def _batch(s: SyncSiblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableLambda

    return RunnableLambda(s.item).batch([0, 1, 2], {"max_concurrency": limit})


def _batch_as_completed(s: SyncSiblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableLambda

    return list(RunnableLambda(s.item).batch_as_completed([0, 1, 2], {"max_concurrency": limit}))


def _map(s: SyncSiblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableLambda

    return RunnableLambda(s.item).map().invoke([0, 1, 2], {"max_concurrency": limit})


def _parallel(s: SyncSiblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableLambda, RunnableParallel

    both = RunnableParallel(a=RunnableLambda(s.item), b=RunnableLambda(lambda x: x + 1) | s.item)
    return both.invoke(0, {"max_concurrency": limit})


def _parallel_stream(s: SyncSiblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableGenerator, RunnableParallel

    both = RunnableParallel(a=RunnableGenerator(s.stream), b=RunnableGenerator(s.failing_stream))
    return list(both.stream(0, {"max_concurrency": limit}))


def _parallel_events(s: SyncSiblings, limit: int | None) -> Any:
    from leanchain.runnables import RunnableGenerator, RunnableParallel

    both = RunnableParallel(a=RunnableGenerator(s.stream), b=RunnableGenerator(s.failing_stream))
    return list(both.stream_events(0, {"max_concurrency": limit}))


def _tool_calls(s: SyncSiblings, limit: int | None) -> Any:
    from leanchain.agents._tools_run import run_calls

    return run_calls([lambda: s.item(0), lambda: s.item(1), lambda: s.item(2)], limit)


def _agent(s: SyncSiblings, limit: int | None) -> Any:
    return _item_agent(s.item, limit).invoke("q")


SYNC_PATHS: dict[str, Callable[[SyncSiblings, int | None], Any]] = {
    "batch": _batch,
    "batch_as_completed": _batch_as_completed,
    "map.invoke": _map,
    "RunnableParallel.invoke": _parallel,
    "RunnableParallel.stream": _parallel_stream,
    "RunnableParallel.stream_events": _parallel_events,
    "agent step tool calls": _tool_calls,
    "AgentExecutor.invoke": _agent,
}


@pytest.mark.parametrize("limit", [None, 1, 2])
@pytest.mark.parametrize("kind", ["boom", "interrupt"])
@pytest.mark.parametrize("path", list(SYNC_PATHS))
def test_a_base_exception_propagates_unchanged_from_every_sync_concurrent_path(
    path: str, kind: SyncError, limit: int | None
) -> None:
    siblings = SyncSiblings(raised(kind), one_at_a_time=limit == 1)
    before = other_threads()
    error = _within(5, lambda: SYNC_PATHS[path](siblings, limit))
    assert error is siblings.error
    # Nothing of the call goes on after it raised: every sibling that started has ended.
    assert siblings.running == set()
    assert other_threads() - before == set()
