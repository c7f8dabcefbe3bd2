"""What ``|`` accepts on either side, and how it becomes a runnable."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from leanchain.callbacks.manager import RunManager
    from leanchain.runnables.base import Runnable
    from leanchain.runnables.config import RunnableConfig

__all__ = ["RunnableLike", "coerce_to_runnable"]

_In_contra = TypeVar("_In_contra", contravariant=True)
_Out_co = TypeVar("_Out_co", covariant=True)


class _TakesConfig(Protocol[_In_contra, _Out_co]):
    """A function of the input that also takes the run's config as ``config=``."""

    def __call__(self, input: _In_contra, /, *, config: RunnableConfig) -> _Out_co: ...


class _TakesRunManager(Protocol[_In_contra, _Out_co]):
    """A function of the input that also takes its run's manager as ``run_manager=``."""

    def __call__(self, input: _In_contra, /, *, run_manager: RunManager) -> _Out_co: ...


RunnableLike = Any
"""A runnable, a callable, a generator function, or a dict of those (coerced by `|`)."""


def coerce_to_runnable(thing: Any) -> Runnable[Any, Any]:
    """A runnable from a runnable, generator function, callable or dict.

    Raises:
        TypeError: `thing` is none of those.
    """
    # Imported here: `base` imports this module while `Runnable` is being defined.
    from leanchain.runnables.base import Runnable

    if isinstance(thing, Runnable):
        return thing
    if inspect.isasyncgenfunction(thing) or inspect.isgeneratorfunction(thing):
        from leanchain.runnables.generator import RunnableGenerator

        return RunnableGenerator(thing)
    if callable(thing):
        from leanchain.runnables.lambdas import RunnableLambda

        return RunnableLambda(thing)
    if isinstance(thing, dict):
        from leanchain.runnables.parallel import RunnableParallel

        return RunnableParallel(thing)
    raise TypeError(
        f"Expected a Runnable, callable or dict.Instead got an unsupported type: {type(thing)}"
    )
