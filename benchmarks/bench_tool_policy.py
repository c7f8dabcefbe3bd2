"""Cost of a `ToolPolicy` per tool call that succeeds, against the same call with no policy.

Workload: one call of a trivial tool through the executor's tool-call path (the middleware
chain, the tool run, the step), the way a step of an agent run makes it; sync, and async in
batches of 100 calls on one event loop. Rows: a policy with retries and a failure budget (what
a call that succeeds pays for them), and a policy with a timeout (sync: the call runs on a
thread of its own, so a hung tool can be left behind; async: an ``asyncio.timeout`` scope).
Each is timed in alternating rounds with the call without middleware (`paired_times`).

Goal (issue 16): at most 2 µs per call for a policy without a timeout. A timeout's thread is
its price on the sync path (reported, no goal).
Run: ``.venv/bin/python -m benchmarks tool_policy`` (or ``make bench``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from benchmarks._util import paired_times, print_table, row, scaled
from leanchain.agents import AgentAction, AgentExecutor, AgentFinish, ToolPolicy
from leanchain.agents._run import AgentRun
from leanchain.agents.middleware import AgentMiddleware
from leanchain.tools import BaseTool, tool

GOAL_PER_CALL_US = 2.0
BATCH = 100


def echo_text(text: str) -> str:
    """Echo the text back."""
    return text


async def aecho_text(text: str) -> str:
    """Echo the text back."""
    return text


ECHO: BaseTool = tool(echo_text)
AECHO: BaseTool = tool(aecho_text)


def _run(middleware: list[AgentMiddleware]) -> AgentRun:
    executor = AgentExecutor(
        agent=lambda _: AgentFinish({"output": ""}, ""),
        tools=[ECHO, AECHO],
        middleware=middleware,
    )
    run = AgentRun(executor, {"input": "q"}, {})
    run.begin(None)
    return run


def _sync_call(middleware: list[AgentMiddleware]) -> Callable[[], Any]:
    run = _run(middleware)
    [request] = run.tool_requests([AgentAction("echo_text", {"text": "x"}, "")])
    call = run.tool_call(request)
    assert call().observation == "x"
    return call


def _async_calls(
    loop: asyncio.AbstractEventLoop, middleware: list[AgentMiddleware]
) -> Callable[[], Any]:
    run = _run(middleware)
    [request] = run.tool_requests([AgentAction("aecho_text", {"text": "x"}, "")])
    call = run.atool_call(request)

    async def calls() -> None:
        for _ in range(BATCH):
            await call()

    def batch() -> None:
        loop.run_until_complete(calls())

    return batch


def main() -> None:
    """Print each policy's added cost per successful call against the call without one."""
    number = scaled(20_000, 20)
    rounds = scaled(9, 2)
    variants: list[tuple[str, Callable[[], ToolPolicy], float | None]] = [
        (
            "ToolPolicy(retries=2, disable_after=3)",
            lambda: ToolPolicy(retries=2, disable_after=3),
            GOAL_PER_CALL_US,
        ),
        ("ToolPolicy(timeout=5)", lambda: ToolPolicy(timeout=5), None),
    ]
    rows = []
    bare = _sync_call([])
    for label, make, goal in variants:
        with_policy = _sync_call([make()])
        n = number if goal is not None else max(1, number // 20)
        base_s, with_s = paired_times(bare, with_policy, number=n, rounds=rounds)
        added = (with_s - base_s) * 1e6
        rows.append(row(f"sync, {label}, added per call", added, None, "µs", at_most=goal))
        rows.append(row(f"sync, {label}, per call", with_s * 1e6, base_s * 1e6, "µs"))
    loop = asyncio.new_event_loop()
    try:
        abare = _async_calls(loop, [])
        for label, make, goal in variants:
            with_policy = _async_calls(loop, [make()])
            base_s, with_s = paired_times(
                abare, with_policy, number=max(1, number // BATCH), rounds=rounds
            )
            added = (with_s - base_s) / BATCH * 1e6
            rows.append(row(f"async, {label}, added per call", added, None, "µs", at_most=goal))
            rows.append(
                row(f"async, {label}, per call", with_s / BATCH * 1e6, base_s / BATCH * 1e6, "µs")
            )
    finally:
        loop.close()
    print_table("ToolPolicy, one successful call of a trivial tool (paired rounds)", rows)


if __name__ == "__main__":
    main()
