"""A batch as tasks: one closure per input, each invoking the runnable with its own config.

`Runnable.batch` and friends hand these to the executor (`concurrency.run_all` and its kin),
which bounds them by the batch's ``max_concurrency``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from leanchain.runnables.config import RunnableConfig, get_config_list

if TYPE_CHECKING:
    from leanchain.runnables.base import Runnable

__all__ = ["abatch_tasks", "batch_tasks"]


def batch_tasks(
    self: Runnable[Any, Any],
    inputs: Sequence[Any],
    config: RunnableConfig | Sequence[RunnableConfig] | None,
    return_exceptions: bool,
    kwargs: dict[str, Any],
) -> tuple[list[Callable[[], Any]], int | None]:
    """One task per input calling `invoke`, and the batch's ``max_concurrency``.

    With `return_exceptions`, a task returns its exception instead of raising it.
    """
    configs = get_config_list(config, len(inputs))
    invoke = self.invoke

    def task(i: int) -> Callable[[], Any]:
        def run() -> Any:
            if not return_exceptions:
                return invoke(inputs[i], configs[i], **kwargs)
            try:
                return invoke(inputs[i], configs[i], **kwargs)
            except Exception as exc:
                return exc

        return run

    limit = configs[0].get("max_concurrency") if configs else None
    return [task(i) for i in range(len(inputs))], limit


def abatch_tasks(
    self: Runnable[Any, Any],
    inputs: Sequence[Any],
    config: RunnableConfig | Sequence[RunnableConfig] | None,
    return_exceptions: bool,
    kwargs: dict[str, Any],
) -> tuple[list[Callable[[], Awaitable[Any]]], int | None]:
    """Async `batch_tasks`: one coroutine function per input calling `ainvoke`."""
    configs = get_config_list(config, len(inputs))
    ainvoke = self.ainvoke

    def task(i: int) -> Callable[[], Awaitable[Any]]:
        async def run() -> Any:
            if not return_exceptions:
                return await ainvoke(inputs[i], configs[i], **kwargs)
            try:
                return await ainvoke(inputs[i], configs[i], **kwargs)
            except Exception as exc:
                return exc

        return run

    limit = configs[0].get("max_concurrency") if configs else None
    return [task(i) for i in range(len(inputs))], limit
