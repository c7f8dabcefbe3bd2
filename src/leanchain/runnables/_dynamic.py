"""`DynamicRunnable`: a runnable that chooses, per call, the concrete runnable to delegate to."""

from __future__ import annotations

import functools
from abc import abstractmethod
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from leanchain.callbacks.weak import WeakMemo
from leanchain.runnables.base import Input, Output, Runnable
from leanchain.runnables.concurrency import arun_all, run_all
from leanchain.runnables.config import RunnableConfig, ensure_config, get_config_list

if TYPE_CHECKING:
    from pydantic import BaseModel

    from leanchain.runnables._configurable_specs import ConfigurableFieldSpec
    from leanchain.runnables.graph import Graph

__all__ = ["DynamicRunnable"]


_slots_cache: WeakMemo[frozenset[str]] = WeakMemo()
"""Each class's slot names, held weakly (a user's class is not kept alive by it)."""


def _slots_of(cls: type) -> frozenset[str]:
    """Every slot name along the MRO: these never fall through to the default runnable."""
    names = _slots_cache.get(cls)
    if names is None:
        found: set[str] = set()
        for klass in cls.__mro__:
            slots = klass.__dict__.get("__slots__", ())
            found.update((slots,) if isinstance(slots, str) else slots)
        names = frozenset(found)
        _slots_cache.put(cls, names)
    return names


def _has_configurable(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("configurable"), dict)


class DynamicRunnable(Runnable[Input, Output]):
    """A runnable that picks the concrete runnable to run from each call's config."""

    __slots__ = ("default",)

    def __init__(self, default: Runnable[Input, Output]) -> None:
        self.default = default

    @abstractmethod
    def _prepare(self, config: RunnableConfig) -> tuple[Runnable[Input, Output], RunnableConfig]:
        """One level of choice: the runnable for `config`, and the config to run it with."""

    @property
    @abstractmethod
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """What this runnable reads from ``config["configurable"]``."""

    def prepare(
        self, config: RunnableConfig | None = None
    ) -> tuple[Runnable[Input, Output], RunnableConfig]:
        """The concrete runnable for `config` (through any nesting) and its config."""
        runnable: Runnable[Input, Output] = self
        config = ensure_config(config)
        while isinstance(runnable, DynamicRunnable):
            runnable, config = runnable._prepare(config)
        return runnable, config

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in _slots_of(type(self)):
            raise AttributeError(name)
        attr = getattr(self.default, name)
        if not callable(attr):
            return attr

        @functools.wraps(attr)
        def call_prepared(*args: Any, **kwargs: Any) -> Any:
            # A config that carries `configurable` picks the runnable the method runs on.
            config = kwargs.get("config")
            if _has_configurable(config):
                runnable, prepared = self.prepare(config)
                return getattr(runnable, name)(*args, **{**kwargs, "config": prepared})
            for i, arg in enumerate(args):
                if _has_configurable(arg):
                    runnable, prepared = self.prepare(arg)
                    return getattr(runnable, name)(*args[:i], prepared, *args[i + 1 :], **kwargs)
            return attr(*args, **kwargs)

        return call_prepared

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Invoke the runnable the config chooses."""
        runnable, config = self.prepare(config)
        return runnable.invoke(input, config, **kwargs)

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async `invoke`."""
        runnable, config = self.prepare(config)
        return await runnable.ainvoke(input, config, **kwargs)

    def _prepare_all(
        self, configs: list[RunnableConfig]
    ) -> list[tuple[Runnable[Input, Output], RunnableConfig]]:
        # One config shared by the whole batch chooses once, so the batch stays one batch.
        if all(c is configs[0] for c in configs):
            return [self.prepare(configs[0])] * len(configs)
        return [self.prepare(c) for c in configs]

    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """One batch of the chosen runnable when every item chooses the same; else per item."""
        if not inputs:
            return []
        configs = get_config_list(config, len(inputs))
        prepared = self._prepare_all(configs)
        first = prepared[0][0]
        if all(runnable is first for runnable, _ in prepared):
            return first.batch(
                inputs, [c for _, c in prepared], return_exceptions=return_exceptions, **kwargs
            )

        def task(runnable: Runnable[Input, Output], cfg: RunnableConfig, x: Input) -> Any:
            def run() -> Any:
                try:
                    return runnable.invoke(x, cfg, **kwargs)
                except Exception as exc:
                    if return_exceptions:
                        return exc
                    raise

            return run

        tasks = [task(r, c, x) for (r, c), x in zip(prepared, inputs, strict=True)]
        return run_all(tasks, configs[0].get("max_concurrency"))

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Async `batch`."""
        if not inputs:
            return []
        configs = get_config_list(config, len(inputs))
        prepared = self._prepare_all(configs)
        first = prepared[0][0]
        if all(runnable is first for runnable, _ in prepared):
            return await first.abatch(
                inputs, [c for _, c in prepared], return_exceptions=return_exceptions, **kwargs
            )

        def task(runnable: Runnable[Input, Output], cfg: RunnableConfig, x: Input) -> Any:
            async def run() -> Any:
                try:
                    return await runnable.ainvoke(x, cfg, **kwargs)
                except Exception as exc:
                    if return_exceptions:
                        return exc
                    raise

            return run

        tasks = [task(r, c, x) for (r, c), x in zip(prepared, inputs, strict=True)]
        return await arun_all(tasks, configs[0].get("max_concurrency"))

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream the chosen runnable."""
        runnable, config = self.prepare(config)
        return runnable.stream(input, config, **kwargs)

    def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async `stream`."""
        runnable, config = self.prepare(config)
        return runnable.astream(input, config, **kwargs)

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """The chosen runnable's `transform`."""
        runnable, config = self.prepare(config)
        return runnable.transform(input, config, **kwargs)

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """The chosen runnable's `atransform`."""
        runnable, config = self.prepare(config)
        return runnable.atransform(input, config, **kwargs)

    @property
    def InputType(self) -> Any:
        """The default runnable's input type."""
        return self.default.InputType

    @property
    def OutputType(self) -> Any:
        """The default runnable's output type."""
        return self.default.OutputType

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The input schema of the runnable `config` chooses."""
        runnable, config = self.prepare(config)
        return runnable.get_input_schema(config)

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The output schema of the runnable `config` chooses."""
        runnable, config = self.prepare(config)
        return runnable.get_output_schema(config)

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """The graph of the runnable `config` chooses."""
        runnable, config = self.prepare(config)
        return runnable.get_graph(config)
