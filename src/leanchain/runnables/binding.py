"""`RunnableBinding`: a runnable with keyword arguments, config or types fixed in advance."""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from leanchain.callbacks.base import BaseCallbackHandler
from leanchain.runnables.base import Input, Output, Runnable
from leanchain.runnables.config import (
    RunnableConfig,
    config_for_user_code,
    ensure_config,
    merge_configs,
)
from leanchain.runnables.utils import accepts_config

if TYPE_CHECKING:
    from pydantic import BaseModel

    from leanchain.runnables._configurable_specs import ConfigurableFieldSpec
    from leanchain.runnables.graph import Graph
    from leanchain.runnables.retry import RunnableRetry

__all__ = ["DirectCall", "ListenerRun", "RunnableBinding", "listeners_factory"]

ConfigFactory = Callable[[RunnableConfig], RunnableConfig]


class DirectCall(Protocol):
    """A runnable's `invoke` and `ainvoke` with a binding's keyword arguments read in advance.

    A runnable class offers one through ``_direct_call(self, kwargs) -> DirectCall | None``:
    ``call.invoke(input, config)`` must equal ``runnable.invoke(input, config, **kwargs)`` in
    every way (value, errors, callbacks), and likewise ``ainvoke``. A binding without config
    of its own then calls it instead of merging a config and unpacking its arguments on every
    call (a chat model in an agent step is called so, ten thousand times a run).
    """

    def invoke(self, input: Any, config: RunnableConfig | None) -> Any:
        """``invoke(input, config, **kwargs)``."""

    async def ainvoke(self, input: Any, config: RunnableConfig | None) -> Any:
        """``await ainvoke(input, config, **kwargs)``."""

    def quiet(self, input: Any, config: RunnableConfig) -> Any:
        """`invoke` for a `config` that is ensured already and has no callbacks."""

    async def aquiet(self, input: Any, config: RunnableConfig) -> Any:
        """Async `quiet`."""


