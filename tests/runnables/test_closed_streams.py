"""A stream its consumer closes early ends: every run reports ``on_chain_end`` with what it was
given so far (inner runs first), never ``on_chain_error`` (LangChain's streams end too)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from typing import Any

import pytest

from leanchain.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from leanchain.runnables import RunnableBranch, RunnableGenerator, RunnableLambda


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.events.append(("start", kwargs["name"]))

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.events.append(("end", outputs))

    def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        self.events.append(("error", type(error).__name__))


class AsyncRecorder(AsyncCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    async def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.events.append(("start", kwargs["name"]))

    async def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.events.append(("end", outputs))

    async def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        self.events.append(("error", type(error).__name__))


def close(stream: Iterator[Any]) -> None:
    """What ``break`` and the garbage collector do to an abandoned stream, now."""
    assert isinstance(stream, Generator)
    stream.close()


async def aclose(stream: AsyncIterator[Any]) -> None:
    assert isinstance(stream, AsyncGenerator)
    await stream.aclose()


def count(chunks: Iterator[Any]) -> Iterator[int]:
    for _ in chunks:
        yield from range(1, 6)


async def acount(chunks: AsyncIterator[Any]) -> AsyncIterator[int]:
    async for _ in chunks:
        for i in range(1, 6):
            yield i


def test_a_generator_closed_after_two_chunks_ends_with_their_sum() -> None:
    recorder = Recorder()
    stream = RunnableGenerator(count).stream(0, {"callbacks": [recorder]})
    assert (next(stream), next(stream)) == (1, 2)
    close(stream)
    assert recorder.events == [("start", "count"), ("end", 3)]


def test_a_chain_closed_early_ends_inner_runs_first() -> None:
    recorder = Recorder()
    chain = RunnableLambda(lambda x: x, name="first") | RunnableGenerator(count)
    stream = chain.stream(0, {"callbacks": [recorder]})
    assert next(stream) == 1
    close(stream)
    assert recorder.events == [
        ("start", "RunnableSequence"),
        ("start", "first"),
        ("start", "count"),
        ("end", 0),  # first: its one output, handed on before the close
        ("end", 1),  # count: the chunk it was read for
        ("end", 1),  # the chain
    ]


def test_a_plain_step_closed_early_ends() -> None:
    recorder = Recorder()
    chain = RunnableGenerator(count) | RunnableLambda(lambda x: x * 10)
    stream = chain.stream(0, {"callbacks": [recorder]})
    assert next(stream) == 150
    close(stream)
    assert [kind for kind, _ in recorder.events] == ["start", "start", "start", "end", "end", "end"]


def test_a_branch_closed_early_ends() -> None:
    recorder = Recorder()
    branch: RunnableBranch[int, int] = RunnableBranch(
        (lambda x: x > 0, RunnableGenerator(count)), RunnableLambda(lambda x: x)
    )
    stream = branch.stream(1, {"callbacks": [recorder]})
    assert next(stream) == 1
    close(stream)
    assert ("error", "GeneratorExit") not in recorder.events
    assert recorder.events[-1] == ("end", 1)


def test_async_streams_closed_early_end() -> None:
    recorder = AsyncRecorder()
    chain = RunnableLambda(lambda x: x, name="first") | RunnableGenerator(acount)

    async def run() -> None:
        stream = chain.astream(0, {"callbacks": [recorder]})
        assert await anext(stream) == 1
        await aclose(stream)

    asyncio.run(run())
    assert recorder.events == [
        ("start", "RunnableSequence"),
        ("start", "first"),
        ("start", "acount"),
        ("end", 0),
        ("end", 1),
        ("end", 1),
    ]
    only = AsyncRecorder()

    async def alone() -> None:
        stream = RunnableGenerator(acount).astream(0, {"callbacks": [only]})
        assert [await anext(stream), await anext(stream)] == [1, 2]
        await aclose(stream)

    asyncio.run(alone())
    assert only.events == [("start", "acount"), ("end", 3)]


def test_a_failing_stream_still_fails_and_a_finished_one_ends() -> None:
    def broken(chunks: Iterator[Any]) -> Iterator[int]:
        for _ in chunks:
            yield 1
            raise ValueError("no more")

    recorder = Recorder()
    stream = RunnableGenerator(broken).stream(0, {"callbacks": [recorder]})
    assert next(stream) == 1
    with pytest.raises(ValueError, match=r"^no more$"):
        next(stream)
    assert recorder.events == [("start", "broken"), ("error", "ValueError")]
    finished = Recorder()
    assert list(RunnableGenerator(count).stream(0, {"callbacks": [finished]})) == [1, 2, 3, 4, 5]
    assert finished.events == [("start", "count"), ("end", 15)]
