"""What the library remembers never keeps a user's objects alive.

A server that builds a chain per request around a large document must not find the
documents of past requests still in memory: a cache of callable signatures once held up to
1,024 user functions and all they captured (300 MB after 300 such requests). The memos of
the library (a function's parameters, a handler class's hooks, which runnables stream their
events quickly, built schemas, compiled templates) hold their subject weakly, by something
that does not pin it, or not at all.
"""

from __future__ import annotations

import asyncio
import gc
import time
import tracemalloc
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from leanchain.callbacks import BaseCallbackHandler
from leanchain.prompts import ChatPromptTemplate, PromptTemplate
from leanchain.runnables import (
    Runnable,
    RunnableConfig,
    RunnableGenerator,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)


def alive(refs: list[weakref.ref[Any]], wait: float = 5.0) -> list[bool]:
    """Which of `refs` still have their object, once nothing is left to release them.

    A worker thread that finished a call drops its reference to the work a moment after the
    caller has the result (``concurrent.futures`` deletes its work item after setting the
    future), so on a loaded machine the last request's objects may live a few milliseconds
    longer: collect until they are gone or `wait` seconds have passed.
    """
    deadline = time.monotonic() + wait
    while True:
        gc.collect()
        found = [ref() is not None for ref in refs]
        if not any(found) or time.monotonic() >= deadline:
            return found
        time.sleep(0.01)


class Document:
    """A large object a request's chain captures (weakly referenceable, so we can watch it)."""

    def __init__(self, size: int = 1 << 20) -> None:
        self.text = "x" * size


def chains(doc: Document) -> dict[str, Runnable[Any, Any]]:
    """Chains of every kind of user function, each capturing `doc`."""

    def plain(x: str) -> int:
        return len(doc.text) + len(str(x))

    def with_config(x: str, config: RunnableConfig) -> int:
        return len(doc.text)

    def with_run_manager(x: str, run_manager: Any) -> int:
        return len(doc.text)

    async def coroutine(x: str) -> int:
        return len(doc.text)

    def generator(chunks: Iterator[str]) -> Iterator[int]:
        for _ in chunks:
            yield len(doc.text)

    async def agenerator(chunks: AsyncIterator[str]) -> AsyncIterator[int]:
        async for _ in chunks:
            yield len(doc.text)

    def listener(run: Any) -> None:
        assert doc.text

    return {
        "lambda": RunnableLambda(lambda x: (x, len(doc.text))),
        "function": RunnableLambda(plain),
        "config parameter": RunnableLambda(with_config),
        "run_manager parameter": RunnableLambda(with_run_manager),
        "coroutine": RunnableLambda(plain, afunc=coroutine),
        "generator": RunnableGenerator(generator, agenerator),
        "passthrough": RunnablePassthrough(lambda x: len(doc.text)),
        "assign": RunnablePassthrough.assign(n=lambda x: len(doc.text)),
        "parallel": RunnableParallel(a=plain, b=with_config),
        "listeners": RunnableLambda(plain).with_listeners(on_start=listener, on_end=listener),
        "prompt | lambda": ChatPromptTemplate.from_messages([("human", "{q}")]) | plain,
    }


INPUTS: dict[str, Any] = {"assign": {"q": "a"}, "prompt | lambda": {"q": "a"}}


def use(runnable: Runnable[Any, Any], x: Any) -> None:
    """Everything a request might do with its chain."""
    runnable.invoke(x)
    runnable.batch([x, x])
    list(runnable.stream(x))
    for _ in range(2):  # the second event stream of a quick run goes to the caller's thread
        list(runnable.stream_events(x))
    asyncio.run(_ause(runnable, x))
    runnable.get_input_schema()
    runnable.get_output_schema()
    runnable.get_graph()


async def _ause(runnable: Runnable[Any, Any], x: Any) -> None:
    await runnable.ainvoke(x)
    [_ async for _ in runnable.astream_events(x)]


@pytest.mark.parametrize("kind", list(chains(Document(1))))
def test_a_chain_built_per_request_is_gone_with_its_request(kind: str) -> None:
    def request() -> weakref.ref[Document]:
        doc = Document()
        use(chains(doc)[kind], INPUTS.get(kind, "a"))
        return weakref.ref(doc)

    gone = [request() for _ in range(3)]
    assert alive(gone) == [False, False, False]


def test_three_hundred_requests_leave_no_document_behind() -> None:
    def request() -> weakref.ref[Document]:
        doc = Document(1 << 10)
        chain = RunnableLambda(lambda x: x + len(doc.text)) | (lambda n, config: n + 1)
        assert chain.invoke(1) == 1 + len(doc.text) + 1
        list(chain.stream_events(1))
        return weakref.ref(doc)

    gone = [request() for _ in range(300)]
    assert sum(alive(gone)) == 0


def test_a_handler_class_made_per_request_is_not_kept() -> None:
    def request() -> weakref.ref[type]:
        doc = Document(1 << 10)

        seen: list[str] = []

        class Recorder(BaseCallbackHandler):
            def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
                seen.append(doc.text[:1])

        RunnableLambda(lambda x: x).invoke(1, {"callbacks": [Recorder()]})
        assert seen == ["x"]
        return weakref.ref(Recorder)

    gone = [request() for _ in range(3)]
    assert alive(gone) == [False, False, False]


def retained_bytes(work: Callable[[], object]) -> int:
    """Bytes still allocated after `work` ran (and its result was dropped)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        work()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_long_templates_are_not_held_by_the_compile_cache() -> None:
    def requests() -> None:
        for i in range(40):
            document = f"{i} " + "y" * 100_000
            prompt = PromptTemplate.from_template(document + " {question}")
            assert prompt.format(question="?").endswith("y ?")

    # 40 templates of 100 kB: 4 MB if the cache kept them.
    assert retained_bytes(requests) < 500_000
