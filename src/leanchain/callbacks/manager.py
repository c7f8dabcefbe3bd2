"""Dispatching run events to handlers, and the run tree.

A run starts with `start_run` (or `astart_run`), which returns a `RunManager` — or ``None``
when no handler is attached anywhere, so that the fast path allocates nothing. A run manager
reports the end or the error of its run and hands its children a `CallbackManager` that names
it as their parent.

A handler that raises is logged and ignored, unless it sets ``raise_error``.
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Coroutine, Sequence
from random import getrandbits as _getrandbits
from typing import TYPE_CHECKING, Any, Literal, TypeAlias
from uuid import UUID, SafeUUID

from leanchain.callbacks.base import BaseCallbackHandler

if TYPE_CHECKING:
    from leanchain.runnables.config import RunnableConfig

__all__ = [
    "CallbackManager",
    "Callbacks",
    "RunManager",
    "RunType",
    "astart_run",
    "merge_callbacks",
    "start_run",
]

logger = logging.getLogger("leanchain.callbacks")

_UNKNOWN_SAFETY = SafeUUID.unknown  # an enum member lookup runs Python code each time
_new_object = object.__new__
_set_attribute = object.__setattr__
_UUID4_CLEAR = ~((0xF000 << 64) | (0xC000 << 48)) & ((1 << 128) - 1)
_UUID4_SET = (0x4000 << 64) | (0x8000 << 48)

RunType: TypeAlias = Literal["chain", "prompt", "parser", "chat_model", "tool", "agent"]

_START = {"chat_model": "on_chat_model_start", "tool": "on_tool_start"}
_END = {"chat_model": "on_llm_end", "tool": "on_tool_end"}
_ERROR = {"chat_model": "on_llm_error", "tool": "on_tool_error"}

_IGNORE_FLAG = {
    "on_chain_start": "ignore_chain",
    "on_chain_end": "ignore_chain",
    "on_chain_error": "ignore_chain",
    "on_chain_stream": "ignore_chain",
    "on_chat_model_start": "ignore_chat_model",
    "on_llm_new_token": "ignore_llm",
    "on_llm_end": "ignore_llm",
    "on_llm_error": "ignore_llm",
    "on_tool_start": "ignore_tool",
    "on_tool_end": "ignore_tool",
    "on_tool_error": "ignore_tool",
    "on_agent_action": "ignore_agent",
    "on_agent_finish": "ignore_agent",
    "on_retry": "ignore_retry",
    "on_custom_event": "ignore_custom_event",
}


class CallbackManager:
    """Handlers, plus where the next run hangs in the run tree.

    This is what a parent puts in its children's ``config["callbacks"]``.

    Attributes:
        handlers: the handlers that observe the run and its descendants.
        parent_run_id: the run the next run is a child of.
        tags: tags for the next run only (such as ``seq:step:2``), not inherited further.
    """

    __slots__ = ("handlers", "parent_run_id", "tags")

    def __init__(
        self,
        handlers: Sequence[BaseCallbackHandler],
        parent_run_id: UUID | None = None,
        tags: Sequence[str] = (),
    ) -> None:
        self.handlers = handlers if type(handlers) is tuple else tuple(handlers)
        self.parent_run_id = parent_run_id
        self.tags = tags if type(tags) is tuple else tuple(tags)

    def __repr__(self) -> str:
        return f"CallbackManager(handlers={list(self.handlers)!r}, parent={self.parent_run_id})"


Callbacks: TypeAlias = Sequence[BaseCallbackHandler] | CallbackManager | None


def merge_callbacks(left: Callbacks, right: Callbacks) -> Callbacks:
    """Both sets of handlers; a manager keeps its place in the run tree."""
    if not left:
        return right
    if not right:
        return left
    if isinstance(left, CallbackManager):
        extra = right.handlers if isinstance(right, CallbackManager) else tuple(right)
        return CallbackManager((*left.handlers, *extra), left.parent_run_id, left.tags)
    if isinstance(right, CallbackManager):
        return CallbackManager((*left, *right.handlers), right.parent_run_id, right.tags)
    return [*left, *right]


def _run_coroutine(coro: Coroutine[Any, Any, Any]) -> None:
    """Run an async handler's coroutine to completion from synchronous code."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(coro)
        return
    # A loop runs in this thread already: finish the coroutine on a loop of its own.
    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(coro)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=target, name="leanchain-callback")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


