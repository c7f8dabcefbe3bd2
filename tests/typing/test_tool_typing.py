"""Static types of `@tool` and the tool classes; checked by ``mypy --strict tests/typing``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, assert_type

from pydantic import BaseModel

from leanchain.runnables import Runnable
from leanchain.tools import BaseTool, StructuredTool, Tool, tool


class Args(BaseModel):
    a: int


@tool
def bare(a: int) -> int:
    """Bare."""
    return a


@tool("named")
def named(a: int) -> int:
    """Named."""
    return a


@tool(parse_docstring=True)
def parsed(a: int) -> int:
    """Parsed.

    Args:
        a: the a
    """
    return a


@tool(return_direct=True)
def direct(a: int) -> int:
    """Direct."""
    return a


@tool(args_schema=Args)
def schema(a: int) -> int:
    """Schema."""
    return a


@tool(response_format="content_and_artifact")
def artifact(a: int) -> tuple[str, int]:
    """Artifact."""
    return str(a), a


@tool
async def asynchronous(a: int) -> int:
    """Async."""
    return a


@tool(infer_schema=False)
def single(text: str) -> str:
    """Single input."""
    return text


def plain(a: int) -> int:
    """Plain."""
    return a


def test_decorator_forms() -> None:
    assert_type(bare, StructuredTool)
    assert_type(named, StructuredTool)
    assert_type(parsed, StructuredTool)
    assert_type(direct, StructuredTool)
    assert_type(schema, StructuredTool)
    assert_type(artifact, StructuredTool)
    assert_type(asynchronous, StructuredTool)
    assert_type(single, Tool)
    assert_type(tool(plain), StructuredTool)
    assert_type(tool(plain, description="Given."), StructuredTool)
    assert_type(tool("name", description="Given."), Callable[[Callable[..., Any]], StructuredTool])
    assert_type(tool(infer_schema=False), Callable[[Callable[..., Any]], Tool])


def test_tools_are_runnables() -> None:
    runnable: Runnable[Any, Any] = bare
    base: BaseTool = single
    assert_type(bare.invoke({"a": 1}), Any)
    assert_type(StructuredTool.from_function(plain), StructuredTool)
    assert_type(Tool.from_function(plain, "p", "P."), Tool)
    assert (runnable, base) == (bare, single)
