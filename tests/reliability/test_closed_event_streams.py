"""An event stream closed early: every run a handler saw start also ends for it.

A consumer may stop reading `stream_events`/`astream_events` at any event. The abandoned run
stops (at its next event when it runs on the producer thread; at once when async), and every
handler of the run — sync, async, OpenTelemetry, a listener — sees an end or an error for
each run it saw start: nothing stays open (the OpenTelemetry handler once kept two spans per
abandoned agent stream, growing without bound).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from leanchain.language_models import ScriptedChatModel
from leanchain.runnables import Runnable, RunnableLambda
from leanchain.tools import tool
from leanchain.tracing import OpenTelemetryCallbackHandler

Mode = Literal["sync", "async"]
HandlerKind = Literal["sync", "async", "otel", "listeners"]

START = ("on_chain_start", "on_chat_model_start", "on_tool_start")
END = (
    "on_chain_end",
    "on_chain_error",
    "on_llm_end",
    "on_llm_error",
    "on_tool_end",
    "on_tool_error",
)


class Ledger:
    """The runs a handler was told started and not (yet) ended, by run id."""

    def __init__(self) -> None:
        self.open: set[Any] = set()
        self.ended_unstarted: list[Any] = []
        self.lock = threading.Lock()

    def start(self, run_id: Any) -> None:
        with self.lock:
            self.open.add(run_id)

    def end(self, run_id: Any) -> None:
        with self.lock:
            if run_id in self.open:
                self.open.remove(run_id)
            else:
                self.ended_unstarted.append(run_id)


def _ledger_hooks(cls: type, asynchronous: bool) -> None:
    def hook(name: str) -> Any:
        def sync(self: Any, *args: Any, run_id: Any, **kwargs: Any) -> None:
            (self.ledger.start if name in START else self.ledger.end)(run_id)

        async def coro(self: Any, *args: Any, run_id: Any, **kwargs: Any) -> None:
            sync(self, *args, run_id=run_id, **kwargs)

        return coro if asynchronous else sync

    for name in (*START, *END):
        setattr(cls, name, hook(name))


class LedgerHandler(BaseCallbackHandler):
    def __init__(self) -> None:
        self.ledger = Ledger()


class AsyncLedgerHandler(AsyncCallbackHandler):
    def __init__(self) -> None:
        self.ledger = Ledger()


_ledger_hooks(LedgerHandler, asynchronous=False)
_ledger_hooks(AsyncLedgerHandler, asynchronous=True)


class OpenSpans(SpanProcessor):
    """Spans started and not ended."""

    def __init__(self) -> None:
        self.open: set[int] = set()
        self.ended = 0
        self.lock = threading.Lock()

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        with self.lock:
            self.open.add(span.context.span_id)

    def on_end(self, span: ReadableSpan) -> None:
        assert span.context is not None
        with self.lock:
            self.open.discard(span.context.span_id)
            self.ended += 1


class Observer:
    """One kind of handler on a run, and what it still holds open."""

    def __init__(self, kind: HandlerKind) -> None:
        self.kind = kind
        self.handlers: list[BaseCallbackHandler] = []
        self.listened = {"start": 0, "end": 0, "error": 0}
        if kind == "sync":
            self.ledger_handler: LedgerHandler | AsyncLedgerHandler = LedgerHandler()
            self.handlers = [self.ledger_handler]
        elif kind == "async":
            self.ledger_handler = AsyncLedgerHandler()
            self.handlers = [self.ledger_handler]
        elif kind == "otel":
            self.spans = OpenSpans()
            provider = TracerProvider()
            provider.add_span_processor(self.spans)
            self.otel = OpenTelemetryCallbackHandler(provider, nested_chain_spans=True)
            self.handlers = [self.otel]

    def wrap(self, runnable: Runnable[Any, Any]) -> Runnable[Any, Any]:
        if self.kind != "listeners":
            return runnable

        def count(what: str) -> Callable[[Any], None]:
            def listener(run: Any) -> None:
                self.listened[what] += 1

            return listener

        return runnable.with_listeners(
            on_start=count("start"), on_end=count("end"), on_error=count("error")
        )

    def still_open(self) -> list[Any]:
        """What the handler saw start and not end (empty when all is well)."""
        if self.kind in ("sync", "async"):
            ledger = self.ledger_handler.ledger
            return [*ledger.open, *(f"ended, never started: {r}" for r in ledger.ended_unstarted)]
        if self.kind == "otel":
            # The spans, and the handler's own records of them (which would grow per run).
            held = [*self.otel._runs, *self.otel._through]
            return [*self.spans.open, *held]
        started, ended = self.listened["start"], self.listened["end"] + self.listened["error"]
        return [] if started == ended else [f"{started} started, {ended} ended"]

    def ended_anything(self) -> bool:
        if self.kind == "otel":
            return self.spans.ended > 0
        if self.kind == "listeners":
            return self.listened["start"] > 0
        return True


def wait_until_balanced(observer: Observer) -> None:
    """The abandoned run goes on to its next event on the producer thread: wait for it."""
    deadline = time.monotonic() + 5
    while observer.still_open() and time.monotonic() < deadline:
        time.sleep(0.002)
    assert observer.still_open() == []


@tool
def echo(text: str) -> str:
    """Says the text back."""
    return text


def agent() -> AgentExecutor:
    model = ScriptedChatModel([ScriptedChatModel.tool_call("echo", {"text": "a"}), "done"])
    runnable = create_tool_calling_agent(model, [echo], TOOL_CALLING_PROMPT)
    return AgentExecutor(agent=runnable, tools=[echo])


AGENT_EVENTS = 49
"""How many events the agent's run sends when read to the end."""


