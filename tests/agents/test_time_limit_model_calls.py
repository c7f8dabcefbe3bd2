"""`max_execution_time` bounds a slow model call on the sync path too, and no tool runs late.

The model blocks until the test lets it go (after the run returned), then asks for a tool: the
run must have stopped at its deadline, and the tool it asked for late must never start.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from middleware_support import drive

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import FunctionChatModel
from leanchain.tools import tool

STOPPED = "Agent stopped due to iteration limit or time limit."
LIMIT = 0.3
SLACK = 2.0  # far below the model's 30 s: a loaded machine may be slow, never that slow


class _Slow:
    """A model that answers only when released, and a tool that records its calls."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.answered = threading.Event()
        self.tool_runs: list[str] = []

        def reply(messages: list[Any], request: Any) -> Any:
            self.release.wait(30)
            self.answered.set()
            return FunctionChatModel.tool_call("act", {"text": "late"})

        @tool
        def act(text: str) -> str:
            """Do something with a side effect."""
            self.tool_runs.append(text)
            return "done"

        self.tools = [act]
        self.executor = AgentExecutor(
            agent=create_tool_calling_agent(
                FunctionChatModel(reply), self.tools, TOOL_CALLING_PROMPT
            ),
            tools=self.tools,
            max_execution_time=LIMIT,
        )

    def finish(self) -> None:
        """Let the model answer, and wait until its late answer has been dropped."""
        self.release.set()
        assert self.answered.wait(10)
        time.sleep(0.05)  # where a late tool call would start, if one could


@pytest.mark.parametrize("entry", ["invoke", "stream", "iter", "stream_events", "batch"])
async def test_a_slow_sync_model_call_stops_at_the_deadline(entry: Any) -> None:
    slow = _Slow()
    started = time.monotonic()
    try:
        result = await drive(slow.executor, {"input": "q"}, entry)
        elapsed = time.monotonic() - started
    finally:
        slow.finish()
    assert result == {"output": STOPPED}
    assert LIMIT <= elapsed < LIMIT + SLACK
    assert slow.tool_runs == []


async def test_the_async_path_stops_at_the_deadline_too() -> None:
    slow = _Slow()
    started = time.monotonic()
    try:
        result = await drive(slow.executor, {"input": "q"}, "ainvoke")
        elapsed = time.monotonic() - started
    finally:
        slow.finish()
    assert result == {"output": STOPPED}
    assert elapsed < LIMIT + SLACK
    assert slow.tool_runs == []


def test_a_model_error_before_the_deadline_propagates_unchanged() -> None:
    def reply(messages: list[Any], request: Any) -> Any:
        raise KeyError("model broke")

    @tool
    def act(text: str) -> str:
        """Act."""
        return text

    executor = AgentExecutor(
        agent=create_tool_calling_agent(FunctionChatModel(reply), [act], TOOL_CALLING_PROMPT),
        tools=[act],
        max_execution_time=5,
    )
    with pytest.raises(KeyError, match="model broke") as info:
        executor.invoke({"input": "q"})
    assert (
        "AgentExecutor iteration 1: the agent failed while planning the next step"
        in (info.value.__notes__[0])
    )
