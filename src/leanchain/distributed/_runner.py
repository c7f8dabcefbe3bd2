"""`RayRunner`: run a runnable over many inputs on a Ray cluster as Ray tasks.

Each Ray task runs one item, or a group of ``items_per_task`` items on the worker's threads.
The driver keeps at most ``max_concurrency`` items in flight, submitting more as tasks
finish; Ray places each task on a worker with ``num_cpus_per_item`` CPUs free and retries it
when its worker dies. The sync and async views share one `_Batch`, which knows what is left
to submit and turns each finished task into ``(index, output or exception)`` pairs; they
differ only in the queue that the tasks' futures report to (a thread-safe one, or an asyncio
one fed through the loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import queue
import uuid
import warnings
from collections.abc import AsyncGenerator, Callable, Generator, Iterator, Mapping, Sequence
from concurrent.futures import Future
from typing import Any, Generic, Literal, TypeVar, cast, overload

from leanchain.distributed._errors import RemoteFailure, rebuild
from leanchain.distributed._progress import ProgressBar
from leanchain.distributed._worker import run_items
from leanchain.runnables.base import Runnable
from leanchain.runnables.config import RunnableConfig, get_config_list

__all__ = ["RayRunner"]

Input = TypeVar("Input")
Output = TypeVar("Output")

TRAVELLING_KEYS = (
    "tags",
    "metadata",
    "configurable",
    "run_name",
    "recursion_limit",
    "max_concurrency",
)
"""The config keys sent with each item; callbacks and run ids stay in the caller's process."""

_remote_run_items: Any = None


def _import_ray() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise ImportError(
            "RayRunner needs Ray, which is not installed: pip install 'leanchain[ray]'"
        ) from exc


def _remote(ray: Any) -> Any:
    """`run_items` as a Ray remote function (made once per process, exported once per job)."""
    global _remote_run_items
    if _remote_run_items is None:
        _remote_run_items = ray.remote(run_items)
    return _remote_run_items


