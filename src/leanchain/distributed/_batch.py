"""One batch in flight on Ray: what is left to submit, what runs, and what came back.

`RayRunner`'s sync and async views share this; they differ only in the queue that the
tasks' futures report to (`watch`): a thread-safe one, or an asyncio one fed through the loop.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, cast

from leanchain.distributed._errors import RemoteFailure, rebuild
from leanchain.distributed._progress import ProgressBar
from leanchain.runnables.config import RunnableConfig, get_config_list

if TYPE_CHECKING:
    from leanchain.distributed._runner import RayRunner

__all__ = ["TRAVELLING_KEYS", "Batch", "outcome", "portable_configs", "watch"]

TRAVELLING_KEYS = (
    "tags",
    "metadata",
    "configurable",
    "run_name",
    "recursion_limit",
    "max_concurrency",
)
"""The config keys sent with each item; callbacks and run ids stay in the caller's process."""


def portable_configs(
    config: RunnableConfig | Sequence[RunnableConfig] | None, length: int
) -> list[RunnableConfig]:
    """One config per item, keeping only what can cross processes (`TRAVELLING_KEYS`)."""
    given = config if isinstance(config, Sequence) else [config]
    if any(c and c.get("callbacks") for c in given):
        warnings.warn(
            "RayRunner does not run callbacks: they cannot cross to the Ray worker processes. "
            "Trace on the workers instead (e.g. set up tracing in a factory).",
            RuntimeWarning,
            stacklevel=4,
        )
    portable: dict[int, RunnableConfig] = {}
    configs: list[RunnableConfig] = []
    for item in get_config_list(config, length):
        kept = portable.get(id(item))
        if kept is None:
            kept = portable[id(item)] = cast(
                RunnableConfig, {k: v for k, v in item.items() if k in TRAVELLING_KEYS}
            )
        configs.append(kept)
    return configs


class Batch:
    """One batch in flight: what is left to submit, what runs, and what each result means.

    Items go out in groups of up to ``items_per_task`` consecutive items, one Ray task per
    group, while the items in flight stay within the limit.
    """

    __slots__ = (
        "_box",
        "_configs",
        "_group",
        "_inputs",
        "_limit",
        "_next",
        "_progress",
        "_ray",
        "_retry_on",
        "_running",
        "_show_progress",
        "_task",
        "_token",
        "inflight",
        "return_exceptions",
    )

    def __init__(
        self,
        runner: RayRunner[Any, Any],
        inputs: Sequence[Any],
        configs: list[RunnableConfig],
        return_exceptions: bool,
    ) -> None:
        self._ray = runner._ray
        self._task = runner._connect()
        self._token = runner._token
        self._retry_on = runner._retry_on
        self._box = [runner._put_payload()]
        self._inputs = inputs
        self._configs = configs
        limits = [n for n in (runner.max_concurrency, configs[0].get("max_concurrency")) if n]
        self._limit = min(limits) if limits else len(inputs)
        self._group = min(runner.items_per_task, self._limit)
        self._next = 0
        self._running = 0
        self._show_progress = runner.show_progress
        self._progress: ProgressBar | None = None
        self.inflight: dict[Any, range] = {}
        self.return_exceptions = return_exceptions

    def fill(self) -> list[Any]:
        """Submit groups while the limit allows; the new object refs."""
        if self._show_progress and self._progress is None:
            self._progress = ProgressBar(len(self._inputs))
        submitted = []
        total = len(self._inputs)
        while self._next < total:
            indices = range(self._next, min(self._next + self._group, total))
            if self._running + len(indices) > self._limit:
                break
            ref = self._task.remote(
                self._token,
                self._box,
                list(self._inputs[indices.start : indices.stop]),
                self._configs[indices.start : indices.stop],
                self._retry_on,
            )
            self._next = indices.stop
            self._running += len(indices)
            self.inflight[ref] = indices
            submitted.append(ref)
        return submitted

    def settle(
        self, ref: Any, values: list[Any] | None, error: BaseException | None
    ) -> Iterator[tuple[int, Any]]:
        """``(index, output or exception)`` for each item of a finished task; raises the first
        failure instead when exceptions are not returned."""
        indices = self.inflight.pop(ref)
        self._running -= len(indices)
        if error is not None:
            error = self._unwrap(error, indices)
        for position, index in enumerate(indices):
            value: Any = error if values is None else values[position]
            failed = error is not None or isinstance(value, RemoteFailure)
            if isinstance(value, RemoteFailure):
                value = rebuild(value, index)
            if self._progress is not None:
                self._progress.advance(failed=failed)
            if failed and not self.return_exceptions:
                raise value
            yield index, value

    def _unwrap(self, error: BaseException, indices: range) -> BaseException:
        """Ray's error for a task that did not report back: its cause when it has one."""
        cause = getattr(error, "cause", None)
        if isinstance(error, self._ray.exceptions.RayTaskError) and isinstance(cause, Exception):
            error = cause
        items = (
            f"item {indices.start}"
            if len(indices) == 1
            else f"items {indices.start} to {indices.stop - 1}"
        )
        error.add_note(f"Raised by {items} of a RayRunner batch.")
        return error

    def close(self) -> None:
        """Cancel what is still running (after a failure or an early exit); end the bar."""
        for ref in self.inflight:
            # Best effort: the task may have finished in the meantime.
            with contextlib.suppress(Exception):
                self._ray.cancel(ref)
        self.inflight.clear()
        if self._progress is not None:
            self._progress.close()


def watch(refs: list[Any], report: Callable[[tuple[Any, Future[Any]]], None]) -> None:
    """Have each ref's future call ``report((ref, future))`` when its task finishes."""
    for ref in refs:
        ref.future().add_done_callback(functools.partial(_report, report, ref))


def _report(
    report: Callable[[tuple[Any, Future[Any]]], None], ref: Any, future: Future[Any]
) -> None:
    report((ref, future))


def outcome(future: Future[Any]) -> tuple[Any, BaseException | None]:
    """``(values, None)`` for a task that reported back, ``(None, error)`` for one that did not."""
    error = future.exception()
    return (None, error) if error is not None else (future.result(), None)
