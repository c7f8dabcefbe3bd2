"""`StructuredTool`: a tool over a function (sync, async or both) with any number of arguments."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from leanchain.callbacks.manager import Callbacks
from leanchain.tools._base import ArgsSchema, ResponseFormat
from leanchain.tools._function import FunctionTool
from leanchain.tools._output import ErrorHandler
from leanchain.tools._schema import create_schema_from_function

__all__ = ["StructuredTool", "tool_description"]

_NO_FUNCTION = "Function and/or coroutine must be provided"
_NO_DESCRIPTION = "Function must have a docstring if description not provided."


def tool_description(
    source: Callable[..., Any],
    description: str | None,
    args_schema: ArgsSchema | None,
    *,
    parse_docstring: bool,
) -> str:
    """The description LangChain gives a function's tool.

    An explicit `description` wins; otherwise the whole docstring (cleaned of indentation),
    or with `parse_docstring` the docstring's description as parsed into the schema.

    Raises:
        ValueError: there is neither a description nor a docstring.
    """
    text = description
    if text is None and not parse_docstring:
        text = inspect.cleandoc(source.__doc__) if source.__doc__ else None
    if text is None and args_schema is not None:
        found = args_schema.get("description") if isinstance(args_schema, dict) else None
        if not isinstance(args_schema, dict):
            found = args_schema.__doc__
        text = found or None
    if text is None:
        raise ValueError(_NO_DESCRIPTION)
    return text.strip()


class StructuredTool(FunctionTool):
    """A tool that calls `func` (or awaits `coroutine`) with the validated arguments.

    Build it with `@tool` or `from_function`. The function may declare ``config``,
    ``callbacks`` or ``run_manager``; they are filled in by leanchain and are not arguments
    the model sees.
    """

    _kind = "StructuredTool"

    def __init__(
        self,
        *,
        name: str,
        description: str = "",
        args_schema: ArgsSchema | None = None,
        func: Callable[..., Any] | None = None,
        coroutine: Callable[..., Awaitable[Any]] | None = None,
        return_direct: bool = False,
        verbose: bool = False,
        handle_tool_error: ErrorHandler = False,
        handle_validation_error: ErrorHandler = False,
        response_format: ResponseFormat = "content",
        metadata: dict[str, Any] | None = None,
        tags: list[str] | None = None,
        callbacks: Callbacks = None,
        extras: dict[str, Any] | None = None,
        arg_names: tuple[tuple[str, str], ...] | None = None,
    ) -> None:
        """Build the tool; `arg_names` maps an inferred schema's fields to parameters."""
        if func is None and coroutine is None:
            raise ValueError(_NO_FUNCTION)
        if func is not None and inspect.iscoroutinefunction(func):
            raise TypeError(
                f"func {func.__name__!r} is a coroutine function: pass it as coroutine=..."
            )
        if coroutine is not None and not inspect.iscoroutinefunction(coroutine):
            raise TypeError(f"coroutine must be an async function, got {coroutine!r}")
        super().__init__(
            name=name,
            description=description,
            args_schema=args_schema,
            return_direct=return_direct,
            verbose=verbose,
            handle_tool_error=handle_tool_error,
            handle_validation_error=handle_validation_error,
            response_format=response_format,
            metadata=metadata,
            tags=tags,
            callbacks=callbacks,
            extras=extras,
        )
        self._set_functions(func, coroutine)
        if arg_names is not None and isinstance(args_schema, type):
            self._arg_names = (args_schema, arg_names)

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any] | None = None,
        coroutine: Callable[..., Awaitable[Any]] | None = None,
        name: str | None = None,
        description: str | None = None,
        return_direct: bool = False,
        args_schema: ArgsSchema | None = None,
        infer_schema: bool = True,
        *,
        response_format: ResponseFormat = "content",
        parse_docstring: bool = False,
        error_on_invalid_docstring: bool = False,
        handle_tool_error: ErrorHandler = False,
        handle_validation_error: ErrorHandler = False,
        verbose: bool = False,
        metadata: dict[str, Any] | None = None,
        tags: list[str] | None = None,
        callbacks: Callbacks = None,
        extras: dict[str, Any] | None = None,
    ) -> StructuredTool:
        """A tool from a function and/or a coroutine function.

        Args:
            func: the sync implementation.
            coroutine: the async implementation (`ainvoke` awaits it).
            name: defaults to the function's name.
            description: defaults to the docstring (see `parse_docstring`).
            return_direct: an agent executor stops after this tool.
            args_schema: the argument schema; inferred from the signature when omitted.
            infer_schema: infer the schema from the signature when `args_schema` is omitted.
            response_format: ``"content_and_artifact"`` when the function returns a pair.
            parse_docstring: read a Google-style docstring: its description becomes the tool's
                and its ``Args:`` entries the arguments' descriptions.
            error_on_invalid_docstring: with `parse_docstring`, fail on a docstring without an
                ``Args:`` section.
            handle_tool_error: see `BaseTool`.
            handle_validation_error: see `BaseTool`.
            verbose: see `BaseTool`.
            metadata: see `BaseTool`.
            tags: see `BaseTool`.
            callbacks: see `BaseTool`.
            extras: see `BaseTool`.

        Raises:
            ValueError: no function was given; no description and no docstring; or a
                docstring that does not match the signature (with `parse_docstring`).
        """
        source = func if func is not None else coroutine
        if source is None:
            raise ValueError(_NO_FUNCTION)
        name = name or source.__name__
        arg_names = None
        if args_schema is None and infer_schema:
            model, arg_names = create_schema_from_function(
                name,
                source,
                parse_docstring=parse_docstring,
                error_on_invalid_docstring=error_on_invalid_docstring,
            )
            args_schema = model
        return cls(
            name=name,
            description=tool_description(
                source, description, args_schema, parse_docstring=parse_docstring
            ),
            args_schema=args_schema,
            func=func,
            coroutine=coroutine,
            return_direct=return_direct,
            verbose=verbose,
            handle_tool_error=handle_tool_error,
            handle_validation_error=handle_validation_error,
            response_format=response_format,
            metadata=metadata,
            tags=tags,
            callbacks=callbacks,
            extras=extras,
            arg_names=arg_names,
        )
