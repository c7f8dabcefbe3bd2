"""The tool calls of one step run at once (bounded, results in call order), and the time limit
holds even when a tool or the agent hangs."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from test_executor_support import MODES, Mode, ScriptAgent, act, finish, run

from leanchain.agents import AgentExecutor
from leanchain.runnables import RunnableConfig
from leanchain.tools import BaseTool, tool

STOPPED = "Agent stopped due to iteration limit or time limit."


def _barrier_tool() -> BaseTool:
    barrier = threading.Barrier(2, timeout=5)

    @tool
    def meet(text: str) -> str:
        """Returns only when a second call is running at the same time."""
        barrier.wait()
        return f"met:{text}"

    return meet


@pytest.mark.parametrize("mode", MODES)
async def test_the_calls_of_one_step_run_at_the_same_time(mode: Mode) -> None:
    agent = ScriptAgent([act("meet", "a"), act("meet", "b")], finish("ok"))
    executor = AgentExecutor(agent=agent, tools=[_barrier_tool()], return_intermediate_steps=True)
    result = await run(executor, {"input": "q"}, mode)
    assert [obs for _, obs in result["intermediate_steps"]] == ["met:a", "met:b"]


async def test_async_tools_run_as_concurrent_tasks() -> None:
    barrier = asyncio.Barrier(2)

    @tool
    async def gather(text: str) -> str:
        """Returns only when a second call waits too."""
        async with asyncio.timeout(5):
            await barrier.wait()
        return f"met:{text}"

    agent = ScriptAgent([act("gather", "a"), act("gather", "b")], finish("ok"))
    executor = AgentExecutor(agent=agent, tools=[gather], return_intermediate_steps=True)
    result = await executor.ainvoke({"input": "q"})
    assert [obs for _, obs in result["intermediate_steps"]] == ["met:a", "met:b"]


@tool
def nap(text: str) -> str:
    """Sleeps 0.2 s."""
    time.sleep(0.2)
    return f"slept:{text}"


@tool
async def anap(text: str) -> str:
    """Sleeps 0.2 s without blocking the loop."""
    await asyncio.sleep(0.2)
    return f"slept:{text}"


@pytest.mark.parametrize(("mode", "sleeper"), [("sync", nap), ("async", nap), ("async", anap)])
async def test_two_sleeping_tools_take_the_time_of_one(mode: Mode, sleeper: BaseTool) -> None:
    calls = [act(sleeper.name, "a"), act(sleeper.name, "b")]
    executor = AgentExecutor(agent=ScriptAgent(calls, finish("ok")), tools=[sleeper])
    started = time.monotonic()
    await run(executor, {"input": "q"}, mode)
    assert time.monotonic() - started < 0.35


@pytest.mark.parametrize("mode", MODES)
async def test_max_tool_concurrency_one_runs_the_calls_one_by_one(mode: Mode) -> None:
    calls = [act("nap", "a"), act("nap", "b")]
    executor = AgentExecutor(
        agent=ScriptAgent(calls, finish("ok")), tools=[nap], max_tool_concurrency=1
    )
    started = time.monotonic()
    await run(executor, {"input": "q"}, mode)
    assert time.monotonic() - started >= 0.4


class _Counter:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0

    def tool(self) -> BaseTool:
        @tool
        def count(text: str) -> str:
            """Counts how many calls run at once."""
            with self.lock:
                self.running += 1
                self.peak = max(self.peak, self.running)
            time.sleep(0.03)
            with self.lock:
                self.running -= 1
            return text

        return count


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bound", [1, 2])
async def test_no_more_calls_run_at_once_than_the_bound(mode: Mode, bound: int) -> None:
    counter = _Counter()
    calls = [act("count", str(i)) for i in range(6)]
    executor = AgentExecutor(
        agent=ScriptAgent(calls, finish("ok")),
        tools=[counter.tool()],
        max_tool_concurrency=bound,
        return_intermediate_steps=True,
    )
    result = await run(executor, {"input": "q"}, mode)
    assert 1 <= counter.peak <= bound
    assert [obs for _, obs in result["intermediate_steps"]] == [str(i) for i in range(6)]


@pytest.mark.parametrize("mode", MODES)
async def test_observations_are_in_call_order_when_the_second_finishes_first(mode: Mode) -> None:
    second_done = threading.Event()
    finished: list[str] = []

    @tool
    def first(text: str) -> str:
        """Waits for the second call to finish."""
        assert second_done.wait(5)
        finished.append("first")
        return "first"

    @tool
    def second(text: str) -> str:
        """Finishes at once."""
        finished.append("second")
        second_done.set()
        return "second"

    calls = [act("first", "x"), act("second", "y")]
    executor = AgentExecutor(
        agent=ScriptAgent(calls, finish("ok")),
        tools=[first, second],
        return_intermediate_steps=True,
    )
    result = await run(executor, {"input": "q"}, mode)
    assert finished == ["second", "first"]
    assert result["intermediate_steps"] == [(calls[0], "first"), (calls[1], "second")]


@pytest.mark.parametrize("mode", MODES)
async def test_a_failing_call_fails_the_step_after_its_siblings(mode: Mode) -> None:
    done: list[str] = []

    @tool
    def fails(text: str) -> str:
        """Fails."""
        raise RuntimeError("tool broke")

    @tool
    def works(text: str) -> str:
        """Works, slowly."""
        time.sleep(0.05)
        done.append(text)
        return text

    calls = [act("works", "a"), act("fails", "b")]
    executor = AgentExecutor(agent=ScriptAgent(calls), tools=[works, fails])
    # The error propagates unchanged, with a note naming the iteration and the tool.
    with pytest.raises(
        RuntimeError, match=r"^tool broke\nAgentExecutor iteration 1: tool 'fails' failed\.$"
    ):
        await run(executor, {"input": "q"}, mode)
    if mode == "sync":
        assert done == ["a"]


# -- the time limit against hung work --------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_time_limit_holds_when_a_sync_tool_hangs(mode: Mode) -> None:
    release = threading.Event()

    @tool
    def hang(text: str) -> str:
        """Hangs until the test ends."""
        release.wait(30)
        return "too late"

    executor = AgentExecutor(
        agent=ScriptAgent(act("hang", "x")),
        tools=[hang],
        max_execution_time=0.3,
        return_intermediate_steps=True,
    )
    try:
        started = time.monotonic()
        result = await run(executor, {"input": "q"}, mode)
        elapsed = time.monotonic() - started
    finally:
        release.set()
    assert result == {"input": "q", "output": STOPPED, "intermediate_steps": []}
    assert 0.3 <= elapsed < 2.3  # the limit plus scheduling slack; the tool hangs 30 s


async def test_time_limit_cancels_a_hung_async_tool() -> None:
    cancelled = asyncio.Event()

    @tool
    async def ahang(text: str) -> str:
        """Hangs until cancelled."""
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "too late"

    calls = [act("ahang", "x"), act("ahang", "y")]
    executor = AgentExecutor(agent=ScriptAgent(calls), tools=[ahang], max_execution_time=0.3)
    started = time.monotonic()
    result = await executor.ainvoke({"input": "q"})
    assert time.monotonic() - started < 2.3  # the limit plus slack; the tool sleeps 30 s
    assert result == {"input": "q", "output": STOPPED}
    assert cancelled.is_set()


async def test_time_limit_cancels_a_hung_async_agent() -> None:
    class SlowAgent(ScriptAgent):
        async def ainvoke(
            self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
        ) -> Any:
            await asyncio.sleep(30)

    executor = AgentExecutor(agent=SlowAgent(), tools=[nap], max_execution_time=0.2)
    started = time.monotonic()
    assert await executor.ainvoke({"input": "q"}) == {"input": "q", "output": STOPPED}
    assert time.monotonic() - started < 2.2  # the limit plus slack; the agent sleeps 30 s


@pytest.mark.parametrize("mode", MODES)
async def test_time_limit_between_iterations_stops_the_loop(mode: Mode) -> None:
    agent = ScriptAgent(*[act("nap", str(i)) for i in range(10)])
    executor = AgentExecutor(agent=agent, tools=[nap], max_execution_time=0.3)
    assert await run(executor, {"input": "q"}, mode) == {"input": "q", "output": STOPPED}
    assert len(agent.seen) in (1, 2)
