"""`Runnable`: the one protocol every pipeline part implements, and `|` coercion.

A subclass implements `invoke` (and `ainvoke` when it has real async work, `transform` when it
can stream). Everything else has a correct default here: batching, streaming, composition,
bindings, retries, fallbacks, schemas and graphs.
"""

from __future__ import annotations

import inspect
from abc import abstractmethod
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Generator,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast, get_args, overload

from leanchain.callbacks.manager import RunManager, RunType, abegin_run, begin_run
from leanchain.runnables._executor import (
    arun_all,
    arun_as_completed,
    run_all,
    run_as_completed,
    run_in_executor,
)
from leanchain.runnables._inputs import AsyncInputSum, InputSum
from leanchain.runnables.config import RunnableConfig, _current, ensure_config, get_config_list

if TYPE_CHECKING:
    from pydantic import BaseModel

    from leanchain.callbacks._event_types import StreamEvent
    from leanchain.runnables.binding import RunnableBinding
    from leanchain.runnables.fallbacks import RunnableWithFallbacks
    from leanchain.runnables.graph import Graph
    from leanchain.runnables.retry import RunnableRetry

__all__ = ["Input", "Output", "Runnable", "RunnableLike", "coerce_to_runnable"]

Input = TypeVar("Input", contravariant=True)
Output = TypeVar("Output", covariant=True)
Out = TypeVar("Out")
Other = TypeVar("Other")

_ABSTRACT = ("invoke",)
_In_contra = TypeVar("_In_contra", contravariant=True)
_Out_co = TypeVar("_Out_co", covariant=True)


class _TakesConfig(Protocol[_In_contra, _Out_co]):
    """A function of the input that also takes the run's config as ``config=``."""

    def __call__(self, input: _In_contra, /, *, config: RunnableConfig) -> _Out_co: ...


RunnableLike = Any
"""A runnable, a callable, a generator function, or a dict of those (coerced by `|`)."""


def _fold(chunks: Iterator[Any]) -> tuple[bool, Any]:
    """Add input chunks together with ``+``; a chunk that cannot be added replaces the sum."""
    got = False
    total: Any = None
    for chunk in chunks:
        if not got:
            total, got = chunk, True
            continue
        try:
            total = total + chunk
        except TypeError:
            total = chunk
    return got, total


async def _afold(chunks: AsyncIterator[Any]) -> tuple[bool, Any]:
    got = False
    total: Any = None
    async for chunk in chunks:
        if not got:
            total, got = chunk, True
            continue
        try:
            total = total + chunk
        except TypeError:
            total = chunk
    return got, total


