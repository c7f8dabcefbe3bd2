"""`RunnableRetry`: try again on chosen exceptions, with exponential backoff and jitter."""

from __future__ import annotations

import math
import random
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any

from leanchain.callbacks.manager import RunManager
from leanchain.runnables._configurable_specs import ConfigurableFieldSpec
from leanchain.runnables.base import Input, Output, Runnable
from leanchain.runnables.config import RunnableConfig, ensure_config, get_config_list

__all__ = ["RunnableRetry"]

_JITTER_DEFAULTS = {"initial": 1.0, "max": 60.0, "exp_base": 2.0, "jitter": 1.0}


class RunnableRetry(Runnable[Input, Output]):
    """Runs `bound` again when it raises a matching exception, up to `max_attempt_number`.

    After the last attempt the original exception is raised (not a wrapper). Exceptions that
    do not match are raised at once. Streams are not retried: their chunks may be half out.
    Batches retry only the items that failed.
    """

    __slots__ = (
        "bound",
        "exponential_jitter_params",
        "max_attempt_number",
        "name",
        "retry_exception_types",
        "wait_exponential_jitter",
    )

    def __init__(
        self,
        *,
        bound: Runnable[Input, Output],
        retry_exception_types: tuple[type[BaseException], ...] | Callable[[BaseException], bool] = (
            Exception,
        ),
        wait_exponential_jitter: bool = True,
        exponential_jitter_params: Mapping[str, float] | None = None,
        max_attempt_number: int = 3,
    ) -> None:
        if max_attempt_number < 1:
            raise ValueError(f"stop_after_attempt must be at least 1, got {max_attempt_number}")
        self.bound = bound
        self.retry_exception_types = retry_exception_types
        self.wait_exponential_jitter = wait_exponential_jitter
        self.exponential_jitter_params = _checked_jitter(exponential_jitter_params or {})
        self.max_attempt_number = max_attempt_number
        self.name: str | None = None

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """The bound runnable's name."""
        return self.bound.get_name(suffix, name=name or self.name)

    def _should_retry(self, error: BaseException) -> bool:
        types = self.retry_exception_types
        if isinstance(types, tuple):
            return isinstance(error, types)
        return bool(types(error))

    def _wait(self, attempt: int) -> float:
        if not self.wait_exponential_jitter:
            return 0.0
        params = {**_JITTER_DEFAULTS, **self.exponential_jitter_params}
        backoff = _backoff(params["initial"], params["exp_base"], params["max"], attempt)
        return backoff + random.uniform(0, params["jitter"])

    def _attempt_config(
        self, config: RunnableConfig, run: RunManager | None, attempt: int
    ) -> RunnableConfig:
        if run is None:
            return config
        return run.child_config(config, f"retry:attempt:{attempt}" if attempt > 1 else None)

    def _invoke(
        self, input: Any, config: RunnableConfig, run: RunManager | None, kwargs: dict[str, Any]
    ) -> Output:
        attempt = 1
        while True:
            try:
                return self.bound.invoke(
                    input, self._attempt_config(config, run, attempt), **kwargs
                )
            except Exception as exc:
                if attempt >= self.max_attempt_number or not self._should_retry(exc):
                    raise
                if run is not None:
                    run.emit("on_retry", exc, attempt=attempt)
                time.sleep(self._wait(attempt))
                attempt += 1

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Invoke `bound`, retrying on matching exceptions."""
        return self._call_with_config(
            lambda x, cfg, run: self._invoke(x, cfg, run, kwargs), input, config
        )

    async def _ainvoke(
        self, input: Any, config: RunnableConfig, run: RunManager | None, kwargs: dict[str, Any]
    ) -> Output:
        import asyncio

        attempt = 1
        while True:
            try:
                return await self.bound.ainvoke(
                    input, self._attempt_config(config, run, attempt), **kwargs
                )
            except Exception as exc:
                if attempt >= self.max_attempt_number or not self._should_retry(exc):
                    raise
                if run is not None:
                    await run.aemit("on_retry", exc, attempt=attempt)
                await asyncio.sleep(self._wait(attempt))
                attempt += 1

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async `invoke`."""
        return await self._acall_with_config(
            lambda x, cfg, run: self._ainvoke(x, cfg, run, kwargs), input, config
        )

    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Batch `bound`, then retry only the items that failed with a matching exception."""
        configs = get_config_list(config, len(inputs))
        results: list[Any] = [None] * len(inputs)
        pending = list(range(len(inputs)))
        for attempt in range(1, self.max_attempt_number + 1):
            outs = self.bound.batch(
                [inputs[i] for i in pending],
                [configs[i] for i in pending],
                return_exceptions=True,
                **kwargs,
            )
            retry: list[int] = []
            for i, out in zip(pending, outs, strict=True):
                results[i] = out
                if isinstance(out, Exception) and self._should_retry(out):
                    retry.append(i)
            pending = retry
            if not pending or attempt == self.max_attempt_number:
                break
            time.sleep(self._wait(attempt))
        return _finish(results, return_exceptions)

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Async `batch`."""
        import asyncio

        configs = get_config_list(config, len(inputs))
        results: list[Any] = [None] * len(inputs)
        pending = list(range(len(inputs)))
        for attempt in range(1, self.max_attempt_number + 1):
            outs = await self.bound.abatch(
                [inputs[i] for i in pending],
                [configs[i] for i in pending],
                return_exceptions=True,
                **kwargs,
            )
            retry: list[int] = []
            for i, out in zip(pending, outs, strict=True):
                results[i] = out
                if isinstance(out, Exception) and self._should_retry(out):
                    retry.append(i)
            pending = retry
            if not pending or attempt == self.max_attempt_number:
                break
            await asyncio.sleep(self._wait(attempt))
        return _finish(results, return_exceptions)

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """`bound.stream`, not retried."""
        return self.bound.stream(input, ensure_config(config), **kwargs)

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """`bound.transform`, not retried."""
        return self.bound.transform(input, ensure_config(config), **kwargs)

    def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """`bound.astream`, not retried."""
        return self.bound.astream(input, ensure_config(config), **kwargs)

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """`bound.atransform`, not retried."""
        return self.bound.atransform(input, ensure_config(config), **kwargs)

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The bound runnable's specs."""
        return self.bound.config_specs

    @property
    def InputType(self) -> Any:
        """The bound runnable's input type."""
        return self.bound.InputType

    @property
    def OutputType(self) -> Any:
        """The bound runnable's output type."""
        return self.bound.OutputType


def _checked_jitter(params: Mapping[str, float]) -> dict[str, float]:
    """`params` as a dict, once every key is known and every value a finite number >= 0."""
    checked: dict[str, float] = {}
    for key, value in params.items():
        if key not in _JITTER_DEFAULTS:
            raise ValueError(
                f"Unknown exponential_jitter_params key {key!r}: expected some of "
                f"{list(_JITTER_DEFAULTS)}"
            )
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
        ):
            raise ValueError(
                f"exponential_jitter_params[{key!r}] must be a finite number >= 0, got {value!r}"
            )
        checked[key] = float(value)
    return checked


def _backoff(initial: float, base: float, maximum: float, attempt: int) -> float:
    """``min(maximum, initial * base ** (attempt - 1))``, capped before the power is taken:
    ``2.0 ** 1024`` overflows, and a 5,000-attempt retry gets there."""
    exponent = attempt - 1
    if initial <= 0:
        return 0.0
    if base > 1 and (initial >= maximum or exponent >= math.log(maximum / initial, base)):
        return maximum
    return min(maximum, initial * base**exponent)


def _finish(results: list[Any], return_exceptions: bool) -> list[Any]:
    if not return_exceptions:
        for result in results:
            if isinstance(result, Exception):
                raise result
    return results
