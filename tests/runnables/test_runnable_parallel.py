"""`RunnableParallel`: one input to every branch, concurrently, outputs by key."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from typing import Any, cast

import pytest

from leanchain.runnables import AddableDict, RunnableGenerator, RunnableLambda, RunnableParallel


def add_one(x: int) -> int:
    return x + 1


def double(x: int) -> int:
    return x * 2


def test_invoke_returns_branch_outputs_in_key_order() -> None:
    parallel = RunnableParallel(b=add_one, a=double)
    result = parallel.invoke(3)
    assert result == {"b": 4, "a": 6}
    assert list(result) == ["b", "a"]


def test_constructor_merges_mapping_and_keywords() -> None:
    parallel = RunnableParallel({"a": add_one}, b=double)
    assert list(parallel.steps__) == ["a", "b"]
    assert all(isinstance(step, RunnableLambda) for step in parallel.steps__.values())
    assert parallel.invoke(1) == {"a": 2, "b": 2}


def test_name_lists_the_keys() -> None:
    assert RunnableParallel(a=add_one, b=double).get_name() == "RunnableParallel<a,b>"


def test_branches_run_at_the_same_time() -> None:
    # Each branch waits for the other at the barrier: only concurrent branches get through.
    barrier = threading.Barrier(2, timeout=5)

    def meet(x: int) -> int:
        barrier.wait()
        return x

    assert RunnableParallel(a=meet, b=meet).invoke(1) == {"a": 1, "b": 1}


async def test_async_branches_run_at_the_same_time() -> None:
    arrived = 0
    both = asyncio.Event()

    async def meet(x: int) -> int:
        nonlocal arrived
        arrived += 1
        if arrived == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 5)
        return x

    assert await RunnableParallel(a=meet, b=meet).ainvoke(1) == {"a": 1, "b": 1}


def test_first_branch_error_propagates() -> None:
    def fail(x: int) -> int:
        raise KeyError("nope")

    with pytest.raises(KeyError, match="nope"):
        RunnableParallel(a=add_one, b=fail).invoke(1)


async def test_first_branch_error_propagates_async() -> None:
    async def fail(x: int) -> int:
        raise KeyError("nope")

    with pytest.raises(KeyError, match="nope"):
        await RunnableParallel(a=add_one, b=fail).ainvoke(1)


def test_coroutine_branch_cannot_run_synchronously() -> None:
    async def aadd(x: int) -> int:
        return x + 1

    with pytest.raises(TypeError) as error:
        RunnableParallel(a=aadd, b=add_one).invoke(1)
    assert str(error.value) == (
        "Cannot invoke a coroutine function synchronously.Use `ainvoke` instead."
    )


async def test_ainvoke_mixes_sync_and_async_branches() -> None:
    async def aadd(x: int) -> int:
        return x + 1

    assert await RunnableParallel(a=aadd, b=double).ainvoke(5) == {"a": 6, "b": 10}


def test_stream_yields_addable_dicts_as_branches_produce() -> None:
    a_done = threading.Event()

    def shout(chunks: Iterator[str]) -> Iterator[str]:
        for chunk in chunks:
            yield chunk.upper()
        a_done.set()

    def length(text: str) -> int:
        # Waits for the other branch, so the order of the two chunks is fixed.
        assert a_done.wait(5)
        return len(text)

    chunks = list(RunnableParallel(a=shout, b=length).stream("ab"))
    assert chunks == [{"a": "AB"}, {"b": 2}]
    assert all(type(chunk) is AddableDict for chunk in chunks)


def test_stream_of_one_branch_passes_every_chunk() -> None:
    def letters(chunks: Iterator[str]) -> Iterator[str]:
        for text in chunks:
            yield from text

    assert list(RunnableParallel(x=letters).stream("abc")) == [{"x": "a"}, {"x": "b"}, {"x": "c"}]


def test_streamed_chunks_add_up_to_the_invoke_result() -> None:
    def letters(chunks: Iterator[str]) -> Iterator[str]:
        for text in chunks:
            yield from text

    parallel = RunnableParallel(x=letters, n=len)
    total = AddableDict()
    for chunk in parallel.stream("abc"):
        total = total + chunk
    assert total == {"x": "abc", "n": 3} == parallel.invoke("abc")


def test_stream_error_in_a_branch_propagates() -> None:
    def fail(text: str) -> str:
        raise RuntimeError("branch failed")

    with pytest.raises(RuntimeError, match="branch failed"):
        list(RunnableParallel(a=fail, b=len).stream("ab"))


class Endless:
    """Stream branches that produce for ever, counting what they produced and whether their
    generator was closed."""

    def __init__(self) -> None:
        self.produced = {"a": 0, "b": 0}
        self.closed: list[str] = []
        self.lock = threading.Lock()

    def branch(self, key: str) -> RunnableGenerator[int, int]:
        def produce(chunks: Iterator[int]) -> Iterator[int]:
            for _ in chunks:
                pass
            try:
                while True:
                    with self.lock:
                        self.produced[key] += 1
                    yield self.produced[key]
            finally:
                with self.lock:
                    self.closed.append(key)

        async def aproduce(chunks: AsyncIterator[int]) -> AsyncIterator[int]:
            async for _ in chunks:
                pass
            try:
                while True:
                    self.produced[key] += 1
                    yield self.produced[key]
                    await asyncio.sleep(0)
            finally:
                self.closed.append(key)

        return RunnableGenerator(produce, aproduce)

    def parallel(self) -> RunnableParallel[int]:
        return RunnableParallel(a=self.branch("a"), b=self.branch("b"))


def branch_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "leanchain-branch"]


def test_closing_a_stream_stops_every_branch_thread() -> None:
    endless = Endless()
    stream = cast("Generator[dict[str, Any], None, None]", endless.parallel().stream(0))
    for i, _ in enumerate(stream):
        if i == 10:
            break
    stream.close()
    assert sorted(endless.closed) == ["a", "b"]
    assert branch_threads() == []
    produced = dict(endless.produced)
    time.sleep(0.02)
    assert endless.produced == produced


def test_a_failing_branch_stops_the_other_branches_of_a_stream() -> None:
    endless = Endless()

    def fail(chunks: Iterator[int]) -> Iterator[int]:
        for _ in chunks:
            pass
        while endless.produced["a"] < 5:
            time.sleep(0.001)
        raise RuntimeError("branch failed")
        yield 0  # pragma: no cover - makes this a generator

    parallel = RunnableParallel(a=endless.branch("a"), b=RunnableGenerator(fail))
    with pytest.raises(RuntimeError, match=r"^branch failed$"):
        list(parallel.stream(0))
    assert endless.closed == ["a"]
    assert branch_threads() == []


async def test_closing_an_async_stream_stops_every_branch() -> None:
    endless = Endless()
    stream = cast("AsyncGenerator[dict[str, Any], None]", endless.parallel().astream(0))
    i = 0
    async for _ in stream:
        i += 1
        if i == 10:
            break
    await stream.aclose()
    assert sorted(endless.closed) == ["a", "b"]
    produced = dict(endless.produced)
    await asyncio.sleep(0.02)
    assert endless.produced == produced


async def test_astream_yields_addable_dicts() -> None:
    a_done = asyncio.Event()

    async def shout(chunks: AsyncIterator[str]) -> AsyncIterator[str]:
        async for chunk in chunks:
            yield chunk.upper()
        a_done.set()

    async def length(text: str) -> int:
        await asyncio.wait_for(a_done.wait(), 5)
        return len(text)

    chunks = [c async for c in RunnableParallel(a=shout, b=length).astream("ab")]
    assert chunks == [{"a": "AB"}, {"b": 2}]
    assert all(type(chunk) is AddableDict for chunk in chunks)


def test_output_schema_has_a_field_per_branch() -> None:
    def to_text(x: int) -> str:
        return str(x)

    schema = RunnableParallel(a=add_one, b=to_text).get_output_jsonschema()
    assert schema["title"] == "RunnableParallel<a,b>Output"
    assert schema["properties"]["a"]["type"] == "integer"
    assert schema["properties"]["b"]["type"] == "string"
    assert schema["required"] == ["a", "b"]


def test_parallel_in_a_sequence_receives_the_previous_output() -> None:
    seq = RunnableLambda(add_one) | {"x": double, "y": add_one}
    assert seq.invoke(1) == {"x": 4, "y": 3}
    assert seq.batch([1, 2]) == [{"x": 4, "y": 3}, {"x": 6, "y": 4}]
