"""`dispatch_custom_event` outside a run raises as LangChain's does; inside one (a lambda, a
generator, a tool, a parser, a chat model, at the root or in a chain, sync or async) it never
raises, listened to or not."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from leanchain.callbacks import RunManager, adispatch_custom_event, dispatch_custom_event
from leanchain.language_models import BaseChatModel, ChatGeneration, ChatResult
from leanchain.messages import AIMessage, BaseMessage
from leanchain.output_parsers import BaseOutputParser, BaseTransformOutputParser
from leanchain.runnables import Runnable, RunnableGenerator, RunnableLambda, RunnablePassthrough
from leanchain.tools import tool

NO_PARENT = r"^Unable to dispatch a custom event without a parent run: call dispatch_custom_event"


def note(x: Any) -> Any:
    dispatch_custom_event("note", x)
    return x


def notes(chunks: Iterator[Any]) -> Iterator[Any]:
    for x in chunks:
        dispatch_custom_event("note", x)
        yield x


async def anote(x: Any) -> Any:
    await adispatch_custom_event("note", x)
    return x


@tool
def noting(q: str) -> str:
    """Note the query."""
    dispatch_custom_event("note", q)
    return q


class Noting(BaseOutputParser[str]):
    def parse(self, text: str) -> str:
        dispatch_custom_event("note", text)
        return text


class Notes(BaseTransformOutputParser[str]):
    def parse(self, text: str) -> str:
        dispatch_custom_event("note", text)
        return text


async def _astreamed(runnable: Runnable[Any, Any]) -> list[Any]:
    return [chunk async for chunk in runnable.astream("x")]


class NotingModel(BaseChatModel):
    @property
    def _llm_type(self) -> str:
        return "noting"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        dispatch_custom_event("note", 1)
        return ChatResult(generations=[ChatGeneration(message=AIMessage("x"))])


INSIDE: dict[str, Callable[[], Any]] = {
    "a lambda at the root": lambda: RunnableLambda(note).invoke(1),
    "a lambda with a config": lambda: RunnableLambda(note).invoke(1, {"tags": ["a"]}),
    "a streamed lambda": lambda: list(RunnableLambda(note).stream(1)),
    "a generator": lambda: list(RunnableGenerator(notes).stream(1)),
    "an invoked generator": lambda: RunnableGenerator(notes).invoke(1),
    "a chain": lambda: (RunnableLambda(note) | RunnableLambda(note)).invoke(1),
    "an async lambda": lambda: asyncio.run(RunnableLambda(anote).ainvoke(1)),
    "a sync lambda awaited": lambda: asyncio.run(RunnableLambda(note).ainvoke(1)),
    "a tool": lambda: noting.invoke("x"),
    "an assign": lambda: RunnablePassthrough.assign(y=note).invoke({"a": 1}),
    "a batch": lambda: RunnableLambda(note).batch([1, 2]),
    # LangChain raises here (it calls a passthrough's function outside the run's context).
    "a passthrough function": lambda: RunnablePassthrough(note).invoke(1),
    "a parser": lambda: Noting().invoke("x"),
    "a streamed parser": lambda: list(Noting().stream("x")),
    "a parser streamed async": lambda: asyncio.run(_astreamed(Notes())),
    "a chain streamed async": lambda: asyncio.run(_astreamed(RunnableLambda(note) | Notes())),
    # LangChain raises here (a chat model's _generate runs outside its run's context).
    "a chat model": lambda: NotingModel().invoke("hi"),
}


@pytest.mark.parametrize("name", list(INSIDE))
def test_inside_a_run_nobody_listens_and_nothing_raises(name: str) -> None:
    INSIDE[name]()


@pytest.mark.parametrize(
    "call",
    [
        lambda: dispatch_custom_event("note", 1),
        lambda: asyncio.run(adispatch_custom_event("note", 1)),
    ],
    ids=["sync", "async"],
)
def test_outside_a_run_it_raises(call: Callable[[], Any]) -> None:
    with pytest.raises(RuntimeError, match=NO_PARENT):
        call()


def test_inside_a_listened_run_the_event_is_reported() -> None:
    events = [e for e in RunnableLambda(note).stream_events(7) if e["event"] == "on_custom_event"]
    assert [(e["name"], e["data"]) for e in events] == [("note", 7)]
