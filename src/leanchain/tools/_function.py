"""The shared half of `StructuredTool` and `Tool`: calling a user's function or coroutine.

Most calls an agent makes are of a ``@tool`` function with a few ``str``/``int``/``float``/
``bool`` arguments, exactly as the schema has them, with nobody listening. Such a call takes
the quick call (`FunctionTool._quick_call`): the schema is read once, the input is checked
against its plain fields (`_validation.plain_kwargs`) and the function is called with it:
what the general steps (`_injections`, `_call`, `validate_args`) would do, in a few calls
instead of a dozen. Any other call takes the general steps.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from leanchain.callbacks.manager import RunManager
from leanchain.runnables.concurrency import run_in_executor
from leanchain.runnables.config import RunnableConfig, reset_config_context, set_config_context
from leanchain.tools._base import BaseTool
from leanchain.tools._runs import NOT_QUICK
from leanchain.tools._schema import FunctionInfo, inspect_function
from leanchain.tools._validation import PlainFields, plain_fields, plain_kwargs, text_param

__all__ = ["FunctionTool"]

_UNREAD = object()
# The steps of a call the quick one stands in for: a class that overrides any of them (`Tool`
# reads its one input its own way) takes the general way.
_GENERAL_STEPS = ("_call", "_acall", "_to_args_and_kwargs", "_schema", "_names", "_injections")


def _injections(func: Callable[..., Any] | None) -> FunctionInfo | None:
    """What to inject into `func`, or ``None`` when nothing (the common, fast case)."""
    if func is None:
        return None
    info = inspect_function(func)
    if info.config_param is None and not info.wants_callbacks and not info.wants_run_manager:
        return None
    return info


class FunctionTool(BaseTool):
    """A tool backed by `func` (sync) and/or `coroutine` (async).

    A tool with only `func` runs it in a worker thread under `ainvoke`; a tool with only
    `coroutine` cannot be invoked synchronously.
    """

    func: Callable[..., Any] | None = None
    coroutine: Callable[..., Awaitable[Any]] | None = None
    # The quick call's reading of `args_schema`: `_quick_plain` and `_quick_text` hold for
    # `_quick_schema`.
    _quick_schema: object = _UNREAD
    _quick_plain: PlainFields | None = None
    _quick_text: str | None = None

    def _set_functions(
        self, func: Callable[..., Any] | None, coroutine: Callable[..., Awaitable[Any]] | None
    ) -> None:
        self.func = func
        self.coroutine = coroutine
        self._func_info = _injections(func)
        self._coro_info = _injections(coroutine)

    def _call(self, tool_input: Any, config: RunnableConfig, run: RunManager | None) -> Any:
        func = self.func
        if func is None:
            raise NotImplementedError(f"{self._kind} does not support sync invocation.")
        args, kwargs = self._to_args_and_kwargs(tool_input)
        if self._func_info is not None:
            kwargs = self._inject(self._func_info, kwargs, config, run)
        token = set_config_context(config)
        try:
            return func(*args, **kwargs)
        finally:
            reset_config_context(token)

    async def _acall(self, tool_input: Any, config: RunnableConfig, run: RunManager | None) -> Any:
        coroutine = self.coroutine
        if coroutine is None:
            return await run_in_executor(self._call, tool_input, config, run)
        args, kwargs = self._to_args_and_kwargs(tool_input)
        if self._coro_info is not None:
            kwargs = self._inject(self._coro_info, kwargs, config, run)
        token = set_config_context(config)
        try:
            return await coroutine(*args, **kwargs)
        finally:
            reset_config_context(token)

    # -- the quick call (`_runs.execute`) ---------------------------------------------------

    def _quick_fields(self) -> PlainFields | None:
        """The schema's plain fields when a call may skip the general steps, else ``None``.

        It may when the class keeps `FunctionTool`'s steps and the schema is a pydantic model
        with no injected arguments whose fields are all plain (`plain_fields`).
        """
        cls = type(self)
        if any(getattr(cls, step) is not getattr(FunctionTool, step) for step in _GENERAL_STEPS):
            return None
        schema = self._schema()
        if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
            return None
        if self._injections() is not None:
            return None
        return plain_fields(schema, self._names(schema))

    def _read_quick(self) -> PlainFields | None:
        """`_quick_fields` of the current ``args_schema``, kept until it is replaced.

        With them, `_quick_text`: the parameter that a string input fills (`text_param`).
        """
        plain = self._quick_fields()
        # The fields first: a thread that finds its schema read finds the fields of it.
        self._quick_plain = plain
        self._quick_text = None if plain is None else text_param(plain)
        self._quick_schema = self.args_schema
        return plain

    def _quick_call(self, tool_input: Any, config: RunnableConfig) -> Any:
        func = self.func
        if func is None:
            return NOT_QUICK
        plain = self._quick_plain if self._quick_schema is self.args_schema else self._read_quick()
        kwargs = None if plain is None else plain_kwargs(plain, tool_input, self._quick_text)
        if kwargs is None:
            return NOT_QUICK
        if self._func_info is not None:
            kwargs = self._inject(self._func_info, kwargs, config, None)
        token = set_config_context(config)
        try:
            return func(**kwargs)
        finally:
            reset_config_context(token)

    async def _aquick_call(self, tool_input: Any, config: RunnableConfig) -> Any:
        coroutine = self.coroutine
        if coroutine is None:  # a sync function runs in a worker thread: the general way
            return NOT_QUICK
        plain = self._quick_plain if self._quick_schema is self.args_schema else self._read_quick()
        kwargs = None if plain is None else plain_kwargs(plain, tool_input, self._quick_text)
        if kwargs is None:
            return NOT_QUICK
        if self._coro_info is not None:
            kwargs = self._inject(self._coro_info, kwargs, config, None)
        token = set_config_context(config)
        try:
            return await coroutine(**kwargs)
        finally:
            reset_config_context(token)
