"""`Runnable.map()` (RunnableEach): the runnable run on every item of a list, like LangChain's."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from runnables_support import AsyncRecorder, Gauge, Recorder

from leanchain.runnables import Runnable, RunnableConfig, RunnableEach, RunnableLambda


def add_one(x: int) -> int:
    return x + 1


def fail_on_two(x: int) -> int:
    if x == 2:
        raise ValueError(f"bad item {x!r}")
    return x


def tags_of(x: int, config: RunnableConfig) -> str:
    return f"{x}:{config.get('tags')}:{config.get('metadata')}:{config.get('configurable')}"


def test_map_builds_a_runnable_each_named_after_the_bound() -> None:
    each = RunnableLambda(add_one).map()
    assert isinstance(each, RunnableEach)
    assert each.get_name() == "RunnableEach<add_one>"


def test_invoke_runs_every_item_in_order() -> None:
    assert RunnableLambda(add_one).map().invoke([1, 2, 3]) == [2, 3, 4]


def test_empty_list_gives_empty_list() -> None:
    assert RunnableLambda(add_one).map().invoke([]) == []


def test_map_composes_in_a_sequence() -> None:
    chain = RunnableLambda(lambda n: list(range(n))) | RunnableLambda(add_one).map()
    assert chain.invoke(3) == [1, 2, 3]


def test_map_of_map_handles_nested_lists() -> None:
    assert RunnableLambda(add_one).map().map().invoke([[1], [], [2, 3]]) == [[2], [], [3, 4]]


def test_every_item_gets_the_config() -> None:
    config: RunnableConfig = {"tags": ["t"], "metadata": {"m": 1}, "configurable": {"k": "v"}}
    assert RunnableLambda(tags_of).map().invoke([1, 2], config) == [
        "1:['t']:{'m': 1}:{'k': 'v'}",
        "2:['t']:{'m': 1}:{'k': 'v'}",
    ]


def test_callbacks_see_one_run_with_a_child_per_item() -> None:
    recorder = Recorder()
    assert RunnableLambda(add_one).map().invoke([1, 2], {"callbacks": [recorder]}) == [2, 3]
    starts = [e for e in recorder.events if e.kind == "start"]
    assert [(e.name, e.payload) for e in starts] == [
        ("RunnableEach<add_one>", [1, 2]),
        ("add_one", 1),
        ("add_one", 2),
    ]
    assert [e.parent_run_id for e in starts] == [None, starts[0].run_id, starts[0].run_id]
    ends = {e.run_id: e.payload for e in recorder.events if e.kind == "end"}
    assert ends[starts[0].run_id] == [2, 3]
    assert recorder.events[-1].kind == "end"
    assert recorder.events[-1].run_id == starts[0].run_id


def test_a_failing_item_raises_and_the_run_records_it() -> None:
    recorder = Recorder()
    each = RunnableLambda(fail_on_two).map()
    with pytest.raises(ValueError, match=r"^bad item 2$"):
        each.invoke([1, 2, 3], {"callbacks": [recorder]})
    errors = [(e.name, str(e.payload)) for e in recorder.events if e.kind == "error"]
    assert errors == [("fail_on_two", "bad item 2"), ("RunnableEach<fail_on_two>", "bad item 2")]


def test_max_concurrency_bounds_the_items() -> None:
    gauge = Gauge()

    def slow(x: int) -> int:
        with gauge:
            time.sleep(0.02)
        return x

    each = RunnableLambda(slow).map()
    assert each.invoke(list(range(6)), {"max_concurrency": 2}) == [0, 1, 2, 3, 4, 5]
    assert (gauge.calls, gauge.peak) == (6, 2)


def test_items_run_concurrently_without_a_bound() -> None:
    barrier = threading.Barrier(3, timeout=30)

    def meet(x: int) -> int:
        barrier.wait()
        return x * 10

    assert RunnableLambda(meet).map().invoke([1, 2, 3]) == [10, 20, 30]


def test_stream_yields_the_whole_list_once() -> None:
    assert list(RunnableLambda(add_one).map().stream([1, 2])) == [[2, 3]]


def test_types_and_schemas_are_lists_of_the_bound_ones() -> None:
    each = RunnableLambda(add_one).map()
    assert each.InputType == list[int]
    assert each.OutputType == list[int]
    assert each.get_input_jsonschema() == {
        "items": {"type": "integer"},
        "title": "RunnableEach<add_one>Input",
        "type": "array",
    }


async def test_ainvoke_uses_the_async_function() -> None:
    seen: list[int] = []

    async def aadd_one(x: int) -> int:
        seen.append(x)
        return x + 1

    each: Runnable[list[int], list[int]] = RunnableLambda(add_one, afunc=aadd_one).map()
    assert await each.ainvoke([1, 2, 3]) == [2, 3, 4]
    assert sorted(seen) == [1, 2, 3]


async def test_ainvoke_raises_the_failing_item() -> None:
    with pytest.raises(ValueError, match=r"^bad item 2$"):
        await RunnableLambda(fail_on_two).map().ainvoke([1, 2, 3])


async def test_ainvoke_passes_config_and_async_callbacks() -> None:
    recorder = AsyncRecorder()
    config: RunnableConfig = {"tags": ["t"], "callbacks": [recorder]}
    out = await RunnableLambda(tags_of).map().ainvoke([1], config)
    assert out == ["1:['t']:{}:{}"]
    assert recorder.events == [
        ("start", "RunnableEach<tags_of>"),
        ("start", "tags_of"),
        ("end", "1:['t']:{}:{}"),
        ("end", ["1:['t']:{}:{}"]),
    ]


async def test_astream_yields_the_whole_list_once() -> None:
    chunks: list[Any] = []
    stream: AsyncIterator[list[int]] = RunnableLambda(add_one).map().astream([1, 2])
    async for chunk in stream:
        chunks.append(chunk)
    assert chunks == [[2, 3]]
