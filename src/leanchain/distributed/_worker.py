"""What runs inside a Ray worker process: find (or build) the runnable, run a group of items.

The runnable, or the factory that builds it, travels once per batch through Ray's object
store. A worker fetches and builds it the first time it runs an item of that runner and keeps
it in a small per-process cache keyed by the runner's token, so a factory runs once per worker
process however many items and batches that process runs. This module is imported on workers
by reference; it must not import ray at import time.
"""

from __future__ import annotations

import functools
import importlib
from collections import OrderedDict
from typing import Any

from leanchain.distributed._errors import capture
from leanchain.runnables.base import Runnable
from leanchain.runnables.concurrency import run_all
from leanchain.runnables.config import RunnableConfig

__all__ = ["CACHE_SIZE", "Payload", "run_items"]

CACHE_SIZE = 16
"""How many runners' runnables one worker process keeps (least recently used goes first)."""

Payload = tuple[bool, Any]
"""``(is_factory, runnable_or_factory)``, as put in the object store."""

_built: OrderedDict[str, Runnable[Any, Any]] = OrderedDict()


def _runnable(token: str, box: list[Any]) -> Runnable[Any, Any]:
    """The runner's runnable in this process, built on first use."""
    found = _built.get(token)
    if found is not None:
        _built.move_to_end(token)
        return found
    ray: Any = importlib.import_module("ray")
    is_factory, thing = ray.get(box[0])
    runnable = thing() if is_factory else thing
    if not isinstance(runnable, Runnable):
        raise TypeError(
            f"RayRunner's factory must return a Runnable, got {type(runnable).__name__}: "
            f"{runnable!r}"
        )
    _built[token] = runnable
    if len(_built) > CACHE_SIZE:
        _built.popitem(last=False)
    return runnable


def _invoke(
    runnable: Runnable[Any, Any],
    input: Any,
    config: RunnableConfig,
    retry_on: tuple[type[BaseException], ...],
) -> Any:
    try:
        return runnable.invoke(input, config)
    except Exception as exc:
        if retry_on and isinstance(exc, retry_on):
            raise
        return capture(exc)


def run_items(
    token: str,
    box: list[Any],
    inputs: list[Any],
    configs: list[RunnableConfig],
    retry_on: tuple[type[BaseException], ...],
) -> list[Any]:
    """Run a group of items, concurrently on this process's threads when there are several.

    Returns one entry per item: its output, or a `RemoteFailure` describing its exception.

    Args:
        token: the runner's id, the key of the per-process cache.
        box: a one-element list holding the payload's object ref (a ref nested in a list
            is not fetched by Ray before the call, so a cached worker never fetches it).
        inputs: the items.
        configs: their portable configs (no callbacks).
        retry_on: exception types to raise instead of report, so that Ray retries the task
            (the whole group).
    """
    try:
        runnable = _runnable(token, box)
    except Exception as exc:
        if retry_on and isinstance(exc, retry_on):
            raise
        return [capture(exc)] * len(inputs)
    if len(inputs) == 1:
        return [_invoke(runnable, inputs[0], configs[0], retry_on)]
    return run_all(
        [
            functools.partial(_invoke, runnable, input, config, retry_on)
            for input, config in zip(inputs, configs, strict=True)
        ]
    )
