"""Tool runs as callback events: start (with input text and inputs), end, error, nesting."""

from __future__ import annotations

from typing import Any

import pytest
from tools_support import AsyncToolRecorder, ToolRecorder

from leanchain.errors import ToolException
from leanchain.messages import ToolMessage
from leanchain.runnables import RunnableConfig, RunnableLambda
from leanchain.tools import StructuredTool, Tool, ToolInputValidationError, tool


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _increment(x: int) -> int:
    return x + 1


def _pair(n: int) -> dict[str, int]:
    return {"a": n, "b": n}


def test_start_and_end_for_dict_input() -> None:
    recorder = ToolRecorder()
    assert add.invoke({"a": 1, "b": 2}, {"callbacks": [recorder], "tags": ["t"]}) == 3
    start, end = recorder.events
    assert (start.kind, start.payload, end.kind, end.payload) == (
        "tool_start",
        "{'a': 1, 'b': 2}",
        "tool_end",
        3,
    )
    assert start.extra == {
        "serialized": {"name": "add", "description": "Add two numbers."},
        "tags": ["t"],
        "metadata": {},
        "inputs": {"a": 1, "b": 2},
        "tool_call_id": None,
        "name": "add",
    }
    assert start.parent_run_id is None
    assert end.run_id == start.run_id


def test_string_input_has_no_inputs_dict() -> None:
    recorder = ToolRecorder()
    Tool("calc", lambda s: s, "Echo").invoke("x", {"callbacks": [recorder]})
    assert recorder.events[0].payload == "x"
    assert recorder.events[0].extra["inputs"] is None


def test_tool_call_input_reports_the_call_id_and_ends_with_the_message() -> None:
    recorder = ToolRecorder()
    call = {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_7", "type": "tool_call"}
    add.invoke(call, {"callbacks": [recorder]})
    start, end = recorder.events
    assert start.extra["tool_call_id"] == "call_7"
    assert start.extra["inputs"] == {"a": 1, "b": 2}
    assert end.payload == ToolMessage("3", name="add", tool_call_id="call_7")


def test_run_name_and_metadata() -> None:
    recorder = ToolRecorder()
    config: RunnableConfig = {"callbacks": [recorder], "run_name": "adder", "metadata": {"k": 1}}
    add.invoke({"a": 1, "b": 1}, config)
    assert recorder.events[0].extra["name"] == "adder"
    assert recorder.events[0].extra["metadata"] == {"k": 1}


def test_unhandled_error_is_reported_then_raised() -> None:
    recorder = ToolRecorder()

    def boom(x: int) -> int:
        raise RuntimeError("boom")

    t = StructuredTool.from_function(boom, description="Boom.")
    with pytest.raises(RuntimeError):
        t.invoke({"x": 1}, {"callbacks": [recorder]})
    assert recorder.kinds() == ["tool_start", "tool_error"]
    error = recorder.events[1].payload
    assert isinstance(error, RuntimeError)
    assert str(error) == "boom"


def test_validation_error_is_reported() -> None:
    recorder = ToolRecorder()
    with pytest.raises(ToolInputValidationError):
        add.invoke({"a": "x", "b": 1}, {"callbacks": [recorder]})
    assert recorder.kinds() == ["tool_start", "tool_error"]
    assert isinstance(recorder.events[1].payload, ToolInputValidationError)


def test_handled_error_ends_normally_with_the_observation() -> None:
    recorder = ToolRecorder()

    def fail(x: int) -> int:
        raise ToolException("nope")

    t = StructuredTool.from_function(fail, description="Fail.", handle_tool_error=True)
    assert t.invoke({"x": 1}, {"callbacks": [recorder]}) == "nope"
    assert recorder.kinds() == ["tool_start", "tool_end"]
    assert recorder.events[1].payload == "nope"


def test_runnables_inside_the_tool_are_child_runs() -> None:
    recorder = ToolRecorder()
    inner: RunnableLambda[int, int] = RunnableLambda(_increment, name="inner")

    @tool
    def outer(x: int) -> int:
        """Calls inner."""
        return inner.invoke(x)

    assert outer.invoke({"x": 1}, {"callbacks": [recorder]}) == 2
    assert recorder.kinds() == ["tool_start", "chain_start", "chain_end", "tool_end"]
    tool_start, chain_start = recorder.events[0], recorder.events[1]
    assert chain_start.parent_run_id == tool_start.run_id
    assert chain_start.extra == {"name": "inner"}


def test_tool_in_a_sequence_is_a_child_of_the_sequence() -> None:
    recorder = ToolRecorder()
    chain = RunnableLambda[int, dict[str, int]](_pair) | add
    chain.invoke(2, {"callbacks": [recorder]})
    sequence_start = recorder.events[0]
    tool_start = next(e for e in recorder.events if e.kind == "tool_start")
    assert tool_start.parent_run_id == sequence_start.run_id


def test_tool_level_callbacks() -> None:
    recorder = ToolRecorder()
    t = StructuredTool.from_function(lambda: 1, name="one", description="One.")
    t.callbacks = [recorder]
    assert t.invoke({}) == 1
    assert recorder.kinds() == ["tool_start", "tool_end"]


def test_run_method_with_callbacks_and_tool_call_id() -> None:
    recorder = ToolRecorder()
    result = add.run({"a": 2, "b": 3}, callbacks=[recorder], tags=["r"], tool_call_id="c1")
    assert result == ToolMessage("5", name="add", tool_call_id="c1")
    assert recorder.events[0].extra["tags"] == ["r"]
    assert recorder.events[0].extra["tool_call_id"] == "c1"
    assert add.run({"a": 2, "b": 3}) == 5


async def test_async_events() -> None:
    recorder = AsyncToolRecorder()

    @tool
    async def aadd(a: int, b: int) -> int:
        """Add async."""
        return a + b

    assert await aadd.ainvoke({"a": 1, "b": 2}, {"callbacks": [recorder]}) == 3
    assert recorder.events == [("tool_start", "{'a': 1, 'b': 2}"), ("tool_end", 3)]


async def test_async_error_event() -> None:
    recorder = AsyncToolRecorder()

    async def fail(x: int) -> int:
        raise ValueError("bad")

    t = StructuredTool.from_function(coroutine=fail, description="Fail.")
    with pytest.raises(ValueError, match=r"^bad$"):
        await t.ainvoke({"x": 1}, {"callbacks": [recorder]})
    assert [kind for kind, _ in recorder.events] == ["tool_start", "tool_error"]


async def test_arun() -> None:
    recorder = ToolRecorder()
    assert await add.arun({"a": 1, "b": 1}, callbacks=[recorder]) == 2
    assert recorder.kinds() == ["tool_start", "tool_end"]


def test_no_handlers_means_no_events_and_no_run_manager() -> None:
    seen: list[Any] = []

    def spy(run_manager: Any) -> int:
        seen.append(run_manager)
        return 1

    StructuredTool.from_function(spy, description="Spy.").invoke({}, {"callbacks": []})
    assert seen == [None]
