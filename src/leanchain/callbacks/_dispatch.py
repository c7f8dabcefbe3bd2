"""Which handlers want which event, and calling them.

A handler pays only for the hooks it overrides. Which hooks a handler class overrides is found
once per class; a run tree's handlers are resolved once, at its root, into a table from event
name to the ``(handler, hook)`` pairs that want it (``ignore_*`` flags and the class's current
functions are read then), and a hook is called as ``hook(handler, ...)``: no method is bound.
The whole tree shares that table, so an event that no handler wants costs one dict lookup:
no keyword dict, no calls. A hook that a handler inherits from `BaseCallbackHandler` does
nothing, so skipping it changes nothing.

A handler that raises is logged and ignored, unless it sets ``raise_error``.
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Callable, Coroutine, Sequence
from types import FunctionType
from typing import Any, TypeAlias
from uuid import UUID

from leanchain.callbacks.base import BaseCallbackHandler
from leanchain.callbacks.weak import WeakMemo

__all__ = [
    "EVENTS",
    "Entries",
    "Table",
    "acall_handlers",
    "acall_run_hooks",
    "build_table",
    "call_handlers",
    "call_run_hooks",
    "handler_failed",
    "is_coroutine",
    "run_coroutine",
]

logger = logging.getLogger("leanchain.callbacks")

is_coroutine = inspect.iscoroutine

EVENTS: tuple[str, ...] = tuple(
    name for name in vars(BaseCallbackHandler) if name.startswith("on_")
)
"""Every hook of the handler protocol."""

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
    "on_retriever_start": "ignore_retriever",
    "on_retriever_end": "ignore_retriever",
    "on_retriever_error": "ignore_retriever",
    "on_agent_action": "ignore_agent",
    "on_agent_finish": "ignore_agent",
    "on_retry": "ignore_retry",
    "on_custom_event": "ignore_custom_event",
}

Entries: TypeAlias = tuple[tuple[BaseCallbackHandler, Callable[..., Any]], ...]
"""The handlers that want one event, each with its hook (called with the handler first)."""
Table: TypeAlias = dict[str, Entries]
"""Event name → the handlers that want it (events nobody wants are absent)."""

_EVENT_NAMES = frozenset(EVENTS)
_NOOP = {name: vars(BaseCallbackHandler)[name] for name in EVENTS}
_Hooks: TypeAlias = tuple[tuple[str | None, tuple[tuple[str, bool], ...]], ...]
"""Hook names grouped by the ``ignore_*`` flag that silences them, each with whether the class
defines it as a plain function (else it is looked up on each handler)."""
_hooks_of: WeakMemo[_Hooks] = WeakMemo()
"""Each handler class's hooks, held weakly (a class made per request is not kept alive)."""


def _group(hooks: Sequence[tuple[str, bool]]) -> _Hooks:
    """`hooks` grouped by the ``ignore_*`` flag that silences them (``None``: no flag)."""
    groups: dict[str | None, list[tuple[str, bool]]] = {}
    for hook in hooks:
        groups.setdefault(_IGNORE_FLAG.get(hook[0]), []).append(hook)
    return tuple((flag, tuple(group)) for flag, group in groups.items())


def _overridden(cls: type) -> _Hooks:
    """The hooks `cls` defines itself or inherits from something else than the no-op base.

    Found on first use (a class may get its hooks after it is created), then remembered.
    """
    found = _hooks_of.get(cls)
    if found is None:
        if _resolves_dynamically(cls):
            # A handler that answers hooks through __getattr__/__getattribute__ (a recorder
            # of every event, a proxy) cannot be read statically: it gets every event.
            hooks: list[tuple[str, bool]] = [(n, False) for n in EVENTS]
        else:
            hooks = []
            for name in EVENTS:
                hook = inspect.getattr_static(cls, name, None)
                if hook is not None and hook is not _NOOP[name]:
                    hooks.append((name, isinstance(hook, FunctionType)))
        found = _group(hooks)
        _hooks_of.put(cls, found)
    return found


def _resolves_dynamically(cls: type) -> bool:
    """Whether `cls` computes attributes at lookup time (its own __getattr__/__getattribute__)."""
    return (
        inspect.getattr_static(cls, "__getattribute__", None) is not object.__getattribute__
        or inspect.getattr_static(cls, "__getattr__", None) is not None
    )


def _looked_up(handler: BaseCallbackHandler, name: str) -> Callable[..., Any]:
    """A hook for what `handler` answers to `name` (a static or class method, an attribute
    of the instance, a dynamic lookup), called like a plain function's."""
    method = getattr(handler, name)

    def hook(_: BaseCallbackHandler, *args: Any, **kwargs: Any) -> Any:
        return method(*args, **kwargs)

    return hook