def _dispatch(
    handlers: Sequence[BaseCallbackHandler], event: str, args: tuple[Any, ...], kw: dict[str, Any]
) -> None:
    flag = _IGNORE_FLAG.get(event)
    for handler in handlers:
        if flag is not None and getattr(handler, flag, False):
            continue
        try:
            result = getattr(handler, event)(*args, **kw)
            if result is not None and inspect.iscoroutine(result):
                _run_coroutine(result)
        except Exception as exc:
            if handler.raise_error:
                raise
            logger.warning("Error in %s.%s callback: %r", type(handler).__name__, event, exc)


async def _adispatch(
    handlers: Sequence[BaseCallbackHandler], event: str, args: tuple[Any, ...], kw: dict[str, Any]
) -> None:
    flag = _IGNORE_FLAG.get(event)
    for handler in handlers:
        if flag is not None and getattr(handler, flag, False):
            continue
        try:
            result = getattr(handler, event)(*args, **kw)
            if result is not None and inspect.isawaitable(result):
                await result
        except Exception as exc:
            if handler.raise_error:
                raise
            logger.warning("Error in %s.%s callback: %r", type(handler).__name__, event, exc)


def new_run_id() -> UUID:
    """A random (version 4) run id.

    Run ids name runs, they guard nothing, so the fast `random` generator serves: `uuid4`
    reads the OS entropy pool on every call, which costs as much as a whole traced step.
    """
    # What `UUID.__init__` itself ends with, minus its argument checks (half the cost).
    run_id = _new_object(UUID)
    _set_attribute(run_id, "int", (_getrandbits(128) & _UUID4_CLEAR) | _UUID4_SET)
    _set_attribute(run_id, "is_safe", _UNKNOWN_SAFETY)
    return run_id


class RunManager:
    """One run in progress: reports its events and parents its children."""

    __slots__ = (
        "handlers",
        "inheritable_tags",
        "metadata",
        "name",
        "parent_run_id",
        "run_id",
        "run_type",
        "tags",
    )

    def __init__(
        self,
        run_id: UUID,
        parent_run_id: UUID | None,
        handlers: tuple[BaseCallbackHandler, ...],
        run_type: RunType,
        name: str,
        tags: list[str],
        inheritable_tags: list[str],
        metadata: dict[str, Any],
    ) -> None:
        self.run_id = run_id
        self.parent_run_id = parent_run_id
        self.handlers = handlers
        self.run_type = run_type
        self.name = name
        self.tags = tags
        self.inheritable_tags = inheritable_tags
        self.metadata = metadata

    def child(self, tag: str | None = None) -> CallbackManager:
        """A manager for a child run; `tag` (e.g. ``seq:step:1``) labels that child only."""
        return CallbackManager(self.handlers, self.run_id, (tag,) if tag else ())

    def child_config(self, config: RunnableConfig, tag: str | None = None) -> RunnableConfig:
        """`config` for a child run of this one."""
        child = config.copy()
        if "run_name" in child or "run_id" in child:
            child.pop("run_name", None)
            child.pop("run_id", None)
        child["callbacks"] = CallbackManager(self.handlers, self.run_id, (tag,) if tag else ())
        return child

    def emit(self, event: str, *args: Any, **kwargs: Any) -> None:
        """Send `event` (a handler method name) about this run to every handler."""
        kwargs["run_id"] = self.run_id
        kwargs["parent_run_id"] = self.parent_run_id
        _dispatch(self.handlers, event, args, kwargs)

    async def aemit(self, event: str, *args: Any, **kwargs: Any) -> None:
        """Async twin of `emit`."""
        kwargs["run_id"] = self.run_id
        kwargs["parent_run_id"] = self.parent_run_id
        await _adispatch(self.handlers, event, args, kwargs)

    def on_end(self, output: Any, **kwargs: Any) -> None:
        """Report that the run finished with `output`."""
        kwargs["run_id"] = self.run_id
        kwargs["parent_run_id"] = self.parent_run_id
        _dispatch(self.handlers, _END.get(self.run_type, "on_chain_end"), (output,), kwargs)

    def on_error(self, error: BaseException, **kwargs: Any) -> None:
        """Report that the run raised `error`."""
        kwargs["run_id"] = self.run_id
        kwargs["parent_run_id"] = self.parent_run_id
        _dispatch(self.handlers, _ERROR.get(self.run_type, "on_chain_error"), (error,), kwargs)

    async def aon_end(self, output: Any, **kwargs: Any) -> None:
        """Async twin of `on_end`."""
        await self.aemit(_END.get(self.run_type, "on_chain_end"), output, **kwargs)

    async def aon_error(self, error: BaseException, **kwargs: Any) -> None:
        """Async twin of `on_error`."""
        await self.aemit(_ERROR.get(self.run_type, "on_chain_error"), error, **kwargs)


