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


def other_threads() -> set[threading.Thread]:
    """Live threads that are neither the shared pool's nor a documented hung-tool thread."""
    return {
        t
        for t in threading.enumerate()
        if t.is_alive() and not t.name.startswith(("leanchain_", "leanchain-tool"))
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
