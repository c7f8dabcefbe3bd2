"""`RunnableSequence`: invoke, batch and streaming through every step's `transform`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from leanchain.runnables import (
    RunnableGenerator,
    RunnableLambda,
    RunnablePassthrough,
    RunnableSequence,
)


def add_one(x: int) -> int:
    return x + 1


def boom(x: int) -> int:
    if x == 2:
        raise ValueError("boom2")
    return x


def upper(chunks: Iterator[str]) -> Iterator[str]:
    for chunk in chunks:
        yield chunk.upper()


async def aupper(chunks: AsyncIterator[str]) -> AsyncIterator[str]:
    async for chunk in chunks:
        yield chunk.upper()


def letters(text: str) -> Iterator[str]:
    yield from text


def test_steps_run_in_order() -> None:
    calls: list[str] = []

    def step(name: str) -> RunnableLambda[Any, Any]:
        def run(x: list[str]) -> list[str]:
            calls.append(name)
            return [*x, name]

        return RunnableLambda(run)

    seq = step("a") | step("b") | step("c")
    assert seq.invoke([]) == ["a", "b", "c"]
    assert calls == ["a", "b", "c"]


async def test_ainvoke_runs_steps_in_order() -> None:
    async def aadd(x: int) -> int:
        return x + 10

    seq = RunnableLambda(add_one) | aadd | (lambda x: x * 2)
    assert await seq.ainvoke(1) == 24


def test_call_time_kwargs_go_to_the_first_step_only() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    def first(x: int, **kwargs: Any) -> int:
        seen.append(("first", kwargs))
        return x

    def second(x: int, **kwargs: Any) -> int:
        seen.append(("second", kwargs))
        return x

    seq = RunnableLambda(first) | RunnableLambda(second)
    assert seq.invoke(1, None, foo=2) == 1
    assert seen == [("first", {"foo": 2}), ("second", {})]


async def test_call_time_kwargs_go_to_the_first_step_only_async() -> None:
    seen: list[dict[str, Any]] = []

    async def first(x: int, **kwargs: Any) -> int:
        seen.append(kwargs)
        return x

    async def second(x: int, **kwargs: Any) -> int:
        seen.append(kwargs)
        return x

    await (RunnableLambda(first) | RunnableLambda(second)).ainvoke(1, None, foo=2)
    assert seen == [{"foo": 2}, {}]


def test_step_error_propagates_and_stops_the_sequence() -> None:
    after: list[int] = []
    seq = RunnableLambda(boom) | RunnableLambda(after.append)
    with pytest.raises(ValueError, match="boom2"):
        seq.invoke(2)
    assert after == []


def test_batch_and_abatch_keep_order() -> None:
    seq = RunnableLambda(add_one) | (lambda x: x * 10)
    assert seq.batch([1, 2, 3]) == [20, 30, 40]


async def test_abatch_keeps_order() -> None:
    seq = RunnableLambda(add_one) | (lambda x: x * 10)
    assert await seq.abatch([1, 2, 3]) == [20, 30, 40]


def test_batch_return_exceptions_puts_errors_in_place() -> None:
    seq = RunnableLambda(boom) | add_one
    results = seq.batch([1, 2, 3], return_exceptions=True)
    assert results[0] == 2
    assert isinstance(results[1], ValueError)
    assert str(results[1]) == "boom2"
    assert results[2] == 4
    with pytest.raises(ValueError, match="boom2"):
        seq.batch([1, 2, 3])


async def test_abatch_return_exceptions_puts_errors_in_place() -> None:
    seq = RunnableLambda(boom) | add_one
    results = await seq.abatch([1, 2, 3], return_exceptions=True)
    assert [r if not isinstance(r, Exception) else repr(r) for r in results] == [
        2,
        "ValueError('boom2')",
        4,
    ]
    with pytest.raises(ValueError, match="boom2"):
        await seq.abatch([1, 2, 3])


def test_blocking_step_then_generator_streams_one_chunk() -> None:
    seq = RunnableLambda(lambda x: x) | RunnableGenerator(upper)
    assert list(seq.stream("abc")) == ["ABC"]


def test_generator_lambda_then_plain_lambda_concatenates() -> None:
    seq = RunnableLambda(letters) | (lambda s: s + "!")
    assert list(seq.stream("abc")) == ["abc!"]


def test_streaming_steps_pass_every_chunk_on() -> None:
    seq = RunnableLambda(letters) | upper | RunnablePassthrough()
    assert list(seq.stream("abc")) == ["A", "B", "C"]
    assert seq.invoke("abc") == "ABC"


async def test_async_streaming_steps_pass_every_chunk_on() -> None:
    seq = RunnableLambda(letters) | aupper | RunnablePassthrough()
    assert [c async for c in seq.astream("abc")] == ["A", "B", "C"]
    assert await seq.ainvoke("abc") == "ABC"


def test_stream_starts_after_the_last_blocking_step() -> None:
    seq = RunnableLambda(letters) | upper | (lambda s: s + "?") | RunnableLambda(letters)
    assert list(seq.stream("ab")) == ["A", "B", "?"]


def test_transform_consumes_an_iterator_of_chunks() -> None:
    seq = RunnableGenerator(upper) | RunnablePassthrough()
    assert list(seq.transform(iter(["a", "b"]))) == ["A", "B"]


async def test_atransform_consumes_an_async_iterator_of_chunks() -> None:
    async def chunks() -> AsyncIterator[str]:
        yield "a"
        yield "b"

    seq = RunnableGenerator(aupper) | RunnablePassthrough()
    assert [c async for c in seq.atransform(chunks())] == ["A", "B"]


def test_streaming_is_lazy_chunks_reach_the_caller_as_they_are_made() -> None:
    log: list[str] = []

    def produce(text: str) -> Iterator[str]:
        for ch in text:
            log.append(f"made {ch}")
            yield ch

    def relay(chunks: Iterator[str]) -> Iterator[str]:
        for chunk in chunks:
            log.append(f"relayed {chunk}")
            yield chunk

    for chunk in (RunnableLambda(produce) | relay).stream("ab"):
        log.append(f"got {chunk}")
    assert log == ["made a", "relayed a", "got a", "made b", "relayed b", "got b"]


async def test_async_streaming_is_lazy() -> None:
    log: list[str] = []

    async def produce(chunks: AsyncIterator[str]) -> AsyncIterator[str]:
        async for text in chunks:
            for ch in text:
                log.append(f"made {ch}")
                yield ch

    async for chunk in (RunnablePassthrough() | produce | RunnablePassthrough()).astream("ab"):
        log.append(f"got {chunk}")
    assert log == ["made a", "got a", "made b", "got b"]


def test_sequence_types_come_from_first_and_last_steps() -> None:
    def to_text(x: int) -> str:
        return str(x)

    def length(s: str) -> float:
        return float(len(s))

    seq = RunnableLambda(to_text) | length
    assert seq.InputType is int
    assert seq.OutputType is float
    assert seq.get_input_jsonschema() == {"title": "to_text_input", "type": "integer"}
    assert seq.get_output_jsonschema() == {"title": "length_output", "type": "number"}


def test_sequence_is_reusable_and_immutable() -> None:
    seq = RunnableLambda(add_one) | add_one
    assert isinstance(seq, RunnableSequence)
    steps = seq.steps
    assert [seq.invoke(i) for i in range(3)] == [2, 3, 4]
    assert seq.steps is steps