def _new_run(
    config: RunnableConfig, run_type: RunType, name: str, extra: dict[str, Any]
) -> RunManager | None:
    """The run manager (``None`` without handlers); fills `extra` with the start keywords."""
    callbacks = config.get("callbacks")
    if not callbacks:
        return None
    if isinstance(callbacks, CallbackManager):
        handlers, parent, local_tags = callbacks.handlers, callbacks.parent_run_id, callbacks.tags
    else:
        handlers, parent, local_tags = tuple(callbacks), None, ()
    if not handlers:
        return None
    inherited = config.get("tags")
    inheritable = list(inherited) if inherited else []
    tags = [*local_tags, *inheritable] if local_tags else inheritable[:]
    inherited_metadata = config.get("metadata")
    metadata = dict(inherited_metadata) if inherited_metadata else {}
    run_name = config.get("run_name") or name
    manager = RunManager(
        config.get("run_id") or new_run_id(),
        parent,
        handlers,
        run_type,
        run_name,
        tags,
        inheritable,
        metadata,
    )
    extra["run_id"] = manager.run_id
    extra["parent_run_id"] = parent
    extra["tags"] = tags
    extra["metadata"] = metadata
    extra["name"] = run_name
    if run_type == "prompt" or run_type == "parser":
        extra["run_type"] = run_type
    return manager


def start_run(
    config: RunnableConfig,
    run_type: RunType,
    name: str,
    inputs: Any,
    /,
    *,
    serialized: dict[str, Any] | None = None,
    **extra: Any,
) -> RunManager | None:
    """Start a run and tell the handlers; ``None`` (and no work) when there are none.

    Args:
        config: the run's config, whose ``callbacks`` say who listens and where the run hangs.
        run_type: which family of events to send (chain, prompt, parser, chat_model, tool).
        name: the runnable's name (``config["run_name"]`` wins).
        inputs: the run's input (the message lists for a chat model, the input text for a tool).
        serialized: a description of the runnable; defaults to ``{"name": name}``.
        **extra: passed to the start event as keywords (``inputs=`` for tools, ...).
    """
    manager = _new_run(config, run_type, name, extra)
    if manager is None:
        return None
    event = _START.get(run_type, "on_chain_start")
    _dispatch(manager.handlers, event, (serialized or {"name": manager.name}, inputs), extra)
    return manager


async def astart_run(
    config: RunnableConfig,
    run_type: RunType,
    name: str,
    inputs: Any,
    /,
    *,
    serialized: dict[str, Any] | None = None,
    **extra: Any,
) -> RunManager | None:
    """Async twin of `start_run`."""
    manager = _new_run(config, run_type, name, extra)
    if manager is None:
        return None
    event = _START.get(run_type, "on_chain_start")
    await _adispatch(manager.handlers, event, (serialized or {"name": manager.name}, inputs), extra)
    return manager
