"""`RunnablePassthrough`, `.assign` (`RunnableAssign`) and `.pick` (`RunnablePick`)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from leanchain.callbacks import BaseCallbackHandler
from leanchain.runnables import (
    AddableDict,
    RunnableAssign,
    RunnableConfig,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
    RunnablePick,
)

NOT_DICT = "The input to RunnablePassthrough.assign() must be a dict."


def letters(text: str) -> Iterator[str]:
    yield from text


def test_passthrough_returns_its_input() -> None:
    value = {"a": 1}
    assert RunnablePassthrough().invoke(value) is value
    assert RunnablePassthrough().batch([1, 2]) == [1, 2]
    assert list(RunnablePassthrough().stream("x")) == ["x"]


async def test_passthrough_async() -> None:
    assert await RunnablePassthrough().ainvoke(3) == 3
    assert [c async for c in RunnablePassthrough().astream(3)] == [3]


def test_side_effect_func_is_called_and_its_result_ignored() -> None:
    seen: list[int] = []

    def record(x: int) -> str:
        seen.append(x)
        return "ignored"

    assert RunnablePassthrough(record).invoke(5) == 5
    assert seen == [5]


def test_side_effect_func_may_take_the_config() -> None:
    seen: list[list[str]] = []

    def record(x: int, config: RunnableConfig) -> None:
        seen.append(list(config.get("tags", [])))

    RunnablePassthrough(record).invoke(1, {"tags": ["x"]})
    assert seen == [["x"]]


async def test_coroutine_func_becomes_afunc() -> None:
    seen: list[int] = []

    async def record(x: int) -> None:
        seen.append(x)

    passthrough = RunnablePassthrough(record)
    assert passthrough.func is None
    assert passthrough.afunc is record
    assert await passthrough.ainvoke(4) == 4
    assert seen == [4]


async def test_sync_func_runs_under_ainvoke() -> None:
    seen: list[int] = []
    assert await RunnablePassthrough(seen.append).ainvoke(4) == 4
    assert seen == [4]


def test_streaming_passes_chunks_through_and_calls_func_once_at_the_end() -> None:
    log: list[str] = []
    seq = RunnableLambda(letters) | RunnablePassthrough(lambda total: log.append(f"func {total}"))
    for chunk in seq.stream("ab"):
        log.append(f"got {chunk}")
    assert log == ["got a", "got b", "func ab"]


async def test_async_streaming_calls_func_once_at_the_end() -> None:
    log: list[str] = []
    seq = RunnableLambda(letters) | RunnablePassthrough(lambda total: log.append(f"func {total}"))
    async for chunk in seq.astream("ab"):
        log.append(f"got {chunk}")
    assert log == ["got a", "got b", "func ab"]


# -- assign -----------------------------------------------------------------------------------


def test_assign_adds_computed_keys() -> None:
    assign = RunnablePassthrough.assign(b=lambda d: d["a"] * 2, c=lambda d: d["a"] + 1)
    assert isinstance(assign, RunnableAssign)
    assert isinstance(assign.mapper, RunnableParallel)
    assert assign.invoke({"a": 2}) == {"a": 2, "b": 4, "c": 3}
    assert assign.get_name() == "RunnableAssign<b,c>"


def test_assign_overwrites_existing_keys_and_leaves_the_input_alone() -> None:
    source = {"a": 1, "b": 0}
    assert RunnablePassthrough.assign(b=lambda d: 9).invoke(source) == {"a": 1, "b": 9}
    assert source == {"a": 1, "b": 0}


async def test_assign_async() -> None:
    async def doubled(d: dict[str, int]) -> int:
        return d["a"] * 2

    assign = RunnablePassthrough.assign(b=doubled)
    assert await assign.ainvoke({"a": 2}) == {"a": 2, "b": 4}
    assert await assign.abatch([{"a": 1}, {"a": 3}]) == [{"a": 1, "b": 2}, {"a": 3, "b": 6}]


async def test_async_assign_of_one_key_awaits_it_in_the_callers_task() -> None:
    tasks: list[asyncio.Task[Any] | None] = []

    async def where(d: dict[str, int]) -> int:
        tasks.append(asyncio.current_task())
        return d["a"] + 1

    assert await RunnablePassthrough.assign(b=where).ainvoke({"a": 1}) == {"a": 1, "b": 2}
    assert tasks == [asyncio.current_task()]
    # Two keys run as concurrent tasks of their own.
    both = RunnablePassthrough.assign(b=where, c=where)
    assert await both.ainvoke({"a": 1}) == {"a": 1, "b": 2, "c": 2}
    assert len(tasks) == 3
    assert asyncio.current_task() not in tasks[1:]


async def test_async_assign_of_one_key_under_callbacks_reports_the_mapper_run() -> None:
    names: list[str] = []

    class Names(BaseCallbackHandler):
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            names.append(kwargs["name"])

    assign = RunnablePassthrough.assign(b=RunnableLambda(lambda d: 2, name="two"))
    result = await assign.ainvoke({"a": 1}, {"callbacks": [Names()]})
    assert result == {"a": 1, "b": 2}
    assert names == ["RunnableAssign<b>", "RunnableParallel<b>", "two"]


@pytest.mark.parametrize("keys", [1, 2])
def test_assign_refuses_non_dict_input(keys: int) -> None:
    assign = RunnablePassthrough.assign(**{f"k{i}": (lambda d: 1) for i in range(keys)})
    with pytest.raises(ValueError) as error:
        assign.invoke(3)  # type: ignore[arg-type]
    assert str(error.value) == NOT_DICT
    with pytest.raises(ValueError) as stream_error:
        list(assign.stream(3))  # type: ignore[arg-type]
    assert str(stream_error.value) == NOT_DICT


async def test_assign_refuses_non_dict_input_async() -> None:
    with pytest.raises(ValueError) as error:
        await RunnablePassthrough.assign(b=lambda d: 1).ainvoke(3)  # type: ignore[arg-type]
    assert str(error.value) == NOT_DICT


def test_assign_streams_passed_keys_first_then_computed_ones() -> None:
    chunks = list(RunnablePassthrough.assign(b=lambda d: d["a"] * 2).stream({"a": 2}))
    assert chunks == [{"a": 2}, {"b": 4}]
    assert all(type(chunk) is AddableDict for chunk in chunks)


def test_assign_stream_leaves_out_keys_it_will_overwrite() -> None:
    chunks = list(RunnablePassthrough.assign(b=lambda d: 5).stream({"a": 1, "b": 0}))
    assert chunks == [{"a": 1}, {"b": 5}]


async def test_assign_astream() -> None:
    assign = RunnablePassthrough.assign(b=lambda d: d["a"] * 2)
    assert [c async for c in assign.astream({"a": 2})] == [{"a": 2}, {"b": 4}]


def test_runnable_assign_method_pipes_into_an_assign() -> None:
    seq = RunnableLambda(lambda x: {"x": x}).assign(y=lambda d: d["x"] + 1)
    assert seq.invoke(1) == {"x": 1, "y": 2}


def test_assign_accepts_a_plain_mapping() -> None:
    assert RunnableAssign({"b": lambda d: 1}).invoke({"a": 0}) == {"a": 0, "b": 1}


# -- pick -------------------------------------------------------------------------------------


def test_pick_one_key_returns_its_value_or_none() -> None:
    assert RunnablePick("a").invoke({"a": 1, "b": 2}) == 1
    assert RunnablePick("z").invoke({"a": 1}) is None
    assert RunnablePick("a").get_name() == "RunnablePick<a>"


def test_pick_several_keys_returns_the_present_ones() -> None:
    picked = RunnablePick(["a", "c"]).invoke({"a": 1, "b": 2, "c": 3})
    assert picked == {"a": 1, "c": 3}
    assert type(picked) is AddableDict
    assert RunnablePick(["a", "z"]).invoke({"a": 1}) == {"a": 1}
    assert RunnablePick(["y", "z"]).invoke({"a": 1}) is None
    assert RunnablePick(["a", "b"]).get_name() == "RunnablePick<a,b>"


async def test_pick_async() -> None:
    assert await RunnablePick("a").ainvoke({"a": 1}) == 1


def test_pick_refuses_non_dict_input() -> None:
    with pytest.raises(ValueError) as error:
        RunnablePick("a").invoke(1)  # type: ignore[arg-type]
    assert str(error.value) == NOT_DICT


def test_pick_streaming_skips_chunks_without_the_keys() -> None:
    def chunks(x: Any) -> Iterator[AddableDict]:
        yield AddableDict(a=1)
        yield AddableDict(b=2)
        yield AddableDict(a=3)

    seq = RunnableLambda(chunks) | RunnablePick("a")
    assert list(seq.stream(None)) == [1, 3]


def test_runnable_pick_method() -> None:
    seq = RunnableLambda(lambda x: {"a": x, "b": -x}).pick(["b"])
    assert seq.invoke(2) == {"b": -2}
    assert RunnableLambda(lambda x: {"a": x}).pick("a").invoke(2) == 2
