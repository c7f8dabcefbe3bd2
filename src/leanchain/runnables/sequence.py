"""`RunnableSequence`: the result of ``a | b``; each step's output is the next step's input."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from leanchain.callbacks.manager import RunManager, astart_run, start_run
from leanchain.runnables._chunks import aclose
from leanchain.runnables._configurable_specs import ConfigurableFieldSpec, get_unique_config_specs
from leanchain.runnables.base import Input, Output, Runnable, coerce_to_runnable
from leanchain.runnables.config import (
    RunnableConfig,
    _current,
    ensure_config,
    strip_run_keys,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

    from leanchain.runnables.graph import Graph

__all__ = ["RunnableSequence"]

_NO_KWARGS: dict[str, Any] = {}


class RunnableSequence(Runnable[Input, Output]):
    """Steps run one after another; streaming flows through every step's `transform`.

    Nested sequences are flattened, so ``(a | b) | (c | d)`` has four steps. Call-time keyword
    arguments go to the first step only.
    """

    __slots__ = ("_rest", "_tags", "name", "steps")

    def __init__(self: RunnableSequence[Any, Any], *steps: Any, name: str | None = None) -> None:
        flat: list[Runnable[Any, Any]] = []
        for step in steps:
            runnable = coerce_to_runnable(step)
            if isinstance(runnable, RunnableSequence):
                flat.extend(runnable.steps)
            else:
                flat.append(runnable)
        if len(flat) < 2:
            raise ValueError(f"RunnableSequence must have at least 2 steps, got {len(flat)}")
        self.steps: tuple[Runnable[Any, Any], ...] = tuple(flat)
        self._rest = self.steps[1:]
        self._tags = tuple(f"seq:step:{i}" for i in range(1, len(flat) + 1))
        self.name = name

    @property
    def first(self) -> Runnable[Input, Any]:
        """The first step."""
        return self.steps[0]

    @property
    def middle(self) -> list[Runnable[Any, Any]]:
        """The steps between the first and the last."""
        return list(self.steps[1:-1])

    @property
    def last(self) -> Runnable[Any, Output]:
        """The last step."""
        return self.steps[-1]

    def __repr__(self) -> str:
        return "\n| ".join(repr(step) for step in self.steps)

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Run every step in order."""
        config = ensure_config(config)
        if config.get("callbacks"):
            run = start_run(config, "chain", self.get_name(), input)
            if run is not None:
                return self._invoke_traced(input, config, run, kwargs)
        config = strip_run_keys(config)
        # Publishing the config once lets every step see it as already current (no copies,
        # no context switches per step), and code inside the steps inherit it.
        token = _current.set(config)
        try:
            value = self.steps[0].invoke(input, config, **kwargs)
            for step in self._rest:
                value = step.invoke(value, config)
        finally:
            _current.reset(token)
        return value  # type: ignore[no-any-return]

    def _invoke_traced(
        self, input: Any, config: RunnableConfig, run: RunManager, kwargs: dict[str, Any]
    ) -> Output:
        tags = self._tags
        try:
            value = self.steps[0]._invoke_child(input, config, run, tags[0], kwargs)
            for i, step in enumerate(self._rest, 1):
                value = step._invoke_child(value, config, run, tags[i], _NO_KWARGS)
        except BaseException as exc:
            run.on_error(exc)
            raise
        run.on_end(value)
        return value  # type: ignore[no-any-return]

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Run every step in order, awaiting each."""
        config = ensure_config(config)
        run = (
            await astart_run(config, "chain", self.get_name(), input)
            if config.get("callbacks")
            else None
        )
        if run is None:
            config = strip_run_keys(config)
            value = await self.steps[0].ainvoke(input, config, **kwargs)
            for step in self._rest:
                value = await step.ainvoke(value, config)
            return value  # type: ignore[no-any-return]
        value = input
        try:
            for i, step in enumerate(self.steps):
                child = run.child_config(config, self._tags[i])
                extra = kwargs if i == 0 else {}
                value = await step.ainvoke(value, child, **extra)
        except BaseException as exc:
            await run.aon_error(exc)
            raise
        await run.aon_end(value)
        return value  # type: ignore[no-any-return]

    def _chain(
        self, input: Iterator[Any], config: RunnableConfig, run: RunManager | None, kwargs: Any
    ) -> Iterator[Any]:
        config = strip_run_keys(config)
        stream = input
        if run is None:
            for i, step in enumerate(self.steps):
                stream = step.transform(stream, config, **(kwargs if i == 0 else {}))
            return stream
        for i, step in enumerate(self.steps):
            stream = step._transform_child(
                stream, config, run, self._tags[i], kwargs if i == 0 else _NO_KWARGS
            )
        return stream

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Each step's `transform` over the previous step's: chunks flow as they are made."""
        return self._transform_with_config(
            input, lambda it, cfg, run: self._chain(it, cfg, run, kwargs), config
        )

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """`transform` over a single input."""
        return self.transform(iter((input,)), config, **kwargs)

    def _achain(
        self,
        input: AsyncIterator[Any],
        config: RunnableConfig,
        run: RunManager | None,
        kwargs: Any,
    ) -> AsyncIterator[Any]:
        config = strip_run_keys(config)
        stream = input
        for i, step in enumerate(self.steps):
            child = run.child_config(config, self._tags[i]) if run else config
            stream = step.atransform(stream, child, **(kwargs if i == 0 else {}))
        return stream

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async `transform`."""
        return self._atransform_with_config(
            input, lambda it, cfg, run: self._achain(it, cfg, run, kwargs), config
        )

    async def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async `stream`."""

        async def single() -> AsyncIterator[Input]:
            yield input

        chunks = self.atransform(single(), config, **kwargs)
        try:
            async for chunk in chunks:
                yield chunk
        except BaseException:
            await aclose(chunks)
            raise

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The steps' specs, each id once."""
        return get_unique_config_specs(s for step in self.steps for s in step.config_specs)

    @property
    def InputType(self) -> Any:
        """The first step's input type."""
        return self.steps[0].InputType

    @property
    def OutputType(self) -> Any:
        """The last step's output type."""
        return self.steps[-1].OutputType

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The first step's input schema."""
        return self.steps[0].get_input_schema(config)

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The last step's output schema."""
        return self.steps[-1].get_output_schema(config)

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """The steps' graphs joined end to end."""
        from leanchain.runnables.graph import Graph

        return Graph.of_sequence(self.steps, config)
