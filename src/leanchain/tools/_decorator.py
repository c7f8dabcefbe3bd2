"""`@tool`: turn a function (sync or async) into a tool."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Literal, overload

from leanchain.tools._base import ArgsSchema, BaseTool, ResponseFormat
from leanchain.tools._simple import Tool
from leanchain.tools._structured import StructuredTool, tool_description

__all__ = ["tool"]

AnyFunction = Callable[..., Any]


@overload
def tool(
    name_or_callable: AnyFunction,
    /,
    *,
    description: str | None = None,
    return_direct: bool = False,
    idempotent: bool = True,
    args_schema: ArgsSchema | None = None,
    infer_schema: Literal[True] = True,
    response_format: ResponseFormat = "content",
    parse_docstring: bool = False,
    error_on_invalid_docstring: bool = True,
    extras: dict[str, Any] | None = None,
) -> StructuredTool: ...


@overload
def tool(
    name_or_callable: AnyFunction,
    /,
    *,
    description: str | None = None,
    return_direct: bool = False,
    idempotent: bool = True,
    args_schema: ArgsSchema | None = None,
    infer_schema: bool = True,
    response_format: ResponseFormat = "content",
    parse_docstring: bool = False,
    error_on_invalid_docstring: bool = True,
    extras: dict[str, Any] | None = None,
) -> BaseTool: ...


@overload
def tool(
    name_or_callable: str | None = None,
    /,
    *,
    description: str | None = None,
    return_direct: bool = False,
    idempotent: bool = True,
    args_schema: ArgsSchema | None = None,
    infer_schema: Literal[True] = True,
    response_format: ResponseFormat = "content",
    parse_docstring: bool = False,
    error_on_invalid_docstring: bool = True,
    extras: dict[str, Any] | None = None,
) -> Callable[[AnyFunction], StructuredTool]: ...


@overload
def tool(
    name_or_callable: str | None = None,
    /,
    *,
    description: str | None = None,
    return_direct: bool = False,
    idempotent: bool = True,
    args_schema: None = None,
    infer_schema: Literal[False],
    response_format: ResponseFormat = "content",
    parse_docstring: bool = False,
    error_on_invalid_docstring: bool = True,
    extras: dict[str, Any] | None = None,
) -> Callable[[AnyFunction], Tool]: ...


@overload
def tool(
    name_or_callable: str | None = None,
    /,
    *,
    description: str | None = None,
    return_direct: bool = False,
    idempotent: bool = True,
    args_schema: ArgsSchema | None = None,
    infer_schema: bool = True,
    response_format: ResponseFormat = "content",
    parse_docstring: bool = False,
    error_on_invalid_docstring: bool = True,
    extras: dict[str, Any] | None = None,
) -> Callable[[AnyFunction], BaseTool]: ...


def tool(
    name_or_callable: str | AnyFunction | None = None,
    /,
    *,
    description: str | None = None,
    return_direct: bool = False,
    idempotent: bool = True,
    args_schema: ArgsSchema | None = None,
    infer_schema: bool = True,
    response_format: ResponseFormat = "content",
    parse_docstring: bool = False,
    error_on_invalid_docstring: bool = True,
    extras: dict[str, Any] | None = None,
) -> BaseTool | Callable[[AnyFunction], BaseTool]:
    """Make a tool of a function: ``@tool``, ``@tool("name")`` or ``@tool(option=...)``.

    The tool is a `StructuredTool` whose argument schema is inferred from the signature
    (or is `args_schema`); with ``infer_schema=False`` and no `args_schema` it is a
    single-input `Tool`. An async function becomes the tool's coroutine.

    Args:
        name_or_callable: the function (bare ``@tool``), or the tool's name.
        description: the tool's description; defaults to the docstring (the whole docstring,
            or with `parse_docstring` its description without the ``Args:`` section).
        return_direct: an agent executor stops and returns this tool's observation.
        idempotent: ``False`` for a tool whose call has an effect a second call would repeat
            (`BaseTool.idempotent`): a `ToolPolicy` never calls it again after an error that
            may have come after that effect.
        args_schema: an explicit argument schema (pydantic model class or JSON-schema dict).
        infer_schema: infer the argument schema from the signature.
        response_format: ``"content_and_artifact"`` when the function returns a pair.
        parse_docstring: read a Google-style docstring into the tool's and the arguments'
            descriptions.
        error_on_invalid_docstring: with `parse_docstring`, fail on a docstring without an
            ``Args:`` section.
        extras: provider-specific settings.

    Raises:
        ValueError: no description and no docstring, or a docstring that does not match the
            signature (with `parse_docstring`).
    """

    def make(func: AnyFunction, name: str | None) -> BaseTool:
        built = build(func, name)
        built.idempotent = idempotent
        return built

    def build(func: AnyFunction, name: str | None) -> BaseTool:
        is_async = inspect.iscoroutinefunction(func)
        sync, coroutine = (None, func) if is_async else (func, None)
        tool_name = name or func.__name__
        if infer_schema or args_schema is not None:
            return StructuredTool.from_function(
                sync,
                coroutine,
                name=tool_name,
                description=description,
                return_direct=return_direct,
                args_schema=args_schema,
                infer_schema=infer_schema,
                response_format=response_format,
                parse_docstring=parse_docstring,
                error_on_invalid_docstring=error_on_invalid_docstring,
                extras=extras,
            )
        return Tool(
            tool_name,
            sync,
            tool_description(func, description, None, parse_docstring=False),
            return_direct=return_direct,
            coroutine=coroutine,
            response_format=response_format,
            extras=extras,
        )

    if callable(name_or_callable):
        return make(name_or_callable, None)
    if name_or_callable is not None and not isinstance(name_or_callable, str):
        raise TypeError(
            "The first argument of @tool must be a function or a tool name, "
            f"got {type(name_or_callable).__name__}"
        )
    tool_name = name_or_callable

    def decorator(func: AnyFunction) -> BaseTool:
        return make(func, tool_name)

    return decorator
