"""How `RunnableLambda` calls its function (these are its `_call`, `_stream`, `_acall` and
`_astream`).

The function runs with the step's config published in the context (code it calls sees it
through `get_config`), and gets it as ``config=`` when it declares that parameter. A generator
function's chunks are added up for `invoke` and passed on as they come for `stream`; a
runnable that the function returns runs on the same input, in its place.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any, cast

from leanchain.runnables._chunks import aclose, afold, fold
from leanchain.runnables._plain_runs import recurse
from leanchain.runnables.base import Runnable
from leanchain.runnables.concurrency import run_in_executor
from leanchain.runnables.config import RunnableConfig, _current, config_for_user_code

if TYPE_CHECKING:
    from leanchain.runnables.lambdas import RunnableLambda

__all__ = ["acall_func", "astream_func", "call_func", "stream_func"]

_SYNC_COROUTINE = "Cannot invoke a coroutine function synchronously.Use `ainvoke` instead."


def call_func(
    self: RunnableLambda[Any, Any], input: Any, config: RunnableConfig, kwargs: dict[str, Any]
) -> Any:
    """Call the sync function on `input` (a generator's chunks added up); a returned runnable
    runs on the same input."""
    output = _call_only(self, input, config, kwargs)
    if isinstance(output, Runnable):
        runnable, child = recurse(output, self, input, config)
        return runnable.invoke(input, child)
    return output


def _call_only(
    self: RunnableLambda[Any, Any], input: Any, config: RunnableConfig, kwargs: dict[str, Any]
) -> Any:
    """The sync function's output on `input` (a generator's chunks added up), a returned
    runnable not run yet."""
    func = self.func
    if func is None:
        raise TypeError(_SYNC_COROUTINE)
    token = _current.set(config)
    try:
        if self._func_config:
            output = func(input, config=config_for_user_code(config), **kwargs)
        elif kwargs:
            output = func(input, **kwargs)
        else:
            output = func(input)
        if self._func_gen:
            output = fold(output)[1]
    finally:
        _current.reset(token)
    return output


def stream_func(
    self: RunnableLambda[Any, Any],
    chunks: Iterator[Any],
    config: RunnableConfig,
    kwargs: dict[str, Any],
) -> Iterator[Any]:
    """Add up the input chunks, then yield the output: a generator's chunks as they come, a
    returned runnable's stream, or the one result."""
    got, input = fold(chunks)
    if not got:
        return
    func = cast("Callable[..., Any]", self.func)
    if self._func_config:
        kwargs = {**kwargs, "config": config_for_user_code(config)}
    if self._func_gen:
        if not config:
            # Nothing to publish: the generator runs as it is, at plain-generator speed.
            yield from func(input, **kwargs)
            return
        ctx = contextvars.copy_context()
        ctx.run(_current.set, config)
        gen = ctx.run(func, input, **kwargs)
        while True:
            try:
                chunk = ctx.run(next, gen)
            except StopIteration:
                return
            yield chunk
    token = _current.set(config)
    try:
        output = func(input, **kwargs)
    finally:
        _current.reset(token)
    if isinstance(output, Runnable):
        runnable, child = recurse(output, self, input, config)
        yield from runnable.stream(input, child)
    else:
        yield output


async def acall_func(
    self: RunnableLambda[Any, Any], input: Any, config: RunnableConfig, kwargs: dict[str, Any]
) -> Any:
    """Async `call_func`: await the async function, or run the sync one in a worker thread; a
    returned runnable runs on its async path (``ainvoke``), as LangChain's."""
    output = await _acall_only(self, input, config, kwargs)
    if isinstance(output, Runnable):
        runnable, child = recurse(output, self, input, config)
        return await runnable.ainvoke(input, child)
    return output


async def _acall_only(
    self: RunnableLambda[Any, Any], input: Any, config: RunnableConfig, kwargs: dict[str, Any]
) -> Any:
    """The function's output on `input` (the sync one in a worker thread), a returned
    runnable not run yet."""
    afunc = self.afunc
    if afunc is None:
        return await run_in_executor(_call_only, self, input, config, kwargs)
    if self._afunc_config:
        kwargs = {**kwargs, "config": config_for_user_code(config)}
    token = _current.set(config)
    try:
        if self._afunc_gen:
            return (await afold(cast("AsyncIterator[Any]", afunc(input, **kwargs))))[1]
        return await afunc(input, **kwargs)
    finally:
        _current.reset(token)


async def astream_func(
    self: RunnableLambda[Any, Any],
    chunks: AsyncIterator[Any],
    config: RunnableConfig,
    kwargs: dict[str, Any],
) -> AsyncIterator[Any]:
    """Async `stream_func`: an async generator's chunks as they come."""
    got, input = await afold(chunks)
    if not got:
        return
    if self._afunc_gen and self.afunc is not None:
        if self._afunc_config:
            kwargs = {**kwargs, "config": config_for_user_code(config)}
        token = _current.set(config)
        try:
            async for chunk in self.afunc(input, **kwargs):
                yield chunk
        finally:
            _current.reset(token)
        return
    if self.afunc is None and self._func_gen:
        for chunk in await run_in_executor(
            lambda: list(self._stream(iter((input,)), config, kwargs))
        ):
            yield chunk
        return
    output = await _acall_only(self, input, config, kwargs)
    if not isinstance(output, Runnable):
        yield output
        return
    runnable, child = recurse(output, self, input, config)
    stream = runnable.astream(input, child)  # its async stream, as LangChain's
    try:
        async for chunk in stream:
            yield chunk
    except BaseException:
        await aclose(stream)
        raise
