"""Handlers registered for every run: every root run picks them up, nothing is doubled."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from callbacks_support import Hook, TrailHandler

from leanchain.callbacks import add_default_handler, default_handlers, remove_default_handler
from leanchain.language_models import FakeListChatModel
from leanchain.messages import HumanMessage
from leanchain.runnables import RunnableLambda
from leanchain.tools import tool


@pytest.fixture
def registered() -> Iterator[TrailHandler]:
    handler = TrailHandler()
    add_default_handler(handler)
    try:
        yield handler
    finally:
        remove_default_handler(handler)
    assert default_handlers() == []


def test_a_root_lambda_without_config_is_observed(registered: TrailHandler) -> None:
    assert RunnableLambda(lambda x: x + 1, name="inc").invoke(1) == 2
    assert registered.trail.hooks == [
        Hook("on_chain_start", "inc", None, 1),
        Hook("on_chain_end", "inc", None, 2),
    ]


def test_the_whole_tree_below_a_root_is_observed_once(registered: TrailHandler) -> None:
    inner = RunnableLambda(lambda x: x * 2, name="inner")

    def outer(x: int) -> int:
        return inner.invoke(x) + 1

    chain = RunnableLambda(outer, name="outer") | RunnableLambda(lambda x: x, name="last")
    assert chain.invoke(3) == 7
    assert [(h.hook, h.run, h.parent) for h in registered.trail.hooks] == [
        ("on_chain_start", "RunnableSequence", None),
        ("on_chain_start", "outer", "RunnableSequence"),
        ("on_chain_start", "inner", "outer"),
        ("on_chain_end", "inner", "outer"),
        ("on_chain_end", "outer", "RunnableSequence"),
        ("on_chain_start", "last", "RunnableSequence"),
        ("on_chain_end", "last", "RunnableSequence"),
        ("on_chain_end", "RunnableSequence", None),
    ]


@tool
def shout(text: str) -> str:
    """Say it louder."""
    return text.upper()


def test_models_and_tools_called_directly_are_observed(registered: TrailHandler) -> None:
    FakeListChatModel(responses=["ok"]).invoke("hi")
    shout.invoke("hey")
    assert [(h.hook, h.run, h.detail) for h in registered.trail.hooks] == [
        ("on_chat_model_start", "FakeListChatModel", [[HumanMessage("hi")]]),
        ("on_llm_end", "FakeListChatModel", registered.trail.hooks[1].detail),
        ("on_tool_start", "shout", "hey"),
        ("on_tool_end", "shout", "HEY"),
    ]


async def test_async_runs_are_observed(registered: TrailHandler) -> None:
    async def inc(x: int) -> int:
        return x + 1

    assert await RunnableLambda(inc, name="inc").ainvoke(1) == 2
    assert [h.hook for h in registered.trail.hooks] == ["on_chain_start", "on_chain_end"]


def test_explicit_callbacks_run_alongside_and_are_not_doubled(registered: TrailHandler) -> None:
    mine = TrailHandler()
    RunnableLambda(lambda x: x, name="same").invoke(1, {"callbacks": [mine]})
    RunnableLambda(lambda x: x, name="same").invoke(1, {"callbacks": [registered]})
    assert [h.hook for h in mine.trail.hooks] == ["on_chain_start", "on_chain_end"]
    assert [h.hook for h in registered.trail.hooks] == ["on_chain_start", "on_chain_end"] * 2


def test_adding_twice_registers_once_and_removing_stops_observing() -> None:
    handler = TrailHandler()
    add_default_handler(handler)
    add_default_handler(handler)
    assert default_handlers() == [handler]
    RunnableLambda(lambda x: x, name="seen").invoke(1)
    remove_default_handler(handler)
    remove_default_handler(handler)
    RunnableLambda(lambda x: x, name="unseen").invoke(1)
    assert default_handlers() == []
    assert [(h.hook, h.run) for h in handler.trail.hooks] == [
        ("on_chain_start", "seen"),
        ("on_chain_end", "seen"),
    ]
