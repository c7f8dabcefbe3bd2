"""A tool that forwards its callbacks into a model inside a chain: each event reaches each
handler once (LangChain's ``test_with_explicit_config``: the tokens came twice)."""

from __future__ import annotations

import asyncio
from itertools import cycle
from typing import Any

from leanchain.callbacks import BaseCallbackHandler, CallbackManager
from leanchain.callbacks.manager import Callbacks, merge_callbacks
from leanchain.language_models import GenericFakeChatModel
from leanchain.messages import AIMessage
from leanchain.runnables import RunnableLambda
from leanchain.tools import tool


def _model() -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=cycle([AIMessage(content="hello world", id="ai3")]))


@tool
async def say_hello(query: str, callbacks: Callbacks) -> str:
    """Use this tool to look up which items are in the given place."""
    passthrough = RunnableLambda(lambda x: x, name="passthrough")
    chain = passthrough | _model().with_config({"tags": ["hello"], "callbacks": callbacks})
    return str((await chain.ainvoke(query)).content)


@tool
def say_hello_sync(query: str, callbacks: Callbacks) -> str:
    """Use this tool to look up which items are in the given place."""
    passthrough = RunnableLambda(lambda x: x, name="passthrough")
    chain = passthrough | _model().with_config({"tags": ["hello"], "callbacks": callbacks})
    return str(chain.invoke(query).content)


def _tokens(events: list[Any]) -> list[str]:
    return [e["data"]["chunk"].content for e in events if e["event"] == "on_chat_model_stream"]


def _tree(events: list[Any]) -> list[tuple[str, str, list[str], list[str]]]:
    names = {e["run_id"]: e["name"] for e in events}
    return [
        (e["event"], e["name"], [names[p] for p in e["parent_ids"]], sorted(e["tags"]))
        for e in events
        if e["event"] in ("on_tool_start", "on_chat_model_start", "on_chat_model_end")
    ]


def test_each_token_is_streamed_once() -> None:
    async def collect() -> list[Any]:
        return [e async for e in say_hello.astream_events("meow", version="v2")]

    events = asyncio.run(collect())
    assert _tokens(events) == ["hello", " ", "world"]
    # As LangChain: the model's run hangs under the tool whose callbacks it was given.
    assert _tree(events) == [
        ("on_tool_start", "say_hello", [], []),
        ("on_chat_model_start", "GenericFakeChatModel", ["say_hello"], ["hello", "seq:step:2"]),
        ("on_chat_model_end", "GenericFakeChatModel", ["say_hello"], ["hello", "seq:step:2"]),
    ]


def test_each_token_is_streamed_once_sync() -> None:
    assert _tokens(list(say_hello_sync.stream_events("meow"))) == ["hello", " ", "world"]

    async def collect() -> list[Any]:
        return [e async for e in say_hello_sync.astream_events("meow")]

    assert _tokens(asyncio.run(collect())) == ["hello", " ", "world"]


class Counter(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[str] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.events.append("start")

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.events.append("end")


def test_a_handler_in_the_config_hears_the_model_once() -> None:
    counter = Counter()
    assert asyncio.run(say_hello.ainvoke("meow", {"callbacks": [counter]})) == "hello world"
    assert counter.events == ["start", "end"]
    counter.events.clear()
    assert say_hello_sync.invoke("meow", {"callbacks": [counter]}) == "hello world"
    assert counter.events == ["start", "end"]


def test_merging_managers_keeps_each_handler_once() -> None:
    a, b, c = Counter(), Counter(), Counter()
    left = CallbackManager([a, b], None, ["seq:step:1"])
    right = CallbackManager([b, c, c], None, ["seq:step:1", "x"])
    merged = merge_callbacks(left, right)
    assert isinstance(merged, CallbackManager)
    assert merged.handlers == (a, b, c)
    assert merged.tags == ("seq:step:1", "x")
    with_list = merge_callbacks(left, [b, c])
    assert isinstance(with_list, CallbackManager)
    assert with_list.handlers == (a, b, c)
    from_list = merge_callbacks([a, c], right)
    assert isinstance(from_list, CallbackManager)
    assert from_list.handlers == (a, c, b)
    # Two plain lists are joined as they are, as LangChain joins them.
    assert merge_callbacks([a], [a, b]) == [a, a, b]
