"""`RunnableLambda` and `RunnableGenerator`: plain functions as runnables."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from leanchain.runnables import (
    RunnableConfig,
    RunnableGenerator,
    RunnableLambda,
    get_config,
)

SYNC_INVOKE = "Cannot invoke a coroutine function synchronously.Use `ainvoke` instead."
SYNC_STREAM = "Cannot stream a coroutine function synchronously.Use `astream` instead."


def add_one(x: int) -> int:
    return x + 1


async def aadd_one(x: int) -> int:
    return x + 1


def letters(text: str) -> Iterator[str]:
    yield from text


async def aletters(text: str) -> AsyncIterator[str]:
    for ch in text:
        yield ch


def test_name_and_repr() -> None:
    named = RunnableLambda(add_one)
    assert named.get_name() == "add_one"
    assert repr(named) == "RunnableLambda(add_one)"
    anonymous = RunnableLambda(lambda x: x)
    assert anonymous.get_name() == "RunnableLambda"
    assert repr(anonymous) == "RunnableLambda(lambda x: x)"
    assert RunnableLambda(add_one, name="plus").get_name() == "plus"


def test_function_receives_the_config_when_it_asks() -> None:
    def tagged(x: int, config: RunnableConfig) -> list[str]:
        return [*config.get("tags", []), str(x)]

    assert RunnableLambda(tagged).invoke(1, {"tags": ["t"]}) == ["t", "1"]


async def test_async_function_receives_the_config_when_it_asks() -> None:
    async def tagged(x: int, config: RunnableConfig) -> list[str]:
        return [*config.get("tags", []), str(x)]

    assert await RunnableLambda(tagged).ainvoke(1, {"tags": ["t"]}) == ["t", "1"]


def test_extra_kwargs_reach_the_function() -> None:
    def f(x: int, foo: int = 0) -> tuple[int, int]:
        return x, foo

    assert RunnableLambda(f).invoke(1, foo=2) == (1, 2)


async def test_extra_kwargs_reach_the_async_function() -> None:
    async def f(x: int, foo: int = 0) -> tuple[int, int]:
        return x, foo

    assert await RunnableLambda(f).ainvoke(1, foo=2) == (1, 2)


def test_returned_runnable_is_invoked_with_the_same_input() -> None:
    router: RunnableLambda[int, Any] = RunnableLambda(
        lambda x: RunnableLambda(add_one) if x > 0 else x
    )
    assert router.invoke(5) == 6
    assert router.invoke(-1) == -1


async def test_returned_runnable_is_awaited_with_the_same_input() -> None:
    async def route(x: int) -> Any:
        return RunnableLambda(aadd_one)

    assert await RunnableLambda(route).ainvoke(5) == 6


def test_returned_runnable_is_streamed_when_streaming() -> None:
    router: RunnableLambda[str, Any] = RunnableLambda(lambda x: RunnableLambda(letters))
    assert list(router.stream("ab")) == ["a", "b"]


def test_recursion_limit_stops_a_runnable_returning_itself() -> None:
    calls = 0
    holder: list[RunnableLambda[Any, Any]] = []

    def again(x: int) -> Any:
        nonlocal calls
        calls += 1
        return holder[0]

    holder.append(RunnableLambda(again))
    with pytest.raises(RecursionError) as error:
        holder[0].invoke(7)
    assert str(error.value) == (
        "Recursion limit reached when invoking RunnableLambda(again) with input 7."
    )
    assert calls == 26  # the default limit of 25, plus the first call

    calls = 0
    with pytest.raises(RecursionError):
        holder[0].invoke(7, {"recursion_limit": 3})
    assert calls == 4


async def test_recursion_limit_applies_to_ainvoke() -> None:
    holder: list[RunnableLambda[Any, Any]] = []

    async def again(x: int) -> Any:
        return holder[0]

    holder.append(RunnableLambda(again))
    with pytest.raises(RecursionError, match="Recursion limit reached when invoking"):
        await holder[0].ainvoke(1, {"recursion_limit": 2})


def test_generator_function_invoke_adds_chunks_and_stream_yields_them() -> None:
    gen = RunnableLambda(letters)
    assert gen.invoke("ab") == "ab"
    assert list(gen.stream("ab")) == ["a", "b"]


async def test_async_generator_function_lambda() -> None:
    gen = RunnableLambda(aletters)
    assert await gen.ainvoke("ab") == "ab"
    assert [c async for c in gen.astream("ab")] == ["a", "b"]


async def test_sync_generator_function_under_astream() -> None:
    assert [c async for c in RunnableLambda(letters).astream("ab")] == ["a", "b"]
    assert await RunnableLambda(letters).ainvoke("ab") == "ab"


def test_transform_gathers_the_whole_input_first() -> None:
    seen: list[str] = []

    def record(text: str) -> str:
        seen.append(text)
        return text

    assert list(RunnableLambda(record).transform(iter(["a", "b", "c"]))) == ["abc"]
    assert seen == ["abc"]
    assert list(RunnableLambda(record).transform(iter([]))) == []


def test_async_only_lambda_refuses_sync_calls() -> None:
    lam = RunnableLambda(aadd_one)
    with pytest.raises(TypeError) as invoke_error:
        lam.invoke(1)
    assert str(invoke_error.value) == SYNC_INVOKE
    with pytest.raises(TypeError) as stream_error:
        list(lam.stream(1))
    assert str(stream_error.value) == SYNC_STREAM
    with pytest.raises(TypeError) as gen_error:
        RunnableLambda(aletters).invoke("a")
    assert str(gen_error.value) == SYNC_INVOKE


async def test_async_function_under_ainvoke_and_astream() -> None:
    lam = RunnableLambda(aadd_one)
    assert await lam.ainvoke(1) == 2
    assert [c async for c in lam.astream(1)] == [2]
    assert await lam.abatch([1, 2]) == [2, 3]


async def test_sync_function_under_ainvoke_runs_in_a_worker_thread() -> None:
    loop_thread = threading.get_ident()
    seen: list[int] = []

    def where(x: int) -> int:
        seen.append(threading.get_ident())
        return x

    assert await RunnableLambda(where).ainvoke(1) == 1
    assert seen != [loop_thread]
    assert len(seen) == 1


async def test_sync_function_under_ainvoke_does_not_block_the_loop() -> None:
    # The function waits for the loop to tick: if it ran on the loop, nothing would tick.
    ticked = threading.Event()

    def wait_for_ticks(x: int) -> int:
        if not ticked.wait(5):
            raise AssertionError("the event loop was blocked")
        return x

    async def ticker() -> int:
        ticks = 0
        while not ticked.is_set():
            await asyncio.sleep(0.005)
            ticks += 1
            if ticks == 3:
                ticked.set()
        return ticks

    result, ticks = await asyncio.gather(RunnableLambda(wait_for_ticks).ainvoke(1), ticker())
    assert (result, ticks) == (1, 3)


async def test_sync_and_async_pair() -> None:
    lam: RunnableLambda[int, tuple[str, int]] = RunnableLambda(
        lambda x: ("sync", x), afunc=lambda x: asyncio.sleep(0, ("async", x))
    )
    assert lam.invoke(1) == ("sync", 1)
    assert await lam.ainvoke(1) == ("async", 1)


def test_coroutine_func_with_afunc_is_ambiguous() -> None:
    with pytest.raises(TypeError) as error:
        RunnableLambda(aadd_one, afunc=aadd_one)
    assert str(error.value) == (
        "Func was provided as a coroutine function, but afunc was also provided. "
        "If providing both, func should be a regular function to avoid ambiguity."
    )


def test_non_callable_is_refused() -> None:
    with pytest.raises(TypeError) as error:
        RunnableLambda(3)  # type: ignore[call-overload]
    assert str(error.value) == (
        "Expected a callable type for `func`.Instead got an unsupported type: <class 'int'>"
    )


def test_code_inside_the_function_sees_the_config() -> None:
    def peek(x: int) -> list[str]:
        return list(get_config().get("tags", []))

    assert RunnableLambda(peek).invoke(1, {"tags": ["seen"]}) == ["seen"]
    assert get_config() == {}


def test_input_schema_from_the_type_hint() -> None:
    lam = RunnableLambda(add_one)
    assert lam.InputType is int
    assert lam.OutputType is int
    assert lam.get_input_jsonschema() == {"title": "add_one_input", "type": "integer"}
    assert lam.get_output_jsonschema() == {"title": "add_one_output", "type": "integer"}


def test_input_schema_from_item_access() -> None:
    lam = RunnableLambda(lambda x: x["foo"] + x["bar"])
    assert lam.get_input_jsonschema() == {
        "properties": {"bar": {"title": "Bar"}, "foo": {"title": "Foo"}},
        "required": ["bar", "foo"],
        "title": "RunnableLambdaInput",
        "type": "object",
    }


def test_input_schema_without_information() -> None:
    assert RunnableLambda(lambda x: x).get_input_jsonschema() == {"title": "RunnableLambdaInput"}


# -- RunnableGenerator ------------------------------------------------------------------------


def suffixed(chunks: Iterator[int]) -> Iterator[str]:
    for x in chunks:
        yield str(x)
        yield "-"


async def asuffixed(chunks: AsyncIterator[int]) -> AsyncIterator[str]:
    async for x in chunks:
        yield str(x)
        yield "-"


def test_generator_invoke_adds_chunks_and_stream_yields_them() -> None:
    gen = RunnableGenerator(suffixed)
    assert gen.get_name() == "suffixed"
    assert gen.invoke(7) == "7-"
    assert list(gen.stream(7)) == ["7", "-"]
    assert gen.batch([1, 2]) == ["1-", "2-"]


async def test_async_generator() -> None:
    gen = RunnableGenerator(asuffixed)
    assert await gen.ainvoke(7) == "7-"
    assert [c async for c in gen.astream(7)] == ["7", "-"]


async def test_sync_generator_under_async_calls() -> None:
    gen = RunnableGenerator(suffixed)
    assert await gen.ainvoke(7) == "7-"
    assert [c async for c in gen.astream(7)] == ["7", "-"]


def test_generator_with_both_sync_and_async_functions() -> None:
    gen = RunnableGenerator(suffixed, asuffixed)
    assert gen.invoke(1) == "1-"
    assert asyncio.run(gen.ainvoke(2)) == "2-"


def test_generator_must_be_a_generator_function() -> None:
    with pytest.raises(TypeError) as error:
        RunnableGenerator(add_one)
    assert str(error.value) == (
        "Expected a generator function type for `transform`."
        "Instead got an unsupported type: <class 'function'>"
    )


def test_generator_sees_the_config_while_it_runs() -> None:
    def tags(chunks: Iterator[int]) -> Iterator[list[str]]:
        for _ in chunks:
            yield list(get_config().get("tags", []))

    assert list(RunnableGenerator(tags).stream(1, {"tags": ["g"]})) == [["g"]]
    assert get_config() == {}


def test_generator_receives_the_config_when_it_asks() -> None:
    def tags(chunks: Iterator[int], config: RunnableConfig) -> Iterator[list[str]]:
        for _ in chunks:
            yield list(config.get("tags", []))

    assert RunnableGenerator(tags).invoke(1, {"tags": ["g"]}) == ["g"]
