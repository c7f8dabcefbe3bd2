"""`RunnableGenerator`: a generator function over the stream of input chunks."""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar, overload

from leanchain.callbacks.manager import RunManager
from leanchain.runnables._chunks import aclose, afold, fold
from leanchain.runnables.base import Input, Output, Runnable
from leanchain.runnables.concurrency import run_in_executor
from leanchain.runnables.config import RunnableConfig, _current, config_for_user_code
from leanchain.runnables.utils import accepts_config

__all__ = ["SYNC_STREAM", "RunnableGenerator"]

SYNC_STREAM = "Cannot stream a coroutine function synchronously.Use `astream` instead."

In = TypeVar("In")
Out = TypeVar("Out")


class RunnableGenerator(Runnable[Input, Output]):
    """A generator function over the stream of input chunks: keeps a pipeline streaming."""

    __slots__ = ("_agen", "_agen_config", "_gen", "_gen_config", "name")

    @overload
    def __init__(
        self: RunnableGenerator[In, Out],
        transform: Callable[[AsyncIterator[In]], AsyncIterator[Out]],
        atransform: None = None,
        *,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableGenerator[In, Out],
        transform: Callable[[Iterator[In]], Iterator[Out]],
        atransform: Callable[[AsyncIterator[In]], AsyncIterator[Out]] | None = None,
        *,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableGenerator[Any, Any],
        transform: Callable[..., Any],
        atransform: Callable[..., AsyncIterator[Any]] | None = None,
        *,
        name: str | None = None,
    ) -> None: ...

    def __init__(
        self,
        transform: Callable[..., Any],
        atransform: Callable[..., AsyncIterator[Any]] | None = None,
        *,
        name: str | None = None,
    ) -> None:
        self._gen: Callable[..., Iterator[Any]] | None
        self._agen: Callable[..., AsyncIterator[Any]] | None
        if inspect.isasyncgenfunction(transform):
            self._gen, self._agen = None, transform
        elif inspect.isgeneratorfunction(transform):
            self._gen, self._agen = transform, atransform
        else:
            raise TypeError(
                "Expected a generator function type for `transform`."
                f"Instead got an unsupported type: {type(transform)}"
            )
        self._gen_config = self._gen is not None and accepts_config(self._gen)
        self._agen_config = self._agen is not None and accepts_config(self._agen)
        self.name = name or getattr(transform, "__name__", None)

    def __repr__(self) -> str:
        return f"RunnableGenerator({self.get_name()})"

    def _run(
        self, input: Iterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> Iterator[Any]:
        if self._gen is None:
            raise TypeError(SYNC_STREAM)
        if self._gen_config:
            gen = self._gen(input, config=config_for_user_code(config))
        else:
            gen = self._gen(input)
        if not config:
            yield from gen
            return
        ctx = contextvars.copy_context()
        ctx.run(_current.set, config)
        while True:
            try:
                chunk = ctx.run(next, gen)
            except StopIteration:
                return
            yield chunk

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """The generator over the input chunks."""
        return self._transform_with_config(input, self._run, config)

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """The generator over a single input."""
        return self.transform(iter((input,)), config)

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """All the generator's chunks added together."""
        return fold(self.stream(input, config))[1]  # type: ignore[no-any-return]

    async def _arun(
        self, input: AsyncIterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> AsyncIterator[Any]:
        if self._agen is not None:
            if self._agen_config:
                gen = self._agen(input, config=config_for_user_code(config))
            else:
                gen = self._agen(input)
            token = _current.set(config)
            try:
                async for chunk in gen:
                    yield chunk
            finally:
                _current.reset(token)
            return
        items = [item async for item in input]
        for chunk in await run_in_executor(lambda: list(self._run(iter(items), config, run))):
            yield chunk

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """The async generator over the input chunks (a sync one runs in a worker thread)."""
        return self._atransform_with_config(input, self._arun, config)

    async def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """The async generator over a single input."""

        async def single() -> AsyncIterator[Input]:
            yield input

        chunks = self.atransform(single(), config)
        try:
            async for chunk in chunks:
                yield chunk
        except BaseException:
            await aclose(chunks)
            raise

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """All the async generator's chunks added together."""
        return (await afold(self.astream(input, config)))[1]  # type: ignore[no-any-return]