def _portable_configs(
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


class _Batch:
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


class RayRunner(Generic[Input, Output]):
    """Runs a runnable over many inputs on a Ray cluster, as Ray tasks.

    Example::

        runner = RayRunner(build_agent, max_concurrency=8)  # built once per worker process
        outputs = runner.batch([{"input": q} for q in questions], return_exceptions=True)

    The runnable travels to the workers through Ray's serializer (cloudpickle). A zero-argument
    factory instead builds the runnable on each worker, once per worker process, so clients,
    connections and other live state are made there and never shipped. The config's tags,
    metadata, configurable values, run name and limits travel with each item; callbacks do
    not cross processes (a warning says so when given).

    Args:
        runnable: a runnable, or a zero-argument factory that returns one.
        address: the cluster to connect to (``"auto"``, ``"ray://head:10001"``, ...); with
            ``None`` an already initialized Ray is used, else a local one is started.
        num_cpus_per_item: the CPUs Ray reserves for each task (fractions allowed): one
            item's, or one group's with ``items_per_task``.
        max_concurrency: the most items in flight at once (default: as many as Ray places).
            A config's ``max_concurrency`` bounds a batch too; the smaller limit wins.
        max_retries: how often Ray retries an item whose worker died (``-1``: forever).
        retry_exceptions: also retry items that raise these exception types (``True``: any);
            by default only system failures (a dead worker or node) are retried.
        items_per_task: how many consecutive items one Ray task runs, concurrently on the
            worker's threads. Raise it for items that mostly wait (on a model, say): a worker
            then keeps many in flight and the dispatch cost is shared. A task that is retried
            runs its whole group again.
        show_progress: draw a progress bar on stderr while a batch runs.
        init_kwargs: more keyword arguments for ``ray.init`` (e.g. ``num_cpus``,
            ``runtime_env``), used when this runner starts or connects to Ray.

    Raises:
        ImportError: Ray is not installed.
        TypeError: `runnable` is neither a runnable nor callable.
        ValueError: a setting is out of range.
    """

    __slots__ = (
        "_is_factory",
        "_ray",
        "_retry_on",
        "_started",
        "_task",
        "_thing",
        "_token",
        "address",
        "init_kwargs",
        "items_per_task",
        "max_concurrency",
        "max_retries",
        "num_cpus_per_item",
        "show_progress",
    )

    def __init__(
        self,
        runnable: Runnable[Input, Output] | Callable[[], Runnable[Input, Output]],
        *,
        address: str | None = None,
        num_cpus_per_item: float = 1,
        max_concurrency: int | None = None,
        max_retries: int = 3,
        retry_exceptions: bool | Sequence[type[Exception]] = False,
        items_per_task: int = 1,
        show_progress: bool = False,
        init_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(runnable, Runnable) and not callable(runnable):
            raise TypeError(
                "RayRunner takes a Runnable or a zero-argument factory that returns one, "
                f"got {type(runnable).__name__}: {runnable!r}"
            )
        if num_cpus_per_item < 0:
            raise ValueError(f"num_cpus_per_item must be >= 0, got {num_cpus_per_item!r}")
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency!r}")
        if items_per_task < 1:
            raise ValueError(f"items_per_task must be at least 1, got {items_per_task!r}")
        if max_retries < -1:
            raise ValueError(f"max_retries must be -1 (forever) or more, got {max_retries!r}")
        if retry_exceptions is True:
            self._retry_on: tuple[type[BaseException], ...] = (Exception,)
        elif retry_exceptions is False:
            self._retry_on = ()
        else:
            self._retry_on = tuple(retry_exceptions)
            bad = [t for t in self._retry_on if not _is_exception_type(t)]
            if bad:
                raise ValueError(
                    f"retry_exceptions must be a bool or exception types, got {bad[0]!r}"
                )
        self._ray = _import_ray()
        self._thing = runnable
        self._is_factory = not isinstance(runnable, Runnable)
        self._token = uuid.uuid4().hex
        self._started = False
        self._task: Any = None
        self.address = address
        self.num_cpus_per_item = num_cpus_per_item
        self.max_concurrency = max_concurrency
        self.max_retries = max_retries
        self.items_per_task = items_per_task
        self.show_progress = show_progress
        self.init_kwargs = dict(init_kwargs or {})

    def __repr__(self) -> str:
        kind = "factory" if self._is_factory else "runnable"
        return (
            f"RayRunner({kind}={self._thing!r}, address={self.address!r}, "
            f"num_cpus_per_item={self.num_cpus_per_item!r}, "
            f"max_concurrency={self.max_concurrency!r}, max_retries={self.max_retries!r}, "
            f"items_per_task={self.items_per_task!r})"
        )

    # -- Ray ------------------------------------------------------------------------------------

    def _connect(self) -> Any:
        """The remote function with this runner's options, starting or joining Ray first."""
        ray = self._ray
        if not ray.is_initialized():
            kwargs = dict(self.init_kwargs)
            if self.address is None:
                kwargs.setdefault("include_dashboard", False)
            else:
                kwargs["address"] = self.address
            ray.init(**kwargs)
            self._started = True
            self._task = None
        if self._task is None:
            self._task = _remote(ray).options(
                num_cpus=self.num_cpus_per_item,
                max_retries=self.max_retries,
                retry_exceptions=list(self._retry_on) or False,
            )
        return self._task

    def _put_payload(self) -> Any:
        """The runnable or factory in the object store, once per batch."""
        try:
            return self._ray.put((self._is_factory, self._thing))
        except Exception as exc:
            raise TypeError(
                f"RayRunner could not serialize the {type(self._thing).__name__} for the "
                f"workers ({type(exc).__name__}, details above); pass a zero-argument factory "
                "that builds it on each worker instead"
            ) from exc

    def close(self) -> None:
        """Disconnect from Ray if this runner started or joined it (a cluster keeps running)."""
        if self._started:
            self._ray.shutdown()
            self._started = False
            self._task = None

    def __enter__(self) -> RayRunner[Input, Output]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- batches --------------------------------------------------------------------------------

    @overload
    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: Literal[False] = False,
    ) -> list[Output]: ...
    @overload
    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool,
    ) -> list[Output | Exception]: ...

    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
    ) -> list[Output] | list[Output | Exception]:
        """Run every input on the cluster; outputs in input order.

        With ``return_exceptions=True`` a failing item's exception takes its place in the
        list; otherwise the first failure to come back is raised and the rest are cancelled.
        """
        results: list[Any] = [None] * len(inputs)
        for index, value in self.batch_as_completed(
            inputs, config, return_exceptions=return_exceptions
        ):
            results[index] = value
        return results

    def batch_as_completed(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
    ) -> Generator[tuple[int, Output | Exception], None, None]:
        """Like `batch`, yielding ``(index, output)`` as items finish; closing it cancels the
        rest."""
        if not inputs:
            return _nothing()
        configs = _portable_configs(config, len(inputs))
        return self._completed(_Batch(self, inputs, configs, return_exceptions))

    @overload
    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: Literal[False] = False,
    ) -> list[Output]: ...
    @overload
    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool,
    ) -> list[Output | Exception]: ...

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
    ) -> list[Output] | list[Output | Exception]:
        """Async `batch`: waits on the cluster without blocking the event loop."""
        results: list[Any] = [None] * len(inputs)
        async with contextlib.aclosing(
            self.abatch_as_completed(inputs, config, return_exceptions=return_exceptions)
        ) as items:
            async for index, value in items:
                results[index] = value
        return results

    async def abatch_as_completed(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
    ) -> AsyncGenerator[tuple[int, Output | Exception], None]:
        """Async `batch_as_completed`."""
        if not inputs:
            return
        configs = _portable_configs(config, len(inputs))
        if not self._ray.is_initialized():
            # Starting Ray takes seconds: not on the event loop's thread (Ray then logs that
            # it sets no SIGTERM handler; a runner used from sync code first avoids that).
            await asyncio.to_thread(self._connect)
        batch = _Batch(self, inputs, configs, return_exceptions)
        async with contextlib.aclosing(self._acompleted(batch)) as items:
            async for item in items:
                yield item

    def _completed(self, batch: _Batch) -> Generator[tuple[int, Any], None, None]:
        # Each task's future reports to one queue as it finishes: O(1) per item, where
        # `ray.wait` over everything in flight would cost O(n) per item.
        done: queue.SimpleQueue[tuple[Any, Future[Any]]] = queue.SimpleQueue()
        try:
            _watch(batch.fill(), done.put)
            while batch.inflight:
                ref, future = done.get()
                yield from batch.settle(ref, *_outcome(future))
                _watch(batch.fill(), done.put)
        finally:
            batch.close()

    async def _acompleted(self, batch: _Batch) -> AsyncGenerator[tuple[int, Any], None]:
        loop = asyncio.get_running_loop()
        done: asyncio.Queue[tuple[Any, Future[Any]]] = asyncio.Queue()

        def report(item: tuple[Any, Future[Any]]) -> None:
            # Called on Ray's thread; the loop may be gone when a cancelled task reports late.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(done.put_nowait, item)

        try:
            _watch(batch.fill(), report)
            while batch.inflight:
                ref, future = await done.get()
                for item in batch.settle(ref, *_outcome(future)):
                    yield item
                _watch(batch.fill(), report)
        finally:
            batch.close()


def _watch(refs: list[Any], report: Callable[[tuple[Any, Future[Any]]], None]) -> None:
    """Have each ref's future call ``report((ref, future))`` when its task finishes."""
    for ref in refs:
        ref.future().add_done_callback(functools.partial(_report, report, ref))


def _report(
    report: Callable[[tuple[Any, Future[Any]]], None], ref: Any, future: Future[Any]
) -> None:
    report((ref, future))


def _outcome(future: Future[Any]) -> tuple[Any, BaseException | None]:
    """``(values, None)`` for a task that reported back, ``(None, error)`` for one that did not."""
    error = future.exception()
    return (None, error) if error is not None else (future.result(), None)


def _nothing() -> Generator[tuple[int, Any], None, None]:
    yield from ()


def _is_exception_type(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, Exception)
