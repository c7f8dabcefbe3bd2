"""`@chain`: a function becomes a `RunnableLambda`, keeping its types."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, overload

from typing_extensions import TypeVar

from leanchain.runnables._coerce import _TakesConfig, _TakesRunManager
from leanchain.runnables.lambdas import RunnableLambda

__all__ = ["chain"]

In = TypeVar("In")
Out = TypeVar("Out")


@overload
def chain(func: Callable[[In], AsyncIterator[Out]]) -> RunnableLambda[In, Out]: ...
@overload
def chain(func: Callable[[In], Coroutine[Any, Any, Out]]) -> RunnableLambda[In, Out]: ...
@overload
def chain(func: Callable[[In], Iterator[Out]]) -> RunnableLambda[In, Out]: ...
@overload
def chain(func: Callable[[In], Out]) -> RunnableLambda[In, Out]: ...
@overload
def chain(func: _TakesConfig[In, Out]) -> RunnableLambda[In, Out]: ...
@overload
def chain(func: _TakesRunManager[In, Out]) -> RunnableLambda[In, Out]: ...


def chain(func: Callable[..., Any]) -> RunnableLambda[Any, Any]:
    """Decorate a function to make it a `RunnableLambda`."""
    return RunnableLambda(func)
