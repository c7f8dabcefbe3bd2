"""`@tool` in all its forms."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from leanchain.runnables import Runnable
from leanchain.tools import BaseTool, StructuredTool, Tool, tool


def test_bare() -> None:
    @tool
    def greet(name: str) -> str:
        """Greet someone."""
        return f"hi {name}"

    assert type(greet) is StructuredTool
    assert isinstance(greet, Runnable)
    assert (greet.name, greet.description, greet.return_direct) == (
        "greet",
        "Greet someone.",
        False,
    )
    assert greet.func is not None
    assert greet.coroutine is None
    assert greet.invoke({"name": "ann"}) == "hi ann"


def test_with_a_name_and_return_direct() -> None:
    @tool("custom-name", return_direct=True)
    def greet(name: str) -> str:
        """Greet someone."""
        return f"hi {name}"

    assert (greet.name, greet.return_direct) == ("custom-name", True)
    assert isinstance(greet.args_schema, type)
    assert greet.args_schema.model_json_schema()["title"] == "custom-name"


def test_with_options_only() -> None:
    @tool(return_direct=True, description="Explicit.")
    def greet(name: str) -> str:
        """Docstring loses."""
        return name

    assert (greet.name, greet.description, greet.return_direct) == ("greet", "Explicit.", True)


def test_with_an_args_schema() -> None:
    class Args(BaseModel):
        name: str
        times: int = 1

    @tool(args_schema=Args)
    def greet(name: str, times: int) -> str:
        """Greet several times."""
        return " ".join([f"hi {name}"] * times)

    assert greet.args_schema is Args
    assert greet.invoke({"name": "bo"}) == "hi bo"


def test_async_function_becomes_the_coroutine() -> None:
    @tool
    async def fetch(url: str) -> str:
        """Fetch a URL."""
        return url

    assert (fetch.func, fetch.coroutine is not None) == (None, True)
    assert fetch.args == {"url": {"title": "Url", "type": "string"}}


async def test_async_tool_is_awaited() -> None:
    @tool
    async def fetch(url: str) -> str:
        """Fetch a URL."""
        return f"got {url}"

    assert await fetch.ainvoke({"url": "x"}) == "got x"


def test_direct_call_form() -> None:
    def double(n: int) -> int:
        """Double."""
        return n * 2

    t = tool(double)
    assert t.invoke({"n": 2}) == 4
    assert tool("twice")(double).name == "twice"


def test_handle_tool_error_is_not_a_decorator_option() -> None:
    with pytest.raises(TypeError):
        tool(handle_tool_error=True)  # type: ignore[call-overload]


def test_first_argument_must_be_a_function_or_a_name() -> None:
    with pytest.raises(TypeError) as info:
        tool(3)  # type: ignore[call-overload]
    assert (
        str(info.value) == "The first argument of @tool must be a function or a tool name, got int"
    )


def test_infer_schema_false_with_a_schema_is_structured() -> None:
    class Args(BaseModel):
        q: str

    def search(q: str) -> str:
        """Search."""
        return q

    made: BaseTool = tool(infer_schema=False, args_schema=Args)(search)
    assert type(made) is StructuredTool


def test_infer_schema_false_without_a_docstring() -> None:
    def nodoc(s: str) -> str:
        return s

    with pytest.raises(ValueError) as info:
        tool(infer_schema=False)(nodoc)
    assert str(info.value) == "Function must have a docstring if description not provided."
    made: Tool = tool(infer_schema=False, description="Echo.")(nodoc)
    assert made.description == "Echo."


def test_extras_are_kept() -> None:
    extras: dict[str, Any] = {"cache_control": {"type": "ephemeral"}}

    @tool(extras=extras)
    def cached(x: int) -> int:
        """Cached."""
        return x

    assert cached.extras == extras
