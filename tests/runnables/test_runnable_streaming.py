"""Exact chunk sequences through mixed pipelines, sync and async."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from leanchain.runnables import (
    AddableDict,
    Runnable,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
    RunnablePick,
)


def words(text: str) -> Iterator[str]:
    for word in text.split():
        yield word + " "


def shout(chunks: Iterator[str]) -> Iterator[str]:
    for chunk in chunks:
        yield chunk.upper()


async def ashout(chunks: AsyncIterator[str]) -> AsyncIterator[str]:
    async for chunk in chunks:
        yield chunk.upper()


def as_dict(chunks: Iterator[str]) -> Iterator[AddableDict]:
    for chunk in chunks:
        yield AddableDict(text=chunk)


async def collect(runnable: Runnable[Any, Any], value: Any) -> list[Any]:
    return [chunk async for chunk in runnable.astream(value)]


PIPELINES: list[tuple[str, Runnable[Any, Any], Any, list[Any]]] = [
    ("generator lambda", RunnableLambda(words), "a b", ["a ", "b "]),
    ("generator then transform", RunnableLambda(words) | shout, "a b", ["A ", "B "]),
    (
        "generator, transform, passthrough",
        RunnableLambda(words) | shout | RunnablePassthrough(),
        "a b c",
        ["A ", "B ", "C "],
    ),
    (
        "a blocking step gathers everything",
        RunnableLambda(words) | shout | (lambda s: s.strip()) | RunnablePassthrough(),
        "a b",
        ["A B"],
    ),
    (
        "blocking then streaming again",
        RunnableLambda(words) | (lambda s: s.strip()) | RunnableLambda(words),
        "a b",
        ["a ", "b "],
    ),
    (
        "dict chunks then pick",
        RunnableLambda(words) | RunnableGenerator(as_dict) | RunnablePick("text"),
        "a b",
        ["a ", "b "],
    ),
    (
        "assign streams the passed keys first",
        RunnableLambda(lambda x: {"q": x}) | RunnablePassthrough.assign(n=lambda d: len(d["q"])),
        "abc",
        [AddableDict(q="abc"), AddableDict(n=3)],
    ),
    (
        "parallel of one streaming branch",
        RunnableLambda(words) | RunnableParallel(s=shout),
        "a b",
        [AddableDict(s="A "), AddableDict(s="B ")],
    ),
]


@pytest.mark.parametrize(
    ("pipeline", "value", "expected"),
    [p[1:] for p in PIPELINES],
    ids=[p[0] for p in PIPELINES],
)
def test_stream_chunks(pipeline: Runnable[Any, Any], value: Any, expected: list[Any]) -> None:
    assert list(pipeline.stream(value)) == expected


@pytest.mark.parametrize(
    ("pipeline", "value", "expected"),
    [p[1:] for p in PIPELINES],
    ids=[p[0] for p in PIPELINES],
)
async def test_astream_chunks(
    pipeline: Runnable[Any, Any], value: Any, expected: list[Any]
) -> None:
    assert await collect(pipeline, value) == expected


@pytest.mark.parametrize(
    ("pipeline", "value", "expected"),
    [p[1:] for p in PIPELINES],
    ids=[p[0] for p in PIPELINES],
)
def test_invoke_equals_the_sum_of_the_chunks(
    pipeline: Runnable[Any, Any], value: Any, expected: list[Any]
) -> None:
    total = expected[0]
    for chunk in expected[1:]:
        total = total + chunk
    assert pipeline.invoke(value) == total


async def test_async_generators_in_the_middle() -> None:
    seq = RunnableLambda(words) | ashout | RunnablePassthrough()
    assert await collect(seq, "x y") == ["X ", "Y "]


def test_non_addable_chunks_keep_the_last_one_when_gathered() -> None:
    def mixed(x: Any) -> Iterator[Any]:
        yield 1
        yield "two"

    seq = RunnableLambda(mixed) | (lambda v: v)
    assert list(seq.stream(None)) == ["two"]


def test_stopping_early_stops_the_producer() -> None:
    produced: list[int] = []

    def count(x: int) -> Iterator[int]:
        for i in range(x):
            produced.append(i)
            yield i

    stream = (RunnableLambda(count) | RunnablePassthrough()).stream(100)
    assert [next(stream), next(stream)] == [0, 1]
    stream.close()  # type: ignore[attr-defined]
    assert produced == [0, 1]
