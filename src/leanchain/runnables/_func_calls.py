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

from leanchain.runnables._chunks import afold, fold
from leanchain.runnables._plain_runs import recurse
from leanchain.runnables.base import Runnable
from leanchain.runnables.concurrency import run_in_executor
from leanchain.runnables.config import RunnableConfig, _current

if TYPE_CHECKING:
    from leanchain.runnables.lambdas import RunnableLambda

__all__ = ["acall_func", "astream_func", "call_func", "stream_func"]

_SYNC_COROUTINE = "Cannot invoke a coroutine function synchronously.Use `ainvoke` instead."


def call_func(
    self: RunnableLambda[Any, Any], input: Any, config: RunnableConfig, kwargs: dict[str, Any]
) -> Any:
    """Call the sync function on `input` (a generator's chunks added up); a returned runnable
    runs on the same input."""
    func = self.func
    if func is None:
        raise TypeError(_SYNC_COROUTINE)
    token = _current.set(config)
    try:
        if self._func_config:
            output = func(input, config=config, **kwargs)
        elif kwargs:
            output = func(input, **kwargs)
        else:
            output = func(input)
        if self._func_gen:
            output = fold(output)[1]
    finally:
        _current.reset(token)
    if isinstance(output, Runnable):
        runnable, child = recurse(output, self, input, config)
        return runnable.invoke(input, child)
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
        kwargs = {**kwargs, "config": config}
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
    """Async `call_func`: await the async function, or run the sync one in a worker thread."""
    if self.afunc is None:
        return await run_in_executor(self._call, input, config, kwargs)
    if self._afunc_config:
        kwargs = {**kwargs, "config": config}
    token = _current.set(config)
    try:
        if self._afunc_gen:
            output = (await afold(cast("AsyncIterator[Any]", self.afunc(input, **kwargs))))[1]
        else:
            output = await self.afunc(input, **kwargs)
    finally:
        _current.reset(token)
    if isinstance(output, Runnable):
        runnable, child = recurse(output, self, input, config)
        return await runnable.ainvoke(input, child)
    return output


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
            kwargs = {**kwargs, "config": config}
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
    yield await self._acall(input, config, kwargs)
