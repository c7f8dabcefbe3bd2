"""`Runnable`: the one protocol every pipeline part implements, and `|` coercion.

A subclass implements `invoke` (and `ainvoke` when it has real async work, `transform` when it
can stream). Everything else has a correct default here: batching, streaming, composition,
bindings, retries, fallbacks, schemas and graphs.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Coroutine,
    Generator,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, overload

from leanchain.runnables._abstract import abstract_methods
from leanchain.runnables._batching import abatch_tasks, batch_tasks
from leanchain.runnables._chunks import afold, fold
from leanchain.runnables._coerce import RunnableLike, _TakesConfig, coerce_to_runnable
from leanchain.runnables._event_module import event_stream
from leanchain.runnables._signature import generic_arg
from leanchain.runnables._traced import (
    acall_with_config,
    atransform_with_config,
    call_with_config,
    invoke_child,
    transform_child,
    transform_with_config,
)
from leanchain.runnables.concurrency import (
    arun_all,
    arun_as_completed,
    run_all,
    run_as_completed,
    run_in_executor,
)
from leanchain.runnables.config import RunnableConfig, ensure_config

if TYPE_CHECKING:
    from pydantic import BaseModel

    from leanchain.callbacks import StreamEvent
    from leanchain.runnables._configurable_specs import ConfigurableFieldSpec
    from leanchain.runnables.binding import RunnableBinding
    from leanchain.runnables.each import RunnableEach
    from leanchain.runnables.fallbacks import RunnableWithFallbacks
    from leanchain.runnables.graph import Graph
    from leanchain.runnables.retry import RunnableRetry

__all__ = ["Input", "Output", "Runnable", "RunnableLike", "coerce_to_runnable"]

Input = TypeVar("Input", contravariant=True)
Output = TypeVar("Output", covariant=True)
Out = TypeVar("Out")
Other = TypeVar("Other")


class Runnable(Generic[Input, Output]):
    """A unit of work that can be invoked, batched, streamed and composed with ``|``.

    Runnables are immutable after construction and safe to share between threads and tasks.
    """

    # Not an `abc.ABC`, for a cheap ``isinstance``; a subclass without `invoke` still cannot
    # be instantiated (`_abstract`).
    # `__weakref__`: what the library remembers about a runnable it holds weakly (a
    # runnable dies with its last user reference, never kept by a cache).
    __slots__ = ("__weakref__",)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.__abstractmethods__ = abstract_methods(cls)  # type: ignore[attr-defined]

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

    _batch_tasks = batch_tasks
    _abatch_tasks = abatch_tasks

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

        The run goes on on a producer thread, unless its last event stream showed it over
        before anyone could watch it (no model, no tool, no wait): then in this thread.

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
        events: Generator[StreamEvent, None, None] = event_stream().stream_events(
            self,
            input,
            ensure_config(config),
            version=version,
            include_names=include_names,
            include_types=include_types,
            include_tags=include_tags,
            exclude_names=exclude_names,
            exclude_types=exclude_types,
            exclude_tags=exclude_tags,
            **kwargs,
        )
        return events

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
        aevents: AsyncGenerator[StreamEvent, None] = event_stream().astream_events(
            self,
            input,
            ensure_config(config),
            version=version,
            include_names=include_names,
            include_types=include_types,
            include_tags=include_tags,
            exclude_names=exclude_names,
            exclude_types=exclude_types,
            exclude_tags=exclude_tags,
            **kwargs,
        )
        return aevents

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream over a stream of input chunks; by default adds them up, then streams once."""
        got, total = fold(input)
        if got:
            yield from self.stream(total, config, **kwargs)

    async def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async `transform`."""
        got, total = await afold(input)
        if got:
            async for chunk in self.astream(total, config, **kwargs):
                yield chunk

    # -- running with callbacks (`_traced`) -------------------------------------------------

    _call_with_config = call_with_config
    _acall_with_config = acall_with_config
    _transform_with_config = transform_with_config
    _atransform_with_config = atransform_with_config
    _invoke_child = invoke_child
    _transform_child = transform_child

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

    def map(self) -> RunnableEach[Input, Output]:
        """A runnable over a list that runs this one on every item (`batch`), keeping order.

        Each item gets the call's config; the first failing item raises. LangChain's
        ``Runnable.map`` (RunnableEach).
        """
        from leanchain.runnables.each import RunnableEach

        return RunnableEach(bound=self)

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
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """What this runnable reads from ``config["configurable"]``: nothing by default."""
        return []

    @property
    def InputType(self) -> Any:
        """The input type, from the generic parameters (``Any`` when unknown)."""
        return generic_arg(type(self), 0)

    @property
    def OutputType(self) -> Any:
        """The output type, from the generic parameters (``Any`` when unknown)."""
        return generic_arg(type(self), 1)

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


Runnable.__abstractmethods__ = abstract_methods(Runnable)  # type: ignore[attr-defined]
