"""`Tool`: a tool over a function of one string (LangChain's single-input tool)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from leanchain.callbacks.manager import Callbacks
from leanchain.errors import ToolException
from leanchain.tools._base import ArgsSchema, ResponseFormat
from leanchain.tools._function import FunctionTool
from leanchain.tools._output import ErrorHandler

__all__ = ["Tool"]


class Tool(FunctionTool):
    """A tool whose function takes one input, usually a string.

    A string input is passed as is; a dict input must have exactly one value, which is passed.
    Its schema for a model is a single string argument named ``__arg1`` (LangChain's
    convention, which the agent output parsers unwrap); ``args`` reports ``tool_input``.
    """

    _kind = "Tool"

    def __init__(
        self,
        name: str,
        func: Callable[..., Any] | None,
        description: str,
        *,
        return_direct: bool = False,
        args_schema: ArgsSchema | None = None,
        coroutine: Callable[..., Awaitable[Any]] | None = None,
        verbose: bool = False,
        handle_tool_error: ErrorHandler = False,
        handle_validation_error: ErrorHandler = False,
        response_format: ResponseFormat = "content",
        metadata: dict[str, Any] | None = None,
        tags: list[str] | None = None,
        callbacks: Callbacks = None,
        extras: dict[str, Any] | None = None,
    ) -> None:
        if func is not None and inspect.iscoroutinefunction(func):
            if coroutine is not None:
                raise TypeError("func is a coroutine function and coroutine was also given")
            func, coroutine = None, func
        if func is None and coroutine is None:
            raise ValueError("Function and/or coroutine must be provided")
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

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any] | None,
        name: str,
        description: str,
        return_direct: bool = False,
        args_schema: ArgsSchema | None = None,
        coroutine: Callable[..., Awaitable[Any]] | None = None,
        **settings: Any,
    ) -> Tool:
        """A tool from a function (LangChain's spelling of the constructor)."""
        return cls(
            name,
            func,
            description,
            return_direct=return_direct,
            args_schema=args_schema,
            coroutine=coroutine,
            **settings,
        )

    def _to_args_and_kwargs(self, tool_input: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The one input, from a string or from a dict with exactly one value.

        Raises:
            ToolException: the input has more (or fewer) than one value.
        """
        if isinstance(tool_input, str) and self.args_schema is None:
            return (tool_input,), {}
        args, kwargs = super()._to_args_and_kwargs(tool_input)
        values = [*args, *kwargs.values()]
        if len(values) != 1:
            raise ToolException(
                f"Too many arguments to single-input tool {self.name}.\n"
                "                Consider using StructuredTool instead."
                f" Args: {values}"
            )
        return (values[0],), {}
