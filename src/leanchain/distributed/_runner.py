"""`RayRunner`: run a runnable over many inputs on a Ray cluster as Ray tasks.

Each Ray task runs one item, or a group of ``items_per_task`` items on the worker's threads.
The driver keeps at most ``max_concurrency`` items in flight, submitting more as tasks
finish; Ray places each task on a worker with ``num_cpus_per_item`` CPUs free and retries it
when its worker dies. What a batch has left to submit and what its results mean is `Batch`'s
business (`_batch`); this module holds the settings, the connection to Ray, and the sync and
async loops that wait for tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import queue
import uuid
from collections.abc import AsyncGenerator, Callable, Generator, Mapping, Sequence
from concurrent.futures import Future
from typing import Any, Generic, Literal, TypeVar, overload

from leanchain.distributed._batch import Batch, outcome, portable_configs, watch
from leanchain.distributed._worker import run_items
from leanchain.runnables.base import Runnable
from leanchain.runnables.config import RunnableConfig

__all__ = ["RayRunner"]

Input = TypeVar("Input")
Output = TypeVar("Output")

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
        configs = portable_configs(config, len(inputs))
        return self._completed(Batch(self, inputs, configs, return_exceptions))

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
        configs = portable_configs(config, len(inputs))
        if not self._ray.is_initialized():
            # Starting Ray takes seconds: not on the event loop's thread (Ray then logs that
            # it sets no SIGTERM handler; a runner used from sync code first avoids that).
            await asyncio.to_thread(self._connect)
        batch = Batch(self, inputs, configs, return_exceptions)
        async with contextlib.aclosing(self._acompleted(batch)) as items:
            async for item in items:
                yield item

    def _completed(self, batch: Batch) -> Generator[tuple[int, Any], None, None]:
        # Each task's future reports to one queue as it finishes: O(1) per item, where
        # `ray.wait` over everything in flight would cost O(n) per item.
        done: queue.SimpleQueue[tuple[Any, Future[Any]]] = queue.SimpleQueue()
        try:
            watch(batch.fill(), done.put)
            while batch.inflight:
                ref, future = done.get()
                yield from batch.settle(ref, *outcome(future))
                watch(batch.fill(), done.put)
        finally:
            batch.close()

    async def _acompleted(self, batch: Batch) -> AsyncGenerator[tuple[int, Any], None]:
        loop = asyncio.get_running_loop()
        done: asyncio.Queue[tuple[Any, Future[Any]]] = asyncio.Queue()

        def report(item: tuple[Any, Future[Any]]) -> None:
            # Called on Ray's thread; the loop may be gone when a cancelled task reports late.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(done.put_nowait, item)

        try:
            watch(batch.fill(), report)
            while batch.inflight:
                ref, future = await done.get()
                for item in batch.settle(ref, *outcome(future)):
                    yield item
                watch(batch.fill(), report)
        finally:
            batch.close()


def _nothing() -> Generator[tuple[int, Any], None, None]:
    yield from ()


def _is_exception_type(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, Exception)
