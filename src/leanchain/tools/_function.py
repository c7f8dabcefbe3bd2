"""The shared half of `StructuredTool` and `Tool`: calling a user's function or coroutine."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from leanchain.callbacks.manager import RunManager
from leanchain.runnables.concurrency import run_in_executor
from leanchain.runnables.config import RunnableConfig, reset_config_context, set_config_context
from leanchain.tools._base import BaseTool
from leanchain.tools._schema import FunctionInfo, inspect_function

__all__ = ["FunctionTool"]


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
