"""Behaviour that ported LangChain code relies on (issue 20, "behaviour that differs today and
must not"): the config user code receives, listeners over `map()`, and a returned runnable's
async path. Expected values are what langchain-core 1.8 gives for the same code."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from leanchain.runnables import (
    ListenerRun,
    RunnableConfig,
    RunnableGenerator,
    RunnableLambda,
    RunnablePassthrough,
)
from leanchain.tools import tool

# -- the config handed to user code -----------------------------------------------------------


def _shape(config: RunnableConfig) -> tuple[Any, ...]:
    return (
        config["tags"],
        config["metadata"],
        config["configurable"],
        config["recursion_limit"],
    )


EMPTY: tuple[Any, ...] = ([], {}, {}, 25)


def test_a_function_always_gets_tags_metadata_and_configurable() -> None:
    def sync(x: int, config: RunnableConfig) -> tuple[Any, ...]:
        return _shape(config)

    async def coro(x: int, config: RunnableConfig) -> tuple[Any, ...]:
        return _shape(config)

    assert RunnableLambda(sync).invoke(1) == EMPTY
    assert asyncio.run(RunnableLambda(coro).ainvoke(1)) == EMPTY
    assert asyncio.run(RunnableLambda(sync).ainvoke(1)) == EMPTY
    assert list(RunnableLambda(sync).stream(1)) == [EMPTY]
    assert (RunnableLambda(lambda x: x) | RunnableLambda(sync)).invoke(1) == EMPTY
    given: RunnableConfig = {"tags": ["t"], "metadata": {"m": 1}, "configurable": {"k": 2}}
    assert RunnableLambda(sync).invoke(1, given) == (["t"], {"m": 1}, {"k": 2}, 25)
    assert RunnableLambda(sync).invoke(1, {"recursion_limit": 5}) == ([], {}, {}, 5)


def test_reading_a_configurable_value_fails_on_the_key_only() -> None:
    def user(x: int, config: RunnableConfig) -> str:
        return str(config["configurable"]["user_id"])

    assert RunnableLambda(user).invoke(1, {"configurable": {"user_id": "ann"}}) == "ann"
    with pytest.raises(KeyError) as caught:
        RunnableLambda(user).invoke(1)
    assert caught.value.args == ("user_id",)


def test_generators_passthrough_functions_tools_and_listeners_get_the_same() -> None:
    def gen(chunks: Iterator[int], config: RunnableConfig) -> Iterator[tuple[Any, ...]]:
        for _ in chunks:
            yield _shape(config)

    async def agen(
        chunks: AsyncIterator[int], config: RunnableConfig
    ) -> AsyncIterator[tuple[Any, ...]]:
        async for _ in chunks:
            yield _shape(config)

    assert list(RunnableGenerator(gen).stream(1)) == [EMPTY]

    async def astream() -> list[Any]:
        return [chunk async for chunk in RunnableGenerator(agen).astream(1)]

    assert asyncio.run(astream()) == [EMPTY]

    seen: list[Any] = []
    RunnablePassthrough(lambda x, config: seen.append(_shape(config))).invoke(1)

    @tool
    def look(q: str, config: RunnableConfig) -> str:
        """Look."""
        seen.append(_shape(config))
        return q

    look.invoke({"q": "x"})

    def listener(run: ListenerRun, config: RunnableConfig) -> None:
        seen.append(_shape(config))

    RunnableLambda(lambda x: x).with_listeners(on_end=listener).invoke(1)
    assert seen == [EMPTY, EMPTY, EMPTY]


# -- with_listeners(...).map() --------------------------------------------------------------


def _listened() -> tuple[RunnableLambda[int, int], list[tuple[str, Any]]]:
    events: list[tuple[str, Any]] = []
    runnable = RunnableLambda(lambda x: x + 1).with_listeners(
        on_start=lambda run: events.append(("start", run.inputs)),
        on_end=lambda run: events.append(("end", run.outputs)),
    )
    return runnable, events  # type: ignore[return-value]


ONE_RUN_EACH = [
    ("start", {"input": 1}),
    ("end", {"output": 2}),
    ("start", {"input": 2}),
    ("end", {"output": 3}),
    ("start", {"input": 3}),
    ("end", {"output": 4}),
]


def test_map_of_a_listened_runnable_reports_one_run_per_element() -> None:
    runnable, events = _listened()
    assert runnable.map().invoke([1, 2, 3]) == [2, 3, 4]
    assert events == ONE_RUN_EACH  # it used to report the first element only


def test_async_map_and_batch_report_one_run_per_element() -> None:
    runnable, events = _listened()
    assert asyncio.run(runnable.map().ainvoke([1, 2, 3])) == [2, 3, 4]
    assert sorted(events, key=repr) == sorted(ONE_RUN_EACH, key=repr)
    events.clear()
    assert runnable.batch([1, 2, 3]) == [2, 3, 4]
    assert sorted(events, key=repr) == sorted(ONE_RUN_EACH, key=repr)
    events.clear()
    assert asyncio.run(runnable.abatch([1, 2, 3])) == [2, 3, 4]
    assert sorted(events, key=repr) == sorted(ONE_RUN_EACH, key=repr)


# -- a returned runnable runs on the caller's path ------------------------------------------


def _both_paths() -> RunnableLambda[Any, str]:
    async def on_async(x: Any) -> str:
        return "async"

    return RunnableLambda(lambda x: "sync", afunc=on_async)


def test_ainvoke_of_a_sync_lambda_runs_the_returned_runnable_async() -> None:
    inner = _both_paths()
    outer: RunnableLambda[Any, Any] = RunnableLambda(lambda x: inner)
    assert outer.invoke(1) == "sync"
    assert asyncio.run(outer.ainvoke(1)) == "async"  # it ran the inner's sync path

    async def streamed() -> list[str]:
        return [chunk async for chunk in outer.astream(1)]

    assert asyncio.run(streamed()) == ["async"]
    assert list(outer.stream(1)) == ["sync"]
