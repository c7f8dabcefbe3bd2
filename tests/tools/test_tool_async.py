"""Async tools: real coroutines are awaited, sync tools run in a worker thread."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from leanchain.errors import ToolException
from leanchain.messages import ToolMessage
from leanchain.tools import BaseTool, StructuredTool, ToolInputValidationError, tool


@tool
async def aadd(a: int, b: int) -> int:
    """Add, asynchronously."""
    await asyncio.sleep(0)
    return a + b


async def test_coroutine_is_awaited_with_validated_arguments() -> None:
    assert await aadd.ainvoke({"a": "1", "b": 2}) == 3


async def test_tool_call_returns_a_tool_message() -> None:
    call = {"name": "aadd", "args": {"a": 1, "b": 2}, "id": "x1", "type": "tool_call"}
    assert await aadd.ainvoke(call) == ToolMessage("3", name="aadd", tool_call_id="x1")


async def test_validation_errors_and_handling() -> None:
    with pytest.raises(ToolInputValidationError) as info:
        await aadd.ainvoke({"a": 1})
    assert str(info.value) == "Tool 'aadd' got invalid arguments: 'b': Field required"


async def test_handled_tool_exception() -> None:
    async def fail(x: int) -> int:
        raise ToolException("later")

    t = StructuredTool.from_function(
        coroutine=fail, description="Fails.", handle_tool_error=lambda e: f"handled {e}"
    )
    call = {"name": "fail", "args": {"x": 1}, "id": "f1", "type": "tool_call"}
    assert await t.ainvoke(call) == ToolMessage(
        "handled later", name="fail", tool_call_id="f1", status="error"
    )


async def test_sync_tool_runs_off_the_event_loop_thread() -> None:
    threads: list[int] = []

    @tool
    def where(x: int) -> int:
        """Record the thread."""
        threads.append(threading.get_ident())
        return x

    assert await where.ainvoke({"x": 5}) == 5
    assert threads[0] != threading.get_ident()


async def test_both_implementations_pick_the_right_one() -> None:
    def sync(x: int) -> str:
        return "sync"

    async def asynchronous(x: int) -> str:
        return "async"

    t = StructuredTool.from_function(sync, asynchronous, description="Both.")
    assert t.invoke({"x": 1}) == "sync"
    assert await t.ainvoke({"x": 1}) == "async"


async def test_concurrent_calls_overlap() -> None:
    started = asyncio.Event()
    release = asyncio.Event()

    async def wait(n: int) -> int:
        if n == 0:
            started.set()
            await release.wait()
        else:
            await started.wait()
            release.set()
        return n

    t = StructuredTool.from_function(coroutine=wait, description="Wait.")
    results = await asyncio.wait_for(
        asyncio.gather(t.ainvoke({"n": 0}), t.ainvoke({"n": 1})), timeout=5
    )
    assert list(results) == [0, 1]


async def test_abatch() -> None:
    assert await aadd.abatch([{"a": 1, "b": 1}, {"a": 2, "b": 2}]) == [2, 4]


class _AsyncOnly(BaseTool):
    name: str = "async_only"
    description: str = "Only async."

    async def _arun(self, query: str, config: Any = None) -> str:
        return f"{query}:{config.get('tags') if config else None}"


async def test_subclass_with_only_arun() -> None:
    t = _AsyncOnly()
    assert t.args == {"query": {"title": "Query", "type": "string"}}
    assert await t.ainvoke({"query": "q"}, {"tags": ["a"]}) == "q:['a']"
    with pytest.raises(NotImplementedError) as info:
        t.invoke({"query": "q"})
    assert str(info.value) == "BaseTool does not support sync invocation."


class _SyncSubclass(BaseTool):
    name: str = "sync_sub"
    description: str = "Sync."

    def _run(self, query: str) -> str:
        return query.upper()


async def test_subclass_run_under_ainvoke() -> None:
    assert await _SyncSubclass().ainvoke("q") == "Q"
