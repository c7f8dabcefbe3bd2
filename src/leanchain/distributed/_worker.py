"""What runs inside a Ray worker process: find (or build) the runnable, run one item.

The runnable, or the factory that builds it, travels once per batch through Ray's object
store. A worker fetches and builds it the first time it runs an item of that runner and keeps
it in a small per-process cache keyed by the runner's token, so a factory runs once per worker
process however many items and batches that process runs. This module is imported on workers
by reference; it must not import ray at import time.
"""

from __future__ import annotations

import importlib
from collections import OrderedDict
from typing import Any

from leanchain.distributed._errors import capture
from leanchain.runnables.base import Runnable
from leanchain.runnables.config import RunnableConfig

__all__ = ["CACHE_SIZE", "Payload", "run_item"]

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


def run_item(
    token: str,
    box: list[Any],
    input: Any,
    config: RunnableConfig,
    retry_on: tuple[type[BaseException], ...],
) -> Any:
    """Run one item; its output, or a `RemoteFailure` describing its exception.

    Args:
        token: the runner's id, the key of the per-process cache.
        box: a one-element list holding the payload's object ref (a ref nested in a list
            is not fetched by Ray before the call, so a cached worker never fetches it).
        input: the item.
        config: the item's portable config (no callbacks).
        retry_on: exception types to raise instead of report, so that Ray retries the task.
    """
    try:
        return _runnable(token, box).invoke(input, config)
    except Exception as exc:
        if retry_on and isinstance(exc, retry_on):
            raise
        return capture(exc)
