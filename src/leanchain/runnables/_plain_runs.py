"""A plain function's traced runs (`RunnableLambda` over a function of the input alone).

A traced parent that runs such a function as its child starts the child's run straight from
its own (`RunManager.start_child`): no config is made for the child in between, and only the
function's own child config is published while it runs. Events, tags and parents are those
of ``lambda.invoke(input, run.child_config(config, tag))``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from leanchain.runnables._chunks import add, close
from leanchain.runnables.base import Runnable
from leanchain.runnables.config import (
    DEFAULT_RECURSION_LIMIT,
    RunnableConfig,
    _current,
    patch_config,
)

if TYPE_CHECKING:
    from leanchain.callbacks.manager import RunManager

__all__ = ["invoke_plain", "recurse", "stream_plain"]

_NO_INPUT: Any = object()


def recurse(
    output: Runnable[Any, Any], runnable: Runnable[Any, Any], input: Any, config: RunnableConfig
) -> tuple[Runnable[Any, Any], RunnableConfig]:
    """`output` (a runnable a function returned) and the config to run it with.

    Raises:
        RecursionError: ``recursion_limit`` is used up.
    """
    limit = config.get("recursion_limit", DEFAULT_RECURSION_LIMIT)
    if limit <= 0:
        raise RecursionError(
            f"Recursion limit reached when invoking {runnable!r} with input {input}."
        )
    return output, patch_config(config, recursion_limit=limit - 1)


def invoke_plain(
    runnable: Runnable[Any, Any],
    func: Callable[[Any], Any],
    name: str,
    input: Any,
    config: RunnableConfig,
    run: RunManager,
    tag: str | None,
) -> Any:
    """``func(input)`` as a child run of `run` named `name` (`config` is `run`'s config)."""
    own = run.start_child(config, "chain", name, input, tag)
    child = own.child_config(config)
    try:
        token = _current.set(child)
        try:
            output = func(input)
        finally:
            _current.reset(token)
        if isinstance(output, Runnable):
            returned, grandchild = recurse(output, runnable, input, child)
            output = returned.invoke(input, grandchild)
    except BaseException as exc:
        own.on_error(exc)
        raise
    own.on_end(output)
    return output


def stream_plain(
    runnable: Runnable[Any, Any],
    func: Callable[[Any], Any],
    name: str,
    input: Iterator[Any],
    config: RunnableConfig,
    run: RunManager,
    tag: str | None,
) -> Iterator[Any]:
    """`func` over the summed `input` chunks as a streaming child run of `run`.

    The run starts at the first input chunk and ends with the summed input and output, as
    `Runnable._transform_with_config` runs do.
    """
    total_in = next(input, _NO_INPUT)
    own = run.start_child(config, "chain", name, "", tag)
    got, total = False, None
    chunks: Iterator[Any] | None = None
    try:
        if total_in is _NO_INPUT:
            total_in = None
        else:
            for chunk in input:
                total_in = add(total_in, chunk)
            child = own.child_config(config)
            token = _current.set(child)
            try:
                output = func(total_in)
            finally:
                _current.reset(token)
            if isinstance(output, Runnable):
                returned, grandchild = recurse(output, runnable, total_in, child)
                chunks = returned.stream(total_in, grandchild)
                for chunk in chunks:
                    own.on_stream(chunk)
                    total = chunk if not got else add(total, chunk)
                    got = True
                    yield chunk
            else:
                own.on_stream(output)
                total = output
                yield output
    except GeneratorExit:
        # The consumer stopped reading: an end with what it was given, not a failure.
        try:
            if chunks is not None:
                close(chunks)
        finally:
            own.on_end(total, inputs=total_in)
        raise
    except BaseException as exc:
        own.on_error(exc)
        raise
    own.on_end(total, inputs=total_in)
