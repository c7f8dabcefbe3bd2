"""`RunnableBranch`: run the first branch whose condition holds, else the default."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from leanchain.callbacks.manager import RunManager, astart_run, start_run
from leanchain.runnables._chunks import aclose, add, close
from leanchain.runnables._configurable_specs import ConfigurableFieldSpec, get_unique_config_specs
from leanchain.runnables.base import Input, Output, Runnable, coerce_to_runnable
from leanchain.runnables.config import RunnableConfig, ensure_config, strip_run_keys

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["RunnableBranch"]


def _child(config: RunnableConfig, run: RunManager | None, tag: str) -> RunnableConfig:
    return run.child_config(config, tag) if run is not None else strip_run_keys(config)


class RunnableBranch(Runnable[Input, Output]):
    """Evaluates ``(condition, runnable)`` pairs in order and runs the first that holds.

    ``RunnableBranch((is_int, add_one), (is_str, upper), default)``: conditions and branches
    are coerced like the operands of ``|``. When no condition holds the default runs.
    Conditions get callback tag ``condition:{i}``, branches ``branch:{i}`` (1-based) and the
    default ``branch:default``. Call-time keyword arguments go to the chosen branch only.
    """

    __slots__ = ("branches", "default", "name")

    def __init__(self, *branches: Any, name: str | None = None) -> None:
        """Build the branch from pairs followed by the default.

        Raises:
            ValueError: fewer than two arguments, or a pair that is not of length 2.
            TypeError: a default that is not a runnable, callable or mapping, or a pair that is
                not a tuple or list.
        """
        if len(branches) < 2:
            raise ValueError("RunnableBranch requires at least two branches")
        default = branches[-1]
        if not (isinstance(default, Runnable | Mapping) or callable(default)):
            raise TypeError("RunnableBranch default must be Runnable, callable or mapping.")
        pairs: list[tuple[Runnable[Input, Any], Runnable[Input, Output]]] = []
        for branch in branches[:-1]:
            if not isinstance(branch, tuple | list):
                raise TypeError(
                    f"RunnableBranch branches must be tuples or lists, not {type(branch)}"
                )
            if len(branch) != 2:
                raise ValueError(
                    "RunnableBranch branches must be tuples or lists of length 2, "
                    f"not {len(branch)}"
                )
            condition, runnable = branch
            pairs.append((coerce_to_runnable(condition), coerce_to_runnable(runnable)))
        self.branches: tuple[tuple[Runnable[Input, Any], Runnable[Input, Output]], ...] = tuple(
            pairs
        )
        self.default: Runnable[Input, Output] = coerce_to_runnable(default)
        self.name = name

    def __repr__(self) -> str:
        pairs = ", ".join(f"({c!r}, {r!r})" for c, r in self.branches)
        return f"RunnableBranch({pairs}, {self.default!r})"

    # -- choosing ---------------------------------------------------------------------------

    def _choose(
        self, input: Any, config: RunnableConfig, run: RunManager | None
    ) -> tuple[Runnable[Input, Output], RunnableConfig]:
        for i, (condition, runnable) in enumerate(self.branches, start=1):
            if condition.invoke(input, _child(config, run, f"condition:{i}")):
                return runnable, _child(config, run, f"branch:{i}")
        return self.default, _child(config, run, "branch:default")

    async def _achoose(
        self, input: Any, config: RunnableConfig, run: RunManager | None
    ) -> tuple[Runnable[Input, Output], RunnableConfig]:
        for i, (condition, runnable) in enumerate(self.branches, start=1):
            if await condition.ainvoke(input, _child(config, run, f"condition:{i}")):
                return runnable, _child(config, run, f"branch:{i}")
        return self.default, _child(config, run, "branch:default")

    # -- running ----------------------------------------------------------------------------

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Invoke the first branch whose condition is truthy, else the default."""
        config = ensure_config(config)
        run = (
            start_run(config, "chain", self.get_name(), input) if config.get("callbacks") else None
        )
        try:
            runnable, child = self._choose(input, config, run)
            output = runnable.invoke(input, child, **kwargs)
        except BaseException as exc:
            if run is not None:
                run.on_error(exc)
            raise
        if run is not None:
            run.on_end(output)
        return output

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async `invoke`: conditions and the branch are awaited."""
        config = ensure_config(config)
        run = (
            await astart_run(config, "chain", self.get_name(), input)
            if config.get("callbacks")
            else None
        )
        try:
            runnable, child = await self._achoose(input, config, run)
            output = await runnable.ainvoke(input, child, **kwargs)
        except BaseException as exc:
            if run is not None:
                await run.aon_error(exc)
            raise
        if run is not None:
            await run.aon_end(output)
        return output

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream the chosen branch's chunks as it makes them."""
        config = ensure_config(config)
        run = (
            start_run(config, "chain", self.get_name(), input) if config.get("callbacks") else None
        )
        if run is None:
            runnable, child = self._choose(input, config, None)
            yield from runnable.stream(input, child, **kwargs)
            return
        got, total = False, None
        chunks: Iterator[Output] | None = None
        try:
            runnable, child = self._choose(input, config, run)
            chunks = runnable.stream(input, child, **kwargs)
            for chunk in chunks:
                run.emit("on_chain_stream", chunk)
                total = add(total, chunk) if got else chunk
                got = True
                yield chunk
        except GeneratorExit:
            # The consumer stopped reading: an end with what it was given, not a failure.
            try:
                if chunks is not None:
                    close(chunks)
            finally:
                run.on_end(total)
            raise
        except BaseException as exc:
            run.on_error(exc)
            raise
        run.on_end(total)

    async def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async `stream`."""
        config = ensure_config(config)
        run = (
            await astart_run(config, "chain", self.get_name(), input)
            if config.get("callbacks")
            else None
        )
        if run is None:
            runnable, child = await self._achoose(input, config, None)
            async for chunk in runnable.astream(input, child, **kwargs):
                yield chunk
            return
        got, total = False, None
        chunks: AsyncIterator[Output] | None = None
        try:
            runnable, child = await self._achoose(input, config, run)
            chunks = runnable.astream(input, child, **kwargs)
            async for chunk in chunks:
                await run.aemit("on_chain_stream", chunk)
                total = add(total, chunk) if got else chunk
                got = True
                yield chunk
        except GeneratorExit:
            try:
                if chunks is not None:
                    await aclose(chunks)
            finally:
                await run.aon_end(total)
            raise
        except BaseException as exc:
            await run.aon_error(exc)
            raise
        await run.aon_end(total)

    # -- types ------------------------------------------------------------------------------

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The specs of the conditions, the branches and the default, each id once."""
        return get_unique_config_specs(
            s
            for runnable in (*(r for pair in self.branches for r in pair), self.default)
            for s in runnable.config_specs
        )

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The first input schema with a type among the default, the branches, the conditions."""
        candidates = [
            self.default,
            *(runnable for _, runnable in self.branches),
            *(condition for condition, _ in self.branches),
        ]
        for runnable in candidates:
            schema = runnable.get_input_schema(config)
            if schema.model_json_schema().get("type") is not None:
                return schema
        return super().get_input_schema(config)