_fixed_tables: dict[type, tuple[tuple[str, Callable[..., Any]], ...]] = {}


def _handler_table(handler: BaseCallbackHandler) -> Table:
    """The table of one handler."""
    cls = type(handler)
    if "_hooks_fixed" in cls.__dict__:
        # leanchain's own per-call handlers (the event stream's collector): their hooks and
        # flags are the class's for good, so the class's table is read once.
        fixed = _fixed_tables.get(cls)
        if fixed is None:
            fixed = _fixed_tables[cls] = tuple(
                (name, entries[0][1]) for name, entries in _read_table(handler, cls).items()
            )
        return {name: ((handler, hook),) for name, hook in fixed}
    return _read_table(handler, cls)


def _read_table(handler: BaseCallbackHandler, cls: type) -> Table:
    """The table of `handler`, read from its class and itself."""
    hooks = _overridden(cls)
    own = getattr(handler, "__dict__", None)
    if own and not _EVENT_NAMES.isdisjoint(own):
        # A hook set on the instance itself (rare) counts too, and wins.
        known = {name for _, group in hooks for name, _ in group}
        hooks = _group([(n, False) for n in EVENTS if n in known or n in own])
    table: Table = {}
    for flag, group in hooks:
        if flag is not None and getattr(handler, flag, False):
            continue
        for name, plain in group:
            # Read from the class each time: a hook replaced on the class is the one called.
            hook = getattr(cls, name) if plain else _looked_up(handler, name)
            table[name] = ((handler, hook),)
    return table


def build_table(handlers: Sequence[BaseCallbackHandler]) -> Table:
    """The dispatch table of `handlers` (in their order, for every event); read-only."""
    if len(handlers) == 1:
        return _handler_table(handlers[0])
    table: Table = {}
    for handler in handlers:
        for name, entries in _handler_table(handler).items():
            previous = table.get(name)
            table[name] = entries if previous is None else (*previous, *entries)
    return table


def run_coroutine(coro: Coroutine[Any, Any, Any]) -> None:
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


def handler_failed(handler: BaseCallbackHandler, event: str, error: Exception) -> None:
    """A hook raised `error`: log it, or re-raise it for a handler that sets ``raise_error``."""
    if handler.raise_error:
        raise error
    logger.warning("Error in %s.%s callback: %r", type(handler).__name__, event, error)


def call_handlers(entries: Entries, event: str, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    """Call every hook of `entries` with `args` and `kw` (async hooks run to completion)."""
    for handler, hook in entries:
        try:
            result = hook(handler, *args, **kw)
            if result is not None and is_coroutine(result):
                run_coroutine(result)
        except Exception as exc:
            handler_failed(handler, event, exc)


async def acall_handlers(
    entries: Entries, event: str, args: tuple[Any, ...], kw: dict[str, Any]
) -> None:
    """Async `call_handlers`: async hooks are awaited."""
    for handler, hook in entries:
        try:
            result = hook(handler, *args, **kw)
            if result is not None and inspect.isawaitable(result):
                await result
        except Exception as exc:
            handler_failed(handler, event, exc)


def call_run_hooks(
    entries: Entries,
    event: str,
    payload: Any,
    run_id: UUID,
    parent_run_id: UUID | None,
    kw: dict[str, Any],
) -> None:
    """``hook(payload, run_id=..., parent_run_id=..., **kw)`` for every hook of `entries`.

    The common case (no extra keywords) passes the keywords directly: no dict is unpacked.
    """
    for handler, hook in entries:
        try:
            if kw:
                result = hook(handler, payload, run_id=run_id, parent_run_id=parent_run_id, **kw)
            else:
                result = hook(handler, payload, run_id=run_id, parent_run_id=parent_run_id)
            if result is not None and is_coroutine(result):
                run_coroutine(result)
        except Exception as exc:
            handler_failed(handler, event, exc)


async def acall_run_hooks(
    entries: Entries,
    event: str,
    payload: Any,
    run_id: UUID,
    parent_run_id: UUID | None,
    kw: dict[str, Any],
) -> None:
    """Async `call_run_hooks`: async hooks are awaited."""
    for handler, hook in entries:
        try:
            if kw:
                result = hook(handler, payload, run_id=run_id, parent_run_id=parent_run_id, **kw)
            else:
                result = hook(handler, payload, run_id=run_id, parent_run_id=parent_run_id)
            if result is not None and inspect.isawaitable(result):
                await result
        except Exception as exc:
            handler_failed(handler, event, exc)
