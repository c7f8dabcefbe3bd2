"""`RunnableParallel` (alias `RunnableMap`): the same input to several branches at once."""

from __future__ import annotations

import contextvars
import itertools
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from leanchain.callbacks.manager import RunManager
from leanchain.runnables._chunks import aclose
from leanchain.runnables._configurable_specs import ConfigurableFieldSpec, get_unique_config_specs
from leanchain.runnables.base import Input, Runnable, coerce_to_runnable
from leanchain.runnables.concurrency import arun_all, cancelled_here, run_all
from leanchain.runnables.config import RunnableConfig, strip_run_keys
from leanchain.runnables.utils import AddableDict

if TYPE_CHECKING:
    from pydantic import BaseModel

    from leanchain.runnables.graph import Graph

__all__ = ["RunnableMap", "RunnableParallel"]

_DONE = object()


class RunnableParallel(Runnable[Input, dict[str, Any]]):
    """Runs every branch on the same input and returns ``{key: branch output}`` in key order.

    Branches run concurrently (threads for sync calls, tasks for async ones), bounded by the
    config's ``max_concurrency``. Streaming yields ``{key: chunk}`` dicts as branches produce
    them.
    """

    __slots__ = ("name", "steps__")

    def __init__(
        self: RunnableParallel[Any], steps__: Mapping[str, Any] | None = None, /, **kwargs: Any
    ) -> None:
        merged = {**(steps__ or {}), **kwargs}
        self.steps__: dict[str, Runnable[Any, Any]] = {
            key: coerce_to_runnable(value) for key, value in merged.items()
        }
        self.name: str | None = None

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """``RunnableParallel<k1,k2>``."""
        base = name or self.name or f"RunnableParallel<{','.join(self.steps__)}>"
        return f"{base}{suffix}" if suffix else base

    def __repr__(self) -> str:
        inner = ",\n  ".join(f"{k}: {v!r}" for k, v in self.steps__.items())
        return "{\n  " + inner + "\n}"

    def _branch_configs(
        self, config: RunnableConfig, run: RunManager | None
    ) -> list[RunnableConfig]:
        if run is None:
            child = strip_run_keys(config)
            return [child] * len(self.steps__)
        return [run.child_config(config, f"map:key:{key}") for key in self.steps__]

    def _invoke(self, input: Any, config: RunnableConfig, run: RunManager | None) -> dict[str, Any]:
        configs = self._branch_configs(config, run)

        def task(step: Runnable[Any, Any], cfg: RunnableConfig) -> Callable[[], Any]:
            return lambda: step.invoke(input, cfg)

        tasks = [task(s, c) for s, c in zip(self.steps__.values(), configs, strict=True)]
        return dict(zip(self.steps__, run_all(tasks, config.get("max_concurrency")), strict=True))

    def invoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Run every branch; the first branch error propagates."""
        return self._call_with_config(self._invoke, input, config)

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Run every branch as a concurrent task."""

        async def run(x: Any, cfg: RunnableConfig, run: RunManager | None) -> dict[str, Any]:
            configs = self._branch_configs(cfg, run)
            tasks = [
                (lambda s=s, c=c: s.ainvoke(x, c))
                for s, c in zip(self.steps__.values(), configs, strict=True)
            ]
            results = await arun_all(tasks, cfg.get("max_concurrency"))
            return dict(zip(self.steps__, results, strict=True))

        return await self._acall_with_config(run, input, config)

    def _stream_branches(
        self, input: Iterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> Iterator[AddableDict]:
        keys = list(self.steps__)
        configs = self._branch_configs(config, run)
        inputs = _locked_tee(input, len(keys))
        if len(keys) == 1:
            for chunk in self.steps__[keys[0]].transform(inputs[0], configs[0]):
                yield AddableDict({keys[0]: chunk})
            return
        results: queue.SimpleQueue[tuple[str, Any, BaseException | None]] = queue.SimpleQueue()
        stop = threading.Event()

        def pump(key: str, it: Iterator[Any], cfg: RunnableConfig) -> None:
            chunks = self.steps__[key].transform(it, cfg)
            try:
                for chunk in chunks:
                    if stop.is_set():
                        # The consumer left, or another branch failed: the branch's generators
                        # end now (so its runs report their end), not when collected.
                        close = getattr(chunks, "close", None)
                        if close is not None:
                            close()
                        break
                    results.put((key, chunk, None))
            except BaseException as exc:
                results.put((key, None, exc))
                return
            results.put((key, _DONE, None))

        # Streaming branches get threads of their own: the consumer must stay free to yield,
        # and a pool thread waiting on its own queued work could starve.
        threads = []
        for key, it, cfg in zip(keys, inputs, configs, strict=True):
            ctx = contextvars.copy_context()
            thread = threading.Thread(
                target=ctx.run, args=(pump, key, it, cfg), name="leanchain-branch", daemon=True
            )
            thread.start()
            threads.append(thread)
        try:
            remaining = len(keys)
            while remaining:
                key, chunk, error = results.get()
                if error is not None:
                    raise error
                if chunk is _DONE:
                    remaining -= 1
                else:
                    yield AddableDict({key: chunk})
        finally:
            # As the async form cancels its tasks: when the stream is closed early or a branch
            # failed, every branch stops at its next chunk, and none outlives the stream.
            stop.set()
            for thread in threads:
                thread.join()

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        """Stream every branch at once, yielding ``{key: chunk}`` as chunks arrive."""
        return self._transform_with_config(input, self._stream_branches, config)

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        """`transform` over a single input."""
        return self.transform(iter((input,)), config)

    async def _astream_branches(
        self, input: AsyncIterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> AsyncIterator[AddableDict]:
        import asyncio

        keys = list(self.steps__)
        configs = self._branch_configs(config, run)
        inputs = _atee(input, len(keys))
        results: asyncio.Queue[tuple[str, Any, BaseException | None]] = asyncio.Queue()

        async def pump(key: str, it: AsyncIterator[Any], cfg: RunnableConfig) -> None:
            try:
                async for chunk in self.steps__[key].atransform(it, cfg):
                    results.put_nowait((key, chunk, None))
            except BaseException as exc:
                # A `BaseException` too: the consumer waits for this branch's last word.
                if cancelled_here(exc):
                    raise
                results.put_nowait((key, None, exc))
                return
            results.put_nowait((key, _DONE, None))

        tasks = [
            asyncio.ensure_future(pump(k, it, c))
            for k, it, c in zip(keys, inputs, configs, strict=True)
        ]
        try:
            remaining = len(keys)
            while remaining:
                key, chunk, error = await results.get()
                if error is not None:
                    raise error
                if chunk is _DONE:
                    remaining -= 1
                else:
                    yield AddableDict({key: chunk})
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """Async `transform`."""
        return self._atransform_with_config(input, self._astream_branches, config)

    async def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """Async `stream`."""

        async def single() -> AsyncIterator[Input]:
            yield input

        chunks = self.atransform(single(), config)
        try:
            async for chunk in chunks:
                yield chunk
        except BaseException:
            await aclose(chunks)
            raise

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """An object whose fields are the branches' output types."""
        from leanchain.runnables.schema import object_schema

        fields = {key: step.OutputType for key, step in self.steps__.items()}
        return object_schema(self.get_name("Output"), fields)

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The first branch that knows its input's shape, else ``Any``."""
        for step in self.steps__.values():
            schema = step.get_input_schema(config)
            if schema.model_json_schema().get("type") == "object":
                return schema
        return super().get_input_schema(config)

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The branches' specs, each id once."""
        return get_unique_config_specs(
            s for step in self.steps__.values() for s in step.config_specs
        )

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """A fan-out from a parallel input node to a parallel output node."""
        from leanchain.runnables.graph import Graph

        return Graph.of_parallel(self, config)


RunnableMap = RunnableParallel


def _locked_tee(source: Iterator[Any], n: int) -> list[Iterator[Any]]:
    """`itertools.tee` made safe for consumers in different threads."""
    if n == 1:
        return [source]
    lock = threading.Lock()
    copies = itertools.tee(source, n)

    def guarded(it: Iterator[Any]) -> Iterator[Any]:
        while True:
            with lock:
                try:
                    item = next(it)
                except StopIteration:
                    return
            yield item

    return [guarded(it) for it in copies]


def _atee(source: AsyncIterator[Any], n: int) -> list[AsyncIterator[Any]]:
    """Split an async iterator into `n` that each see every item."""
    import asyncio

    if n == 1:
        return [source]
    buffers: list[list[Any]] = [[] for _ in range(n)]
    lock = asyncio.Lock()
    finished = False

    async def copy(i: int) -> AsyncIterator[Any]:
        nonlocal finished
        while True:
            if not buffers[i]:
                async with lock:
                    if not buffers[i] and not finished:
                        try:
                            item = await anext(source)
                        except StopAsyncIteration:
                            finished = True
                        else:
                            for buffer in buffers:
                                buffer.append(item)
                if not buffers[i]:
                    return
            yield buffers[i].pop(0)

    return [copy(i) for i in range(n)]