class RunnableBinding(Runnable[Input, Output]):
    """Calls `bound` with fixed keyword arguments and config; call-time values win.

    Attributes the binding does not have are looked up on `bound`, so a bound chat model
    still answers ``.model_name``.
    """

    __slots__ = (
        "_direct",
        "bound",
        "config",
        "config_factories",
        "custom_input_type",
        "custom_output_type",
        "kwargs",
    )

    def __init__(
        self,
        *,
        bound: Runnable[Input, Output],
        kwargs: Mapping[str, Any] | None = None,
        config: RunnableConfig | None = None,
        config_factories: Sequence[ConfigFactory] = (),
        custom_input_type: Any = None,
        custom_output_type: Any = None,
    ) -> None:
        self.bound = bound
        self.kwargs: dict[str, Any] = dict(kwargs or {})
        self.config: RunnableConfig = config or {}
        self.config_factories = list(config_factories)
        self.custom_input_type = custom_input_type
        self.custom_output_type = custom_output_type
        self._direct = self._prepare_direct()

    def _prepare_direct(self) -> DirectCall | None:
        """`bound`'s `DirectCall` for this binding's arguments, if it offers one.

        Not when the binding has config of its own: that is merged into each call's config.
        The method is looked up on the class: an instance's ``__getattr__`` (a binding's own)
        could answer for a runnable further in.
        """
        if self.config or self.config_factories:
            return None
        make = getattr(type(self.bound), "_direct_call", None)
        return None if make is None else make(self.bound, self.kwargs)

    def _quiet_call(self) -> DirectCall | None:
        """The call behind ``invoke(input, config)`` and ``ainvoke`` without keywords, for a
        caller that has ensured `config` and found no callbacks in it (it then calls
        ``quiet``/``aquiet``), or ``None``: no direct call, or a subclass with its own
        `invoke` or `ainvoke`. Read once by the caller, when it is built (`AgentRunnable`).
        """
        cls = type(self)
        if cls.invoke is RunnableBinding.invoke and cls.ainvoke is RunnableBinding.ainvoke:
            return self._direct
        return None

    def __getattr__(self, name: str) -> Any:
        if name in RunnableBinding.__slots__:
            raise AttributeError(name)
        attr = getattr(self.bound, name)
        if not inspect.ismethod(attr):
            return attr

        @functools.wraps(attr)
        def keep_binding(*args: Any, **kwargs: Any) -> Any:
            # `model.bind(stop=...).bind_tools(...)`: the method binds the bare model again;
            # keep what this binding already fixed instead of dropping it.
            result = attr(*args, **kwargs)
            if isinstance(result, RunnableBinding) and result.bound is self.bound:
                return self._with(
                    kwargs={**self.kwargs, **result.kwargs},
                    config={**self.config, **result.config},
                    config_factories=[*self.config_factories, *result.config_factories],
                )
            return result

        return keep_binding

    def __repr__(self) -> str:
        return f"RunnableBinding(bound={self.bound!r}, kwargs={self.kwargs!r})"

    @property
    def name(self) -> str | None:  # type: ignore[override]
        """The bound runnable's name."""
        return self.bound.name

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """The bound runnable's name."""
        return self.bound.get_name(suffix, name=name)

    def _with(self, **changes: Any) -> RunnableBinding[Input, Output]:
        fields = {
            "bound": self.bound,
            "kwargs": self.kwargs,
            "config": self.config,
            "config_factories": self.config_factories,
            "custom_input_type": self.custom_input_type,
            "custom_output_type": self.custom_output_type,
        }
        return RunnableBinding(**{**fields, **changes})

    def bind(self, **kwargs: Any) -> RunnableBinding[Input, Output]:
        """The same binding with more keyword arguments (new keys win)."""
        return self._with(kwargs={**self.kwargs, **kwargs})

    def with_config(
        self, config: RunnableConfig | None = None, **kwargs: Any
    ) -> RunnableBinding[Input, Output]:
        """The same binding with config keys replaced (a shallow update, as LangChain does)."""
        return self._with(config={**self.config, **(config or {}), **kwargs})

    def with_types(
        self, *, input_type: type[Any] | None = None, output_type: type[Any] | None = None
    ) -> RunnableBinding[Input, Output]:
        """The same binding reporting these types."""
        return self._with(
            custom_input_type=input_type or self.custom_input_type,
            custom_output_type=output_type or self.custom_output_type,
        )

    def with_listeners(
        self,
        *,
        on_start: Callable[..., Any] | None = None,
        on_end: Callable[..., Any] | None = None,
        on_error: Callable[..., Any] | None = None,
    ) -> RunnableBinding[Input, Output]:
        """The same binding with one more set of listeners."""
        factory = listeners_factory(on_start, on_end, on_error)
        return self._with(config_factories=[*self.config_factories, factory])

    def with_retry(self, **kwargs: Any) -> RunnableRetry[Input, Output]:
        """Retry the bound runnable, keeping this binding's arguments and config."""
        from leanchain.runnables.retry import RunnableRetry

        retry = self.bound.with_retry(**kwargs)
        return RunnableRetry(
            bound=self._with(bound=retry.bound),
            retry_exception_types=retry.retry_exception_types,
            wait_exponential_jitter=retry.wait_exponential_jitter,
            exponential_jitter_params=retry.exponential_jitter_params,
            max_attempt_number=retry.max_attempt_number,
        )

    def _merge(self, config: RunnableConfig | None) -> RunnableConfig:
        if not self.config and not self.config_factories:
            return ensure_config(config)
        merged = merge_configs(self.config, config)
        for factory in self.config_factories:
            merged = merge_configs(merged, factory(merged))
        return merged

    def _batch_configs(
        self, inputs: Sequence[Any], config: RunnableConfig | Sequence[RunnableConfig] | None
    ) -> Any:
        """The config of each input: a factory (`with_listeners`) makes its config per input,
        so that each input is a run of its own to it, as in LangChain."""
        if isinstance(config, Sequence):
            return [self._merge(c) for c in config]
        if self.config_factories:
            return [self._merge(config) for _ in inputs]
        return self._merge(config)

    def _kw(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {**self.kwargs, **kwargs} if kwargs else self.kwargs

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Invoke `bound` with the bound arguments and config."""
        direct = self._direct
        if direct is not None and not kwargs:
            return direct.invoke(input, config)  # type: ignore[no-any-return]
        return self.bound.invoke(input, self._merge(config), **self._kw(kwargs))

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async `invoke`."""
        direct = self._direct
        if direct is not None and not kwargs:
            return await direct.ainvoke(input, config)  # type: ignore[no-any-return]
        return await self.bound.ainvoke(input, self._merge(config), **self._kw(kwargs))

    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """`bound.batch` with the bound arguments and config."""
        configs = self._batch_configs(inputs, config)
        return self.bound.batch(
            inputs, configs, return_exceptions=return_exceptions, **self._kw(kwargs)
        )

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """`bound.abatch` with the bound arguments and config."""
        configs = self._batch_configs(inputs, config)
        return await self.bound.abatch(
            inputs, configs, return_exceptions=return_exceptions, **self._kw(kwargs)
        )

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """`bound.stream` with the bound arguments and config."""
        return self.bound.stream(input, self._merge(config), **self._kw(kwargs))

    def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """`bound.astream` with the bound arguments and config."""
        return self.bound.astream(input, self._merge(config), **self._kw(kwargs))

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """`bound.transform` with the bound arguments and config."""
        return self.bound.transform(input, self._merge(config), **self._kw(kwargs))

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """`bound.atransform` with the bound arguments and config."""
        return self.bound.atransform(input, self._merge(config), **self._kw(kwargs))

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The bound runnable's specs."""
        return self.bound.config_specs

    @property
    def InputType(self) -> Any:
        """The custom input type, else the bound runnable's."""
        return self.custom_input_type or self.bound.InputType

    @property
    def OutputType(self) -> Any:
        """The custom output type, else the bound runnable's."""
        return self.custom_output_type or self.bound.OutputType

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The custom input type's schema, else the bound runnable's."""
        if self.custom_input_type is not None:
            return super().get_input_schema(config)
        return self.bound.get_input_schema(config)

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The custom output type's schema, else the bound runnable's."""
        if self.custom_output_type is not None:
            return super().get_output_schema(config)
        return self.bound.get_output_schema(config)

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """The bound runnable's graph."""
        return self.bound.get_graph(config)


@dataclass
class ListenerRun:
    """What a `with_listeners` listener receives about the run it watches."""

    id: UUID
    """The run's id."""
    name: str
    """The runnable's name."""
    inputs: dict[str, Any]
    """``{"input": value}``, or the input itself when it is a dict."""
    start_time: float
    """When the run started (``time.time()``)."""
    outputs: dict[str, Any] | None = None
    """``{"output": value}``, or the output itself when it is a dict; ``None`` until it ends."""
    error: str | None = None
    """The error's repr when the run failed."""
    end_time: float | None = None
    """When the run ended."""
    tags: list[str] = field(default_factory=list)
    """The run's tags."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """The run's metadata."""


def _wrap(value: Any, key: str) -> dict[str, Any]:
    return value if isinstance(value, dict) else {key: value}


class _RootListener(BaseCallbackHandler):
    """Calls the listeners for the first run it sees (the bound runnable's), not its children."""

    raise_error = True

    def __init__(
        self,
        config: RunnableConfig,
        on_start: Callable[..., Any] | None,
        on_end: Callable[..., Any] | None,
        on_error: Callable[..., Any] | None,
    ) -> None:
        self._config = config
        self._listeners = (on_start, on_end, on_error)
        self._root: ListenerRun | None = None

    def _call(self, listener: Callable[..., Any] | None, run: ListenerRun) -> None:
        if listener is None:
            return
        if accepts_config(listener):
            listener(run, config=config_for_user_code(self._config))
        else:
            listener(run)

    def _start(self, inputs: Any, run_id: UUID, kwargs: dict[str, Any]) -> None:
        if self._root is not None:
            return
        self._root = ListenerRun(
            id=run_id,
            name=kwargs.get("name", ""),
            inputs=_wrap(inputs, "input"),
            start_time=time.time(),
            tags=list(kwargs.get("tags") or []),
            metadata=dict(kwargs.get("metadata") or {}),
        )
        self._call(self._listeners[0], self._root)

    def _end(self, run_id: UUID, output: Any = None, error: BaseException | None = None) -> None:
        root = self._root
        if root is None or root.id != run_id:
            return
        root.end_time = time.time()
        if error is None:
            root.outputs = _wrap(output, "output")
            self._call(self._listeners[1], root)
        else:
            root.error = repr(error)
            self._call(self._listeners[2], root)

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kw: Any) -> None:
        self._start(inputs, run_id, kw)

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: UUID, **kw: Any
    ) -> None:
        self._start(messages, run_id, kw)

    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: UUID, **kw: Any) -> None:
        self._start(input_str, run_id, kw)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kw: Any) -> None:
        self._end(run_id, outputs)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kw: Any) -> None:
        self._end(run_id, response)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kw: Any) -> None:
        self._end(run_id, output)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kw: Any) -> None:
        self._end(run_id, error=error)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kw: Any) -> None:
        self._end(run_id, error=error)

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kw: Any) -> None:
        self._end(run_id, error=error)


def listeners_factory(
    on_start: Callable[..., Any] | None,
    on_end: Callable[..., Any] | None,
    on_error: Callable[..., Any] | None,
) -> ConfigFactory:
    """A config factory that attaches a fresh root listener to every call."""

    def factory(config: RunnableConfig) -> RunnableConfig:
        return {"callbacks": [_RootListener(config, on_start, on_end, on_error)]}

    return factory
