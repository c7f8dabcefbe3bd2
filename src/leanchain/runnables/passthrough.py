"""Passing input through: `RunnablePassthrough`, `.assign` (`RunnableAssign`), `.pick`."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, overload

from leanchain.callbacks.manager import RunManager
from leanchain.runnables._chunks import add
from leanchain.runnables.base import Runnable
from leanchain.runnables.concurrency import run_in_executor
from leanchain.runnables.config import RunnableConfig, config_for_user_code
from leanchain.runnables.parallel import RunnableParallel
from leanchain.runnables.utils import AddableDict, accepts_config

if TYPE_CHECKING:
    from pydantic import BaseModel

    from leanchain.runnables._configurable_specs import ConfigurableFieldSpec
    from leanchain.runnables.graph import Graph

__all__ = ["RunnableAssign", "RunnablePassthrough", "RunnablePick"]

T = TypeVar("T")

_NOT_DICT = "The input to RunnablePassthrough.assign() must be a dict."


class RunnablePassthrough(Runnable[T, T]):
    """Returns its input unchanged, optionally calling `func` with it for a side effect.

    While streaming, chunks pass through at once and `func` is called once at the end with
    the chunks added together.
    """

    __slots__ = ("_accepts_config", "afunc", "func", "input_type", "name")

    @overload
    def __init__(
        self: RunnablePassthrough[T],
        func: Callable[..., Any] | None = None,
        afunc: Callable[..., Any] | None = None,
        *,
        input_type: type[T],
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnablePassthrough[Any],
        func: Callable[..., Any] | None = None,
        afunc: Callable[..., Any] | None = None,
        *,
        input_type: None = None,
        name: str | None = None,
    ) -> None: ...

    def __init__(
        self,
        func: Callable[..., Any] | None = None,
        afunc: Callable[..., Any] | None = None,
        *,
        input_type: type[Any] | None = None,
        name: str | None = None,
    ) -> None:
        if func is not None and inspect.iscoroutinefunction(func):
            func, afunc = None, func
        self.func = func
        self.afunc = afunc
        self.input_type = input_type
        self.name = name
        self._accepts_config = func is not None and accepts_config(func)

    def __repr__(self) -> str:
        return "RunnablePassthrough()"

    @classmethod
    def assign(cls, **kwargs: Any) -> RunnableAssign:  # type: ignore[override]
        """A runnable that adds the computed keys to its dict input."""
        return RunnableAssign(RunnableParallel(kwargs))

    def _side_effect(self, value: Any, config: RunnableConfig) -> None:
        if self.func is not None:
            if self._accepts_config:
                self.func(value, config=config_for_user_code(config))
            else:
                self.func(value)

    async def _aside_effect(self, value: Any, config: RunnableConfig) -> None:
        if self.afunc is not None:
            if accepts_config(self.afunc):
                await self.afunc(value, config=config_for_user_code(config))
            else:
                await self.afunc(value)
        elif self.func is not None:
            await run_in_executor(self._side_effect, value, config)

    def invoke(self, input: T, config: RunnableConfig | None = None, **kwargs: Any) -> T:
        """`input`, after calling `func` with it."""
        if self.func is None:
            return self._call_with_config(lambda x, cfg, run: x, input, config)  # type: ignore[no-any-return]

        def run(x: Any, cfg: RunnableConfig, _: RunManager | None) -> Any:
            self._side_effect(x, cfg)
            return x

        return self._call_with_config(run, input, config)  # type: ignore[no-any-return]

    async def ainvoke(self, input: T, config: RunnableConfig | None = None, **kwargs: Any) -> T:
        """`input`, after awaiting `afunc` (or running `func`) with it."""

        async def run(x: Any, cfg: RunnableConfig, _: RunManager | None) -> Any:
            await self._aside_effect(x, cfg)
            return x

        return await self._acall_with_config(run, input, config)

    def _pass(
        self, chunks: Iterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> Iterator[Any]:
        got, total = False, None
        for chunk in chunks:
            yield chunk
            if self.func is not None:
                total = add(total, chunk) if got else chunk
                got = True
        if got:
            self._side_effect(total, config)

    def transform(
        self, input: Iterator[T], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[T]:
        """Yield each input chunk as it arrives."""
        return self._transform_with_config(input, self._pass, config)

    def stream(self, input: T, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[T]:
        """Yield the input."""
        return self.transform(iter((input,)), config)

    async def _apass(
        self, chunks: AsyncIterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> AsyncIterator[Any]:
        got, total = False, None
        async for chunk in chunks:
            yield chunk
            total = add(total, chunk) if got else chunk
            got = True
        if got:
            await self._aside_effect(total, config)

    def atransform(
        self, input: AsyncIterator[T], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[T]:
        """Async `transform`."""
        return self._atransform_with_config(input, self._apass, config)

    async def astream(
        self, input: T, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[T]:
        """Async `stream`: `atransform` over a single input."""
        async for chunk in self.atransform(_once(input), config):
            yield chunk

    @property
    def InputType(self) -> Any:
        """The declared input type (``Any`` by default)."""
        return self.input_type or Any

    @property
    def OutputType(self) -> Any:
        """Same as the input type."""
        return self.input_type or Any

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """``RunnablePassthrough``."""
        return super().get_name(suffix, name=name)


class RunnableAssign(Runnable[dict[str, Any], dict[str, Any]]):
    """``{**input, **mapper(input)}``: the input dict with computed keys added."""

    __slots__ = ("mapper", "name")

    def __init__(self, mapper: RunnableParallel[dict[str, Any]] | Mapping[str, Any]) -> None:
        self.mapper: RunnableParallel[dict[str, Any]] = (
            mapper if isinstance(mapper, RunnableParallel) else RunnableParallel(dict(mapper))
        )
        self.name: str | None = None

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """``RunnableAssign<k1,k2>``."""
        base = name or self.name or f"RunnableAssign<{','.join(self.mapper.steps__)}>"
        return f"{base}{suffix}" if suffix else base

    def __repr__(self) -> str:
        return f"RunnableAssign(mapper={self.mapper!r})"

    def _invoke(
        self, input: dict[str, Any], config: RunnableConfig, run: RunManager | None
    ) -> dict[str, Any]:
        if not isinstance(input, dict):
            raise ValueError(_NOT_DICT)
        steps = self.mapper.steps__
        if run is None and len(steps) == 1:
            # One key needs no parallel machinery: the common `assign(x=...)` stays cheap.
            key, step = next(iter(steps.items()))
            return {**input, key: step.invoke(input, config)}
        mapper_config = run.child_config(config, "seq:step:2") if run else config
        return {**input, **self.mapper.invoke(input, mapper_config)}

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The input with every mapped key computed and added."""
        return self._call_with_config(self._invoke, input, config)

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Async `invoke`."""

        async def run(x: Any, cfg: RunnableConfig, run: RunManager | None) -> dict[str, Any]:
            if not isinstance(x, dict):
                raise ValueError(_NOT_DICT)
            steps = self.mapper.steps__
            if run is None and len(steps) == 1:
                # As in `invoke`: one key is awaited in place, with no task of its own.
                key, step = next(iter(steps.items()))
                return {**x, key: await step.ainvoke(x, cfg)}
            mapper_config = run.child_config(cfg, "seq:step:2") if run else cfg
            return {**x, **(await self.mapper.ainvoke(x, mapper_config))}

        return await self._acall_with_config(run, input, config)

    def _stream(
        self, chunks: Iterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> Iterator[Any]:
        keys = set(self.mapper.steps__)
        collected: list[Any] = []
        for chunk in chunks:
            if not isinstance(chunk, dict):
                raise ValueError(_NOT_DICT)
            collected.append(chunk)
            passed = {k: v for k, v in chunk.items() if k not in keys}
            if passed:
                yield AddableDict(passed)
        mapper_config = run.child_config(config, "seq:step:2") if run else config
        yield from self.mapper.transform(iter(collected), mapper_config)

    def transform(
        self,
        input: Iterator[dict[str, Any]],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[dict[str, Any]]:
        """Stream the passed-through keys first, then the computed ones as they come."""
        return self._transform_with_config(input, self._stream, config)

    def stream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        """`transform` over a single input."""
        return self.transform(iter((input,)), config)

    async def _astream(
        self, chunks: AsyncIterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> AsyncIterator[Any]:
        keys = set(self.mapper.steps__)
        collected: list[Any] = []
        async for chunk in chunks:
            if not isinstance(chunk, dict):
                raise ValueError(_NOT_DICT)
            collected.append(chunk)
            passed = {k: v for k, v in chunk.items() if k not in keys}
            if passed:
                yield AddableDict(passed)

        async def replay() -> AsyncIterator[Any]:
            for item in collected:
                yield item

        mapper_config = run.child_config(config, "seq:step:2") if run else config
        async for out in self.mapper.atransform(replay(), mapper_config):
            yield out

    def atransform(
        self,
        input: AsyncIterator[dict[str, Any]],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        """Async `transform`."""
        return self._atransform_with_config(input, self._astream, config)

    async def astream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """Async `stream`: `atransform` over a single input."""
        async for chunk in self.atransform(_once(input), config):
            yield chunk

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The mapper's specs."""
        return self.mapper.config_specs

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The mapper's fields (the input's fields are not known in general)."""
        return self.mapper.get_output_schema(config)

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """The mapper's graph with a passthrough branch."""
        from leanchain.runnables.graph import Graph

        return Graph.of_assign(self, config)