class Runnable(Generic[Input, Output]):
    """A unit of work that can be invoked, batched, streamed and composed with ``|``.

    Runnables are immutable after construction and safe to share between threads and tasks.
    """

    # Not an `abc.ABC`: ``isinstance(x, Runnable)`` runs on every lambda call to spot a
    # returned runnable, and ABCMeta's check costs four times a plain one. `__init_subclass__`
    # keeps the "cannot instantiate without `invoke`" guarantee.
    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # ABCMeta's rule: abstract are the class's own abstract methods, plus inherited ones
        # that it does not override.
        abstract = {
            name
            for name, value in vars(cls).items()
            if getattr(value, "__isabstractmethod__", False)
        }
        for base in cls.__bases__:
            for name in getattr(base, "__abstractmethods__", ()):
                if getattr(getattr(cls, name, None), "__isabstractmethod__", False):
                    abstract.add(name)
        cls.__abstractmethods__ = frozenset(abstract)  # type: ignore[attr-defined]

    name: str | None = None
    """The name shown in callbacks, events and graphs (defaults to the class name)."""

    # -- identity ---------------------------------------------------------------------------

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """The runnable's display name, optionally with a suffix (``"Input"``, ``"Output"``)."""
        base = name or self.name or type(self).__name__
        if suffix:
            return f"{base}{suffix}" if base[0].isupper() else f"{base}_{suffix.lower()}"
        return base

    # -- the one required method ------------------------------------------------------------

    @abstractmethod
    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Run on one input and return its output."""

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async `invoke`; by default runs `invoke` in a worker thread (the loop never blocks)."""
        return await run_in_executor(self.invoke, input, ensure_config(config), **kwargs)

    # -- batches ----------------------------------------------------------------------------

    def _batch_tasks(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None,
        return_exceptions: bool,
        kwargs: dict[str, Any],
    ) -> tuple[list[Callable[[], Any]], int | None]:
        configs = get_config_list(config, len(inputs))
        invoke = self.invoke

        def task(i: int) -> Callable[[], Any]:
            def run() -> Any:
                if not return_exceptions:
                    return invoke(inputs[i], configs[i], **kwargs)
                try:
                    return invoke(inputs[i], configs[i], **kwargs)
                except Exception as exc:
                    return exc

            return run

        limit = configs[0].get("max_concurrency") if configs else None
        return [task(i) for i in range(len(inputs))], limit

    def _abatch_tasks(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None,
        return_exceptions: bool,
        kwargs: dict[str, Any],
    ) -> tuple[list[Callable[[], Awaitable[Any]]], int | None]:
        configs = get_config_list(config, len(inputs))
        ainvoke = self.ainvoke

        def task(i: int) -> Callable[[], Awaitable[Any]]:
            async def run() -> Any:
                if not return_exceptions:
                    return await ainvoke(inputs[i], configs[i], **kwargs)
                try:
                    return await ainvoke(inputs[i], configs[i], **kwargs)
                except Exception as exc:
                    return exc

            return run

        limit = configs[0].get("max_concurrency") if configs else None
        return [task(i) for i in range(len(inputs))], limit

    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Invoke on every input, concurrently up to ``max_concurrency``; outputs in input order.

        With ``return_exceptions=True`` a failing item's exception takes its place in the list.
        """
        if not inputs:
            return []
        tasks, limit = self._batch_tasks(inputs, config, return_exceptions, kwargs)
        return run_all(tasks, limit)

    def batch_as_completed(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> Iterator[tuple[int, Output | Exception]]:
        """Like `batch`, yielding ``(index, output)`` as items finish; closing it stops the rest."""
        if not inputs:
            return iter(())
        tasks, limit = self._batch_tasks(inputs, config, return_exceptions, kwargs)
        return run_as_completed(tasks, limit)

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Async `batch`: items run as concurrent tasks bounded by ``max_concurrency``."""
        if not inputs:
            return []
        tasks, limit = self._abatch_tasks(inputs, config, return_exceptions, kwargs)
        return await arun_all(tasks, limit)

    async def abatch_as_completed(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> AsyncIterator[tuple[int, Output | Exception]]:
        """Async `batch_as_completed`."""
        if not inputs:
            return
        tasks, limit = self._abatch_tasks(inputs, config, return_exceptions, kwargs)
        async with aclosing(arun_as_completed(tasks, limit)) as items:
            async for item in items:
                yield item

    # -- streaming --------------------------------------------------------------------------

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Yield the output in chunks; by default one chunk, the whole output."""
        yield self.invoke(input, config, **kwargs)

    async def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async `stream`."""
        yield await self.ainvoke(input, config, **kwargs)

    def stream_events(
        self,
        input: Input,
        config: RunnableConfig | None = None,
        *,
        version: str = "v2",
        include_names: Sequence[str] | None = None,
        include_types: Sequence[str] | None = None,
        include_tags: Sequence[str] | None = None,
        exclude_names: Sequence[str] | None = None,
        exclude_types: Sequence[str] | None = None,
        exclude_tags: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Generator[StreamEvent, None, None]:
        """The events of `stream` (LangChain's v2 events), delivered as they happen.

        Args:
            input: the input.
            config: the config of the call.
            version: ``"v2"``, the only version.
            include_names: keep only the events of runs with one of these names (the
                ``include_*`` filters together keep a run that matches any of them).
            include_types: keep only the events of runs of one of these types (``chain``,
                ``prompt``, ``parser``, ``chat_model``, ``tool``).
            include_tags: keep only the events of runs with one of these tags.
            exclude_names: then drop the events of runs with one of these names.
            exclude_types: then drop the events of runs of one of these types.
            exclude_tags: then drop the events of runs with one of these tags.
            **kwargs: passed to `stream`.

        Raises:
            NotImplementedError: `version` is ``"v1"`` or ``"v3"``.
            ValueError: another unknown `version`.
        """
        from leanchain.callbacks._event_stream import stream_events

        return stream_events(
            self,
            input,
            config,
            version=version,
            include_names=include_names,
            include_types=include_types,
            include_tags=include_tags,
            exclude_names=exclude_names,
            exclude_types=exclude_types,
            exclude_tags=exclude_tags,
            **kwargs,
        )

    def astream_events(
        self,
        input: Input,
        config: RunnableConfig | None = None,
        *,
        version: str = "v2",
        include_names: Sequence[str] | None = None,
        include_types: Sequence[str] | None = None,
        include_tags: Sequence[str] | None = None,
        exclude_names: Sequence[str] | None = None,
        exclude_types: Sequence[str] | None = None,
        exclude_tags: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[StreamEvent, None]:
        """Async `stream_events`: the events of `astream`, delivered as they happen."""
        from leanchain.callbacks._event_stream import astream_events

        return astream_events(
            self,
            input,
            config,
            version=version,
            include_names=include_names,
            include_types=include_types,
            include_tags=include_tags,
            exclude_names=exclude_names,
            exclude_types=exclude_types,
            exclude_tags=exclude_tags,
            **kwargs,
        )

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream over a stream of input chunks; by default adds them up, then streams once."""
        got, total = _fold(input)
        if got:
            yield from self.stream(total, config, **kwargs)

    async def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async `transform`."""
        got, total = await _afold(input)
        if got:
            async for chunk in self.astream(total, config, **kwargs):
                yield chunk

    # -- running with callbacks -------------------------------------------------------------

    def _call_with_config(
        self,
        func: Callable[[Any, RunnableConfig, RunManager | None], Out],
        input: Any,
        config: RunnableConfig | None,
        run_type: RunType = "chain",
    ) -> Out:
        """Run ``func(input, config, run)`` as a run of this runnable, telling the callbacks.

        With handlers attached, `config` is already a child config of the run (children that
        need tags of their own use ``run.child_config``); without, `run` is ``None``.
        """
        config = ensure_config(config)
        if not config.get("callbacks"):
            return func(input, config, None)
        run = begin_run(config, run_type, self.get_name(), input)
        if run is None:
            return func(input, config, None)
        try:
            output = func(input, run.child_config(config), run)
        except BaseException as exc:
            run.on_error(exc)
            raise
        run.on_end(output)
        return output

    async def _acall_with_config(
        self,
        func: Callable[[Any, RunnableConfig, RunManager | None], Awaitable[Out]],
        input: Any,
        config: RunnableConfig | None,
        run_type: RunType = "chain",
    ) -> Out:
        """Async twin of `_call_with_config`."""
        config = ensure_config(config)
        if not config.get("callbacks"):
            return await func(input, config, None)
        run = await abegin_run(config, run_type, self.get_name(), input)
        if run is None:
            return await func(input, config, None)
        try:
            output = await func(input, run.child_config(config), run)
        except BaseException as exc:
            await run.aon_error(exc)
            raise
        await run.aon_end(output)
        return output

    def _transform_with_config(
        self,
        input: Iterator[Any],
        func: Callable[[Iterator[Any], RunnableConfig, RunManager | None], Iterator[Out]],
        config: RunnableConfig | None,
        run_type: RunType = "chain",
    ) -> Iterator[Out]:
        """Stream ``func(input, config, run)`` as a run of this runnable.

        The run starts when the first input chunk is available (its input is reported as the
        sum of all input chunks at the end) and ends with the sum of the output chunks.
        """
        config = ensure_config(config)
        if not config.get("callbacks"):
            yield from func(input, config, None)
            return
        inputs = InputSum(input)
        inputs.pull_first()
        run = begin_run(config, run_type, self.get_name(), "")
        if run is None:
            yield from func(inputs, config, None)
            return
        got, total = False, None
        try:
            for chunk in func(inputs, run.child_config(config), run):
                # Told before it is passed on, so that a chunk's events go inner to outer.
                run.on_stream(chunk)
                yield chunk
                total = chunk if not got else _add(total, chunk)
                got = True
        except BaseException as exc:
            run.on_error(exc)
            raise
        run.on_end(total, inputs=inputs.total)

    async def _atransform_with_config(
        self,
        input: AsyncIterator[Any],
        func: Callable[[AsyncIterator[Any], RunnableConfig, RunManager | None], AsyncIterator[Out]],
        config: RunnableConfig | None,
        run_type: RunType = "chain",
    ) -> AsyncIterator[Out]:
        """Async twin of `_transform_with_config`."""
        config = ensure_config(config)
        if not config.get("callbacks"):
            async for chunk in func(input, config, None):
                yield chunk
            return
        inputs = AsyncInputSum(input)
        await inputs.pull_first()
        run = await abegin_run(config, run_type, self.get_name(), "")
        if run is None:
            async for chunk in func(inputs, config, None):
                yield chunk
            return
        got, total = False, None
        try:
            async for chunk in func(inputs, run.child_config(config), run):
                await run.aemit("on_chain_stream", chunk)
                yield chunk
                total = chunk if not got else _add(total, chunk)
                got = True
        except BaseException as exc:
            await run.aon_error(exc)
            raise
        await run.aon_end(total, inputs=inputs.total)

    def _invoke_child(
        self,
        input: Any,
        config: RunnableConfig,
        run: RunManager,
        tag: str | None,
        kwargs: dict[str, Any],
    ) -> Output:
        """`invoke` as a child run of `run`, whose config is `config` (`tag` labels the child).

        What a traced parent calls for each child it runs: the child's config is made here
        and published while the child runs. A runnable that starts a run of its own may
        override this to start it from `run` directly (`RunManager.start_child`), skipping
        that config.
        """
        child = run.child_config(config, tag)
        token = _current.set(child)
        try:
            return self.invoke(input, child, **kwargs)
        finally:
            _current.reset(token)

    def _transform_child(
        self,
        input: Iterator[Any],
        config: RunnableConfig,
        run: RunManager,
        tag: str | None,
        kwargs: dict[str, Any],
    ) -> Iterator[Output]:
        """`transform` as a child run of `run`: the streaming twin of `_invoke_child`."""
        return self.transform(input, run.child_config(config, tag), **kwargs)

    # -- composition ------------------------------------------------------------------------

    @overload
    def __or__(self, other: Runnable[Any, Other]) -> Runnable[Input, Other]: ...
    @overload
    def __or__(
        self, other: Callable[[AsyncIterator[Any]], AsyncIterator[Other]]
    ) -> Runnable[Input, Other]: ...
    @overload
    def __or__(
        self, other: Callable[[Any], Coroutine[Any, Any, Other]]
    ) -> Runnable[Input, Other]: ...
    @overload
    def __or__(
        self, other: Callable[[Iterator[Any]], Iterator[Other]]
    ) -> Runnable[Input, Other]: ...
    @overload
    def __or__(self, other: Callable[[Any], Other]) -> Runnable[Input, Other]: ...
    @overload
    def __or__(self, other: Mapping[str, Any]) -> Runnable[Input, dict[str, Any]]: ...
    @overload
    def __or__(
        self, other: _TakesConfig[Any, Coroutine[Any, Any, Other]]
    ) -> Runnable[Input, Other]: ...
    @overload
    def __or__(self, other: _TakesConfig[Any, Other]) -> Runnable[Input, Other]: ...

    def __or__(self, other: Any) -> Runnable[Input, Any]:
        """``self | other``: a sequence that feeds this runnable's output to `other`."""
        from leanchain.runnables.sequence import RunnableSequence

        return RunnableSequence(self, coerce_to_runnable(other))

    @overload
    def __ror__(self, other: Callable[[Other], Any]) -> Runnable[Other, Output]: ...
    @overload
    def __ror__(self, other: Mapping[str, Any]) -> Runnable[Any, Output]: ...
    @overload
    def __ror__(self, other: _TakesConfig[Other, Any]) -> Runnable[Other, Output]: ...

    def __ror__(self, other: Any) -> Runnable[Any, Output]:
        """``other | self`` where `other` is a callable or a dict."""
        from leanchain.runnables.sequence import RunnableSequence

        return RunnableSequence(coerce_to_runnable(other), self)

    def pipe(self, *others: Any, name: str | None = None) -> Runnable[Input, Any]:
        """``self | others[0] | others[1] ...`` as one sequence."""
        from leanchain.runnables.sequence import RunnableSequence

        return RunnableSequence(self, *(coerce_to_runnable(o) for o in others), name=name)

    def assign(self, **kwargs: Any) -> Runnable[Input, dict[str, Any]]:
        """``self | RunnablePassthrough.assign(**kwargs)``: add computed keys to a dict output."""
        from leanchain.runnables.parallel import RunnableParallel
        from leanchain.runnables.passthrough import RunnableAssign

        return self | RunnableAssign(RunnableParallel(kwargs))

    def pick(self, keys: str | list[str]) -> Runnable[Input, Any]:
        """``self | RunnablePick(keys)``: keep one key (its value) or several (a dict)."""
        from leanchain.runnables.passthrough import RunnablePick

        return self | RunnablePick(keys)

    # -- bindings ---------------------------------------------------------------------------

    def bind(self, **kwargs: Any) -> RunnableBinding[Input, Output]:
        """A runnable that always calls this one with these keyword arguments."""
        from leanchain.runnables.binding import RunnableBinding

        return RunnableBinding(bound=self, kwargs=kwargs)

    def with_config(
        self, config: RunnableConfig | None = None, **kwargs: Any
    ) -> RunnableBinding[Input, Output]:
        """A runnable that always runs with this config (merged with the caller's)."""
        from leanchain.runnables.binding import RunnableBinding

        return RunnableBinding(
            bound=self, config=cast(RunnableConfig, {**(config or {}), **kwargs})
        )

    def with_types(
        self, *, input_type: type[Any] | None = None, output_type: type[Any] | None = None
    ) -> RunnableBinding[Input, Output]:
        """A runnable that reports these input and output types in its schemas."""
        from leanchain.runnables.binding import RunnableBinding

        return RunnableBinding(
            bound=self, custom_input_type=input_type, custom_output_type=output_type
        )

    def with_listeners(
        self,
        *,
        on_start: Callable[..., Any] | None = None,
        on_end: Callable[..., Any] | None = None,
        on_error: Callable[..., Any] | None = None,
    ) -> RunnableBinding[Input, Output]:
        """A runnable that calls these listeners with the run when it starts, ends or fails."""
        from leanchain.runnables.binding import RunnableBinding, listeners_factory

        return RunnableBinding(
            bound=self, config_factories=[listeners_factory(on_start, on_end, on_error)]
        )

    def with_retry(
        self,
        *,
        retry_if_exception_type: tuple[type[BaseException], ...] = (Exception,),
        wait_exponential_jitter: bool = True,
        exponential_jitter_params: Mapping[str, float] | None = None,
        stop_after_attempt: int = 3,
    ) -> RunnableRetry[Input, Output]:
        """A runnable that retries this one on the given exceptions (streams are not retried)."""
        from leanchain.runnables.retry import RunnableRetry

        return RunnableRetry(
            bound=self,
            retry_exception_types=retry_if_exception_type,
            wait_exponential_jitter=wait_exponential_jitter,
            exponential_jitter_params=exponential_jitter_params,
            max_attempt_number=stop_after_attempt,
        )

    def with_fallbacks(
        self,
        fallbacks: Sequence[Runnable[Input, Output]],
        *,
        exceptions_to_handle: tuple[type[BaseException], ...] = (Exception,),
        exception_key: str | None = None,
    ) -> RunnableWithFallbacks[Input, Output]:
        """A runnable that tries `fallbacks` in order when this one fails."""
        from leanchain.runnables.fallbacks import RunnableWithFallbacks

        return RunnableWithFallbacks(
            runnable=self,
            fallbacks=fallbacks,
            exceptions_to_handle=exceptions_to_handle,
            exception_key=exception_key,
        )

    def configurable_fields(self, **fields: Any) -> Runnable[Input, Output]:
        """A runnable whose named attributes can be set per call via ``config["configurable"]``.

        Args:
            **fields: attribute name → `ConfigurableField` (or a single/multi option field).
        """
        from leanchain.runnables.configurable import configurable_fields

        return configurable_fields(self, **fields)

    def configurable_alternatives(
        self,
        which: Any,
        *,
        default_key: str = "default",
        prefix_keys: bool = False,
        **alternatives: Any,
    ) -> Runnable[Input, Output]:
        """A runnable that is this one, or an alternative chosen per call by ``which.id``."""
        from leanchain.runnables.configurable import configurable_alternatives

        return configurable_alternatives(
            self, which, default_key=default_key, prefix_keys=prefix_keys, **alternatives
        )

    # -- types, schemas and graphs ----------------------------------------------------------

    @property
    def InputType(self) -> Any:
        """The input type, from the generic parameters (``Any`` when unknown)."""
        return _generic_arg(type(self), 0)

    @property
    def OutputType(self) -> Any:
        """The output type, from the generic parameters (``Any`` when unknown)."""
        return _generic_arg(type(self), 1)

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """A pydantic model of the input."""
        from leanchain.runnables.schema import schema_for

        return schema_for(self.InputType, self.get_name("Input"))

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """A pydantic model of the output."""
        from leanchain.runnables.schema import schema_for

        return schema_for(self.OutputType, self.get_name("Output"))

    @property
    def input_schema(self) -> type[BaseModel]:
        """`get_input_schema()`."""
        return self.get_input_schema()

    @property
    def output_schema(self) -> type[BaseModel]:
        """`get_output_schema()`."""
        return self.get_output_schema()

    def get_input_jsonschema(self, config: RunnableConfig | None = None) -> dict[str, Any]:
        """The JSON schema of the input."""
        return self.get_input_schema(config).model_json_schema()

    def get_output_jsonschema(self, config: RunnableConfig | None = None) -> dict[str, Any]:
        """The JSON schema of the output."""
        return self.get_output_schema(config).model_json_schema()

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """A graph of this runnable: input node → this runnable → output node."""
        from leanchain.runnables.graph import Graph

        return Graph.of_single(self)


Runnable.__abstractmethods__ = frozenset(_ABSTRACT)  # type: ignore[attr-defined]


def _add(left: Any, right: Any) -> Any:
    try:
        return left + right
    except TypeError:
        return right


def _generic_arg(cls: type, index: int) -> Any:
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            args = get_args(base)
            if len(args) == 2 and getattr(base, "__origin__", None) is not Generic:
                arg = args[index]
                if not isinstance(arg, TypeVar):
                    return arg
    return Any


def coerce_to_runnable(thing: Any) -> Runnable[Any, Any]:
    """A runnable from a runnable, generator function, callable or dict.

    Raises:
        TypeError: `thing` is none of those.
    """
    if isinstance(thing, Runnable):
        return thing
    if inspect.isasyncgenfunction(thing) or inspect.isgeneratorfunction(thing):
        from leanchain.runnables.generator import RunnableGenerator

        return RunnableGenerator(thing)
    if callable(thing):
        from leanchain.runnables.lambdas import RunnableLambda

        return RunnableLambda(thing)
    if isinstance(thing, dict):
        from leanchain.runnables.parallel import RunnableParallel

        return RunnableParallel(thing)
    raise TypeError(
        f"Expected a Runnable, callable or dict.Instead got an unsupported type: {type(thing)}"
    )
