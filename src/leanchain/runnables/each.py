"""`RunnableEach`: a runnable over a list, running another runnable on every item."""

from __future__ import annotations

from typing import Any

from leanchain.runnables._configurable_specs import ConfigurableFieldSpec
from leanchain.runnables.base import Input, Output, Runnable
from leanchain.runnables.config import RunnableConfig

__all__ = ["RunnableEach"]


class RunnableEach(Runnable[list[Input], list[Output]]):
    """Runs `bound` on every item of a list input, as `bound.batch` (LangChain's RunnableEach).

    Each item gets the same config (a child of this run when callbacks are attached), and
    ``max_concurrency`` bounds the items. The first failing item raises its exception. It does
    not stream item by item: a stream yields the whole list once.
    """

    __slots__ = ("bound", "name")

    def __init__(self, *, bound: Runnable[Input, Output]) -> None:
        self.bound = bound
        self.name: str | None = None

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """``RunnableEach<bound name>``, as LangChain names it."""
        base = name or self.name or f"RunnableEach<{self.bound.get_name()}>"
        return super().get_name(suffix, name=base)

    def invoke(
        self, input: list[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Output]:
        """`bound.batch` over the items of `input`."""
        return self._call_with_config(
            lambda x, cfg, run: self.bound.batch(x, cfg, **kwargs), input, config
        )

    async def ainvoke(
        self, input: list[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Output]:
        """`bound.abatch` over the items of `input`."""
        return await self._acall_with_config(
            lambda x, cfg, run: self.bound.abatch(x, cfg, **kwargs), input, config
        )

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The bound runnable's specs."""
        return self.bound.config_specs

    @property
    def InputType(self) -> Any:
        """A list of the bound runnable's input type."""
        return list[self.bound.InputType]  # type: ignore[name-defined]

    @property
    def OutputType(self) -> Any:
        """A list of the bound runnable's output type."""
        return list[self.bound.OutputType]  # type: ignore[name-defined]