class RunnablePick(Runnable[dict[str, Any], Any]):
    """One key's value (``None`` when missing), or a dict of the keys present (``None`` if none)."""

    __slots__ = ("keys", "name")

    def __init__(self, keys: str | list[str]) -> None:
        self.keys = keys
        self.name: str | None = None

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """``RunnablePick<k1,k2>``."""
        keys = [self.keys] if isinstance(self.keys, str) else self.keys
        base = name or self.name or f"RunnablePick<{','.join(keys)}>"
        return f"{base}{suffix}" if suffix else base

    def _pick(self, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError(_NOT_DICT)
        if isinstance(self.keys, str):
            return value.get(self.keys)
        picked = AddableDict({k: value[k] for k in self.keys if k in value})
        return picked or None

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """The picked value."""
        return self._call_with_config(lambda x, cfg, run: self._pick(x), input, config)

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """The picked value."""

        async def pick(x: Any, cfg: RunnableConfig, run: RunManager | None) -> Any:
            return self._pick(x)

        return await self._acall_with_config(pick, input, config)

    def _stream(
        self, chunks: Iterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> Iterator[Any]:
        for chunk in chunks:
            picked = self._pick(chunk)
            if picked is not None:
                yield picked

    def transform(
        self,
        input: Iterator[dict[str, Any]],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Pick from each chunk as it arrives, skipping chunks without the keys."""
        return self._transform_with_config(input, self._stream, config)

    def stream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """`transform` over a single input."""
        return self.transform(iter((input,)), config)

    async def _astream(
        self, chunks: AsyncIterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> AsyncIterator[Any]:
        async for chunk in chunks:
            picked = self._pick(chunk)
            if picked is not None:
                yield picked

    def atransform(
        self,
        input: AsyncIterator[dict[str, Any]],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Async `transform`."""
        return self._atransform_with_config(input, self._astream, config)

    async def astream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Async `stream`: `atransform` over a single input."""
        async for chunk in self.atransform(_once(input), config):
            yield chunk


async def _once(value: Any) -> AsyncIterator[Any]:
    yield value
