"""Plain functions as runnables: `RunnableLambda` and `@chain`.

How the function itself is called lives in `_func_calls`; `RunnableGenerator` lives in
`generator.py` and is re-exported here.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, cast, overload

from typing_extensions import TypeVar

from leanchain.callbacks.defaults import DEFAULT_HANDLERS
from leanchain.callbacks.manager import RunManager, silent_run, start_run
from leanchain.runnables._chunks import aclose
from leanchain.runnables._coerce import _TakesConfig, _TakesRunManager
from leanchain.runnables._func_calls import acall_func, astream_func, call_func, stream_func
from leanchain.runnables._plain_runs import invoke_plain, recurse, stream_plain
from leanchain.runnables._signature import first_param_type, item_keys, lambda_source, return_type
from leanchain.runnables.base import Input, Output, Runnable
from leanchain.runnables.config import (
    _EMPTY,
    RunnableConfig,
    _current,
    ensure_config,
)
from leanchain.runnables.generator import SYNC_STREAM, RunnableGenerator
from leanchain.runnables.utils import accepts_config, accepts_kwarg

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["RunnableGenerator", "RunnableLambda"]  # RunnableGenerator: re-exported


In = TypeVar("In")
Out = TypeVar("Out")
# An unannotated ``lambda x: ...`` gives mypy nothing to solve the input from: ``Any``.
_AnyIn = TypeVar("_AnyIn", default=Any)
_AnyOut = TypeVar("_AnyOut", default=Any)


def _is_async(func: Any) -> bool:
    return inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func)


class RunnableLambda(Runnable[Input, Output]):
    """A function (sync, async, or a generator of either) as a runnable.

    The function may take a ``config`` parameter to receive the run's config; extra keyword
    arguments given to `invoke` are passed on. A returned runnable is run on the same input
    (bounded by ``recursion_limit``).
    """

    __slots__ = (
        "_afunc_config",
        "_afunc_gen",
        "_afunc_run_manager",
        "_func_config",
        "_func_gen",
        "_func_run_manager",
        "_plain",
        "afunc",
        "func",
        "name",
    )

    # The overloads give ``RunnableLambda(f)`` the types of `f`: ``def f(x: int) -> str``
    # makes a ``RunnableLambda[int, str]``; generators and async functions yield/return `Out`.
    # There is deliberately no catch-all overload, and coroutines are matched as `Coroutine`,
    # not `Awaitable`: when an argument's type contains ``Any`` (``dict[str, Any]`` is
    # everywhere here) mypy answers ``Any`` if two overloads match with different types.
    @overload
    def __init__(
        self: RunnableLambda[In, Out],
        func: Callable[[In], AsyncIterator[Out]],
        afunc: None = None,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableLambda[In, Out],
        func: Callable[[In], Coroutine[Any, Any, Out]],
        afunc: None = None,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableLambda[In, Out],
        func: Callable[[In], Iterator[Out]],
        afunc: Callable[[In], AsyncIterator[Out]] | None = None,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableLambda[_AnyIn, _AnyOut],
        func: Callable[[_AnyIn], _AnyOut],
        afunc: Callable[[_AnyIn], Awaitable[_AnyOut]] | None = None,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableLambda[In, Out],
        func: _TakesConfig[In, AsyncIterator[Out]],
        afunc: None = None,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableLambda[In, Out],
        func: _TakesConfig[In, Coroutine[Any, Any, Out]],
        afunc: None = None,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableLambda[In, Out],
        func: _TakesConfig[In, Iterator[Out]],
        afunc: Callable[..., AsyncIterator[Out]] | None = None,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableLambda[In, Out],
        func: _TakesConfig[In, Out],
        afunc: Callable[..., Awaitable[Out]] | None = None,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableLambda[In, Out],
        func: _TakesRunManager[In, AsyncIterator[Out]],
        afunc: None = None,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableLambda[In, Out],
        func: _TakesRunManager[In, Coroutine[Any, Any, Out]],
        afunc: None = None,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableLambda[In, Out],
        func: _TakesRunManager[In, Iterator[Out]],
        afunc: Callable[..., AsyncIterator[Out]] | None = None,
        name: str | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self: RunnableLambda[In, Out],
        func: _TakesRunManager[In, Out],
        afunc: Callable[..., Awaitable[Out]] | None = None,
        name: str | None = None,
    ) -> None: ...

    def __init__(
        self,
        func: Callable[..., Any],
        afunc: Callable[..., Any] | None = None,
        name: str | None = None,
    ) -> None:
        if afunc is not None and _is_async(func):
            raise TypeError(
                "Func was provided as a coroutine function, but afunc was also provided. "
                "If providing both, func should be a regular function to avoid ambiguity."
            )
        if not callable(func):
            raise TypeError(
                f"Expected a callable type for `func`.Instead got an unsupported type: {type(func)}"
            )
        self.func: Callable[..., Any] | None
        self.afunc: Callable[..., Any] | None
        if _is_async(func):
            self.func, self.afunc = None, func
        else:
            self.func, self.afunc = func, afunc
        self._func_config = self.func is not None and accepts_config(self.func)
        self._afunc_config = self.afunc is not None and accepts_config(self.afunc)
        self._func_gen = self.func is not None and inspect.isgeneratorfunction(self.func)
        self._afunc_gen = self.afunc is not None and inspect.isasyncgenfunction(self.afunc)
        self._func_run_manager = self.func is not None and accepts_kwarg(self.func, "run_manager")
        self._afunc_run_manager = (
            self._func_run_manager
            if self.afunc is None
            else accepts_kwarg(self.afunc, "run_manager")
        )
        self._plain = (
            self.func is not None
            and not self._func_config
            and not self._func_gen
            and not self._func_run_manager
        )
        own = getattr(func, "__name__", None)
        self.name = name or (own if own and own != "<lambda>" else None)

    def __repr__(self) -> str:
        func = self.func or self.afunc
        if getattr(func, "__name__", None) == "<lambda>" and func is not None:
            source = lambda_source(func)
            return f"RunnableLambda({source or '...'})"
        return f"RunnableLambda({getattr(func, '__name__', '...')})"

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """The function's name; ``RunnableLambda`` for an anonymous lambda."""
        if suffix is None and name is None:
            return self.name or "RunnableLambda"
        return super().get_name(suffix, name=name or self.name or "RunnableLambda")

    # -- calling the function (`_func_calls`) -----------------------------------------------

    _call = call_func
    _stream = stream_func
    _acall = acall_func
    _astream = astream_func

    def _with_run_manager(
        self, kwargs: dict[str, Any], run: RunManager | None, config: RunnableConfig, wanted: bool
    ) -> dict[str, Any]:
        """`kwargs`, plus ``run_manager=`` for a function that declares it: this run's
        manager, or one that tells no one when no handler listens (as LangChain's)."""
        if not wanted:
            return kwargs
        if run is None:
            run = silent_run(config, "chain", self.get_name())
        return {**kwargs, "run_manager": run}

    # -- sync -------------------------------------------------------------------------------

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Call the function on `input`."""
        # The hot path of every pipeline: a plain function, called by a parent that already
        # published this config (a sequence does), costs one context-variable read.
        parent = _current.get()
        if config is None:
            if parent is not None:
                config = parent
            else:
                # Handlers registered for every run join a root call through `ensure_config`.
                config = _EMPTY if not DEFAULT_HANDLERS else ensure_config()
        elif config is not parent:
            config = ensure_config(config)
        if config.get("callbacks"):
            name = (
                self.name or "RunnableLambda"
                if type(self).get_name is _GET_NAME
                else self.get_name()
            )
            run = start_run(config, "chain", name, input)
            if run is not None:
                child = run.child_config(config)
                try:
                    if kwargs or not self._plain:
                        output = self._call(
                            input,
                            child,
                            self._with_run_manager(kwargs, run, child, self._func_run_manager),
                        )
                    else:
                        # `_call` written out for a plain function: one frame less per run.
                        token = _current.set(child)
                        try:
                            output = self.func(input)  # type: ignore[misc]
                        finally:
                            _current.reset(token)
                        if isinstance(output, Runnable):
                            runnable, grandchild = recurse(output, self, input, child)
                            output = runnable.invoke(input, grandchild)
                except BaseException as exc:
                    run.on_error(exc)
                    raise
                run.on_end(output)
                return output  # type: ignore[no-any-return]
        if kwargs or not self._plain or (config is not parent and config is not _EMPTY):
            kwargs = self._with_run_manager(kwargs, None, config, self._func_run_manager)
            return self._call(input, config, kwargs)  # type: ignore[no-any-return]
        output = self.func(input)  # type: ignore[misc]
        if isinstance(output, Runnable):
            runnable, child = recurse(output, self, input, config)
            return runnable.invoke(input, child)  # type: ignore[no-any-return]
        return output  # type: ignore[no-any-return]

    def _invoke_child(
        self,
        input: Any,
        config: RunnableConfig,
        run: RunManager,
        tag: str | None,
        kwargs: dict[str, Any],
    ) -> Any:
        """A plain function's run starts straight from its parent's (`_plain_runs`)."""
        if kwargs or not self._plain or type(self).get_name is not _GET_NAME:
            return super()._invoke_child(input, config, run, tag, kwargs)
        name = self.name or "RunnableLambda"
        return invoke_plain(self, self.func, name, input, config, run, tag)  # type: ignore[arg-type]

    def _transform_child(
        self,
        input: Iterator[Any],
        config: RunnableConfig,
        run: RunManager,
        tag: str | None,
        kwargs: dict[str, Any],
    ) -> Iterator[Any]:
        """A plain function's streaming run starts straight from its parent's."""
        if kwargs or not self._plain or type(self).get_name is not _GET_NAME:
            return super()._transform_child(input, config, run, tag, kwargs)
        name = self.name or "RunnableLambda"
        return stream_plain(self, self.func, name, input, config, run, tag)  # type: ignore[arg-type]

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Gather the whole input, then yield the output (a generator's chunks as they come)."""
        if self.func is None:
            raise TypeError(SYNC_STREAM)
        wanted = self._func_run_manager
        return self._transform_with_config(
            input,
            lambda it, cfg, run: self._stream(
                it, cfg, self._with_run_manager(kwargs, run, cfg, wanted)
            ),
            config,
        )

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """`transform` over a single input."""
        return self.transform(iter((input,)), config, **kwargs)

    # -- async ------------------------------------------------------------------------------

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Await the async function, or run the sync one in a worker thread."""
        wanted = self._afunc_run_manager
        return await self._acall_with_config(
            lambda x, cfg, run: self._acall(
                x, cfg, self._with_run_manager(kwargs, run, cfg, wanted)
            ),
            input,
            config,
        )

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async `transform`."""
        wanted = self._afunc_run_manager
        return self._atransform_with_config(
            input,
            lambda it, cfg, run: self._astream(
                it, cfg, self._with_run_manager(kwargs, run, cfg, wanted)
            ),
            config,
        )

    async def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async `stream`."""

        async def single() -> AsyncIterator[Input]:
            yield input

        chunks = self.atransform(single(), config, **kwargs)
        try:
            async for chunk in chunks:
                yield chunk
        except BaseException:
            await aclose(chunks)
            raise

    @property
    def InputType(self) -> Any:
        """The type hint of the function's first parameter (``Any`` without one)."""
        return first_param_type(self.func or self.afunc)

    @property
    def OutputType(self) -> Any:
        """The function's return type hint (``Any`` without one)."""
        return return_type(self.func or self.afunc)

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The first parameter's type; without a hint, an object of the keys the body reads.

        ``lambda x: x["foo"] + x["bar"]`` takes an object with required ``bar`` and ``foo``.
        """
        if self.InputType is Any:
            keys = item_keys(cast(Callable[..., Any], self.func or self.afunc))
            if keys:
                from leanchain.runnables.schema import object_schema

                return object_schema(self.get_name("Input"), dict.fromkeys(keys, Any))
        return super().get_input_schema(config)


_GET_NAME = RunnableLambda.get_name
