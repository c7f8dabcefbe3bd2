"""The defaults every `Runnable` gets from implementing `invoke` alone."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from leanchain.runnables import Runnable, RunnableConfig, RunnableLambda, get_config


class Shout(Runnable[str, str]):
    """Upper-cases its input, recording the calls and the thread they ran on."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.threads: list[int] = []

    def invoke(self, input: str, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        self.calls.append((input, kwargs))
        self.threads.append(threading.get_ident())
        return input.upper()


def test_stream_yields_the_whole_output_once() -> None:
    shout = Shout()
    assert list(shout.stream("ab", None, k=1)) == ["AB"]
    assert shout.calls == [("ab", {"k": 1})]


def test_transform_adds_the_input_chunks_first() -> None:
    shout = Shout()
    assert list(shout.transform(iter(["a", "b", "c"]))) == ["ABC"]
    assert shout.calls == [("abc", {})]
    assert list(shout.transform(iter([]))) == []


def test_transform_keeps_the_last_chunk_when_chunks_cannot_be_added() -> None:
    class Echo(Runnable[Any, Any]):
        def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
            return input

    assert list(Echo().transform(iter([1, "two", 3]))) == [3]
    assert list(Echo().transform(iter(["a", "b", 3]))) == [3]


async def test_ainvoke_runs_invoke_in_a_worker_thread() -> None:
    shout = Shout()
    assert await shout.ainvoke("x", None, k=2) == "X"
    assert shout.calls == [("x", {"k": 2})]
    assert shout.threads != [threading.get_ident()]


async def test_ainvoke_passes_the_config_into_the_worker_thread() -> None:
    class Peek(Runnable[int, list[str]]):
        def invoke(
            self, input: int, config: RunnableConfig | None = None, **kwargs: Any
        ) -> list[str]:
            return list((config or {}).get("tags", []))

    assert await Peek().ainvoke(1, {"tags": ["a"]}) == ["a"]


async def test_ainvoke_turns_stop_iteration_into_runtime_error() -> None:
    class Exhausted(Runnable[int, int]):
        def invoke(self, input: int, config: RunnableConfig | None = None, **kwargs: Any) -> int:
            raise StopIteration

    with pytest.raises(RuntimeError, match="raised StopIteration"):
        await Exhausted().ainvoke(1)


async def test_astream_and_atransform_defaults() -> None:
    shout = Shout()
    assert [c async for c in shout.astream("ab")] == ["AB"]

    async def chunks() -> AsyncIterator[str]:
        yield "a"
        yield "b"

    assert [c async for c in shout.atransform(chunks())] == ["AB"]


def test_default_name_is_the_class_name() -> None:
    assert Shout().get_name() == "Shout"
    assert Shout().get_name("Input") == "ShoutInput"


def test_context_config_is_visible_to_invoke_without_an_explicit_config() -> None:
    class Peek(Runnable[int, list[str]]):
        def invoke(
            self, input: int, config: RunnableConfig | None = None, **kwargs: Any
        ) -> list[str]:
            return list(get_config().get("tags", []))

    assert (RunnableLambda(lambda x: x) | Peek()).invoke(1, {"tags": ["seq"]}) == ["seq"]