def read(events: Iterator[Any], stop_after: int) -> int:
    """Read `stop_after` + 1 events (fewer when the stream ends first), then close."""
    count = 0
    for _ in events:
        count += 1
        if count > stop_after:
            break
    events.close()  # type: ignore[attr-defined]
    return count


async def aread(events: Any, stop_after: int) -> int:
    count = 0
    async for _ in events:
        count += 1
        if count > stop_after:
            break
    await events.aclose()
    return count


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("kind", ["sync", "async", "otel", "listeners"])
async def test_an_agent_stream_closed_at_any_event_leaves_no_run_open(
    kind: HandlerKind, mode: Mode
) -> None:
    assert len(list(agent().stream_events("q"))) == AGENT_EVENTS
    for stop_after in range(AGENT_EVENTS):
        observer = Observer(kind)
        runnable = observer.wrap(agent())
        config: Any = {"callbacks": observer.handlers}
        if mode == "sync":
            read(runnable.stream_events("q", config), stop_after)
        else:
            await aread(runnable.astream_events("q", config), stop_after)
        wait_until_balanced(observer)
        assert observer.ended_anything()


class Gate:
    """A step that waits until the consumer has closed the stream, then runs a nested step:
    the first event after the close is a start, deterministically."""

    def __init__(self) -> None:
        self.closed = threading.Event()
        self.nested_ran = threading.Event()

    def chain(self) -> Runnable[Any, Any]:
        def nested(x: int) -> int:
            self.nested_ran.set()
            return x * 2

        def outer(x: int) -> int:
            assert self.closed.wait(5)
            return RunnableLambda(nested).invoke(x)

        return RunnableLambda(outer)


@pytest.mark.parametrize("kind", ["sync", "async", "otel", "listeners"])
def test_a_run_that_starts_after_the_close_fails_for_the_handlers_that_saw_it_start(
    kind: HandlerKind,
) -> None:
    gate = Gate()
    observer = Observer(kind)
    events = observer.wrap(gate.chain()).stream_events(1, {"callbacks": observer.handlers})
    first = next(events)
    assert first["event"] == "on_chain_start"
    events.close()
    gate.closed.set()
    wait_until_balanced(observer)
    # The closed stream stopped the run as the nested step started: it never ran.
    assert not gate.nested_ran.is_set()


@pytest.mark.parametrize("kind", ["sync", "async", "otel", "listeners"])
def test_a_quick_run_in_the_callers_thread_closed_early_leaves_no_run_open(
    kind: HandlerKind,
) -> None:
    def letters(chunks: Iterator[str]) -> Iterator[str]:
        for text in chunks:
            yield from text

    chain = RunnableLambda(str.upper) | letters | RunnableLambda(lambda c: c)
    for stop_after in range(12):
        observer = Observer(kind)
        runnable = observer.wrap(chain)
        config: Any = {"callbacks": observer.handlers}
        list(runnable.stream_events("abcdef", config))  # the next one runs in this thread
        observer = Observer(kind)
        runnable = observer.wrap(chain)
        read(runnable.stream_events("abcdef", {"callbacks": observer.handlers}), stop_after)
        # (Async hooks run one event loop each here: too slow for the caller's thread.)
        wait_until_balanced(observer)


async def test_closing_an_async_event_stream_keeps_the_consumers_own_cancellation() -> None:
    started = asyncio.Event()

    async def slow(x: int) -> int:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            # The run is being stopped; finishing that takes a moment.
            await asyncio.sleep(0.05)
            raise
        return x

    chain = RunnableLambda(slow) | RunnableLambda(lambda x: x)
    after_close: list[str] = []

    async def consume() -> None:
        events = chain.astream_events(1)
        await anext(events)
        await started.wait()
        await events.aclose()
        after_close.append("went on")

    task = asyncio.create_task(consume())
    await started.wait()
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert after_close == []
