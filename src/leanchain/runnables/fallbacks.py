"""`RunnableWithFallbacks`: try other runnables, in order, when the first one fails."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from leanchain.callbacks.manager import RunManager
from leanchain.runnables._configurable_specs import ConfigurableFieldSpec, get_unique_config_specs
from leanchain.runnables.base import Input, Output, Runnable
from leanchain.runnables.config import RunnableConfig, ensure_config, get_config_list

__all__ = ["RunnableWithFallbacks"]


class RunnableWithFallbacks(Runnable[Input, Output]):
    """The primary runnable, then each fallback, until one succeeds.

    When all fail, `invoke` and `stream` raise the primary's error; `batch` keeps the last
    error of each item (LangChain's behaviour). With `exception_key`, each fallback sees the
    previous error under that key of the (dict) input.
    """

    __slots__ = ("exception_key", "exceptions_to_handle", "fallbacks", "name", "runnable")

    def __init__(
        self,
        *,
        runnable: Runnable[Input, Output],
        fallbacks: Sequence[Runnable[Input, Output]],
        exceptions_to_handle: tuple[type[BaseException], ...] = (Exception,),
        exception_key: str | None = None,
    ) -> None:
        self.runnable = runnable
        self.fallbacks = tuple(fallbacks)
        self.exceptions_to_handle = exceptions_to_handle
        self.exception_key = exception_key
        self.name: str | None = None

    @property
    def runnables(self) -> tuple[Runnable[Input, Output], ...]:
        """The primary followed by the fallbacks."""
        return (self.runnable, *self.fallbacks)

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """``RunnableWithFallbacks`` unless named."""
        return super().get_name(suffix, name=name)

    def __getattr__(self, name: str) -> Any:
        if name in RunnableWithFallbacks.__slots__:
            raise AttributeError(name)
        attr = getattr(self.runnable, name)
        if not callable(attr):
            return attr

        def apply_to_all(*args: Any, **kwargs: Any) -> Any:
            primary = attr(*args, **kwargs)
            if not isinstance(primary, Runnable):
                return primary
            return RunnableWithFallbacks(
                runnable=primary,
                fallbacks=[getattr(f, name)(*args, **kwargs) for f in self.fallbacks],
                exceptions_to_handle=self.exceptions_to_handle,
                exception_key=self.exception_key,
            )

        return apply_to_all

    def _check_input(self, input: Any) -> None:
        if self.exception_key is not None and not isinstance(input, dict):
            raise ValueError(
                "If 'exception_key' is specified then input must be a dictionary."
                f"However found a type of {type(input)} for input"
            )

    def _invoke(
        self, input: Any, config: RunnableConfig, run: RunManager | None, kwargs: dict[str, Any]
    ) -> Output:
        self._check_input(input)
        errors: list[BaseException] = []
        for runnable in self.runnables:
            if errors and self.exception_key is not None:
                input[self.exception_key] = errors[-1]
            try:
                return runnable.invoke(input, config, **kwargs)
            except self.exceptions_to_handle as exc:
                errors.append(exc)
        raise errors[0]

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """The first successful output."""
        return self._call_with_config(
            lambda x, cfg, run: self._invoke(x, cfg, run, kwargs), input, config
        )

    async def _ainvoke(
        self, input: Any, config: RunnableConfig, run: RunManager | None, kwargs: dict[str, Any]
    ) -> Output:
        self._check_input(input)
        errors: list[BaseException] = []
        for runnable in self.runnables:
            if errors and self.exception_key is not None:
                input[self.exception_key] = errors[-1]
            try:
                return await runnable.ainvoke(input, config, **kwargs)
            except self.exceptions_to_handle as exc:
                errors.append(exc)
        raise errors[0]

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async `invoke`."""
        return await self._acall_with_config(
            lambda x, cfg, run: self._ainvoke(x, cfg, run, kwargs), input, config
        )

    def _start_batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None,
    ) -> tuple[list[RunnableConfig], list[Any], list[int]]:
        if self.exception_key is not None:
            for item in inputs:
                self._check_input(item)
        return get_config_list(config, len(inputs)), [None] * len(inputs), list(range(len(inputs)))

    def _sort_batch(
        self,
        inputs: Sequence[Input],
        pending: list[int],
        outs: list[Any],
        results: list[Any],
        return_exceptions: bool,
    ) -> list[int]:
        """Record a round's outputs; the indices to hand to the next fallback."""
        still: list[int] = []
        for i, out in zip(pending, outs, strict=True):
            results[i] = out
            if isinstance(out, self.exceptions_to_handle):
                still.append(i)
                if self.exception_key is not None:
                    inputs[i][self.exception_key] = out  # type: ignore[index]
            elif isinstance(out, BaseException) and not return_exceptions:
                raise out
        return still

    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Run the primary on all items, then each fallback on the items still failing.

        Unlike `invoke`, an item that fails everywhere keeps its *last* error.
        """
        configs, results, pending = self._start_batch(inputs, config)
        for runnable in self.runnables:
            if not pending:
                break
            outs = runnable.batch(
                [inputs[i] for i in pending],
                [configs[i] for i in pending],
                return_exceptions=True,
                **kwargs,
            )
            pending = self._sort_batch(inputs, pending, outs, results, return_exceptions)
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
        configs, results, pending = self._start_batch(inputs, config)
        for runnable in self.runnables:
            if not pending:
                break
            outs = await runnable.abatch(
                [inputs[i] for i in pending],
                [configs[i] for i in pending],
                return_exceptions=True,
                **kwargs,
            )
            pending = self._sort_batch(inputs, pending, outs, results, return_exceptions)
        return _finish(results, return_exceptions)

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream the first runnable that does not fail before its first chunk."""
        config = ensure_config(config)
        self._check_input(input)
        errors: list[BaseException] = []
        for runnable in self.runnables:
            if errors and self.exception_key is not None:
                input[self.exception_key] = errors[-1]  # type: ignore[index]
            try:
                iterator = iter(runnable.stream(input, config, **kwargs))
                head = next(iterator)
            except StopIteration:
                return
            except self.exceptions_to_handle as exc:
                errors.append(exc)
                continue
            yield head
            yield from iterator
            return
        raise errors[0]

    async def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async `stream`."""
        config = ensure_config(config)
        self._check_input(input)
        errors: list[BaseException] = []
        for runnable in self.runnables:
            if errors and self.exception_key is not None:
                input[self.exception_key] = errors[-1]  # type: ignore[index]
            try:
                iterator = aiter(runnable.astream(input, config, **kwargs))
                head = await anext(iterator)
            except StopAsyncIteration:
                return
            except self.exceptions_to_handle as exc:
                errors.append(exc)
                continue
            yield head
            async for chunk in iterator:
                yield chunk
            return
        raise errors[0]

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The specs of the primary and of every fallback, each id once."""
        return get_unique_config_specs(s for r in self.runnables for s in r.config_specs)

    @property
    def InputType(self) -> Any:
        """The primary's input type."""
        return self.runnable.InputType

    @property
    def OutputType(self) -> Any:
        """The primary's output type."""
        return self.runnable.OutputType


def _finish(results: list[Any], return_exceptions: bool) -> list[Any]:
    if not return_exceptions:
        for result in results:
            if isinstance(result, BaseException):
                raise result
    return results
