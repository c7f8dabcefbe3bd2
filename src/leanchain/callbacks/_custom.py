"""User-defined events: `dispatch_custom_event` from inside a run (a lambda, a tool, ...).

The event is reported under the run whose code dispatches it, so it shows up in
`stream_events` as ``on_custom_event`` with that run's id, tags and metadata.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from leanchain.callbacks._dispatch import acall_handlers, call_handlers
from leanchain.callbacks.manager import CallbackManager

if TYPE_CHECKING:
    from leanchain.runnables.config import RunnableConfig

__all__ = ["adispatch_custom_event", "dispatch_custom_event"]

_NO_PARENT = (
    "Unable to dispatch a custom event without a parent run: call dispatch_custom_event from "
    "inside a run (a RunnableLambda, a RunnableGenerator or a tool), or pass that run's config."
)


def _inside_a_run() -> bool:
    """Whether a runnable is at work on the call stack (a frame whose ``self`` is one).

    Asked only when no config is published (a root call without handlers publishes none, to
    stay as fast as a plain function call), so that a misplaced call raises and code inside a
    run never does; walking the stack costs microseconds, once, on that rare path.
    """
    from leanchain.runnables.base import Runnable

    frame = inspect.currentframe()
    if frame is None:
        return True  # no frames to read (not CPython): never raise inside a run
    while frame is not None:
        if "self" in frame.f_code.co_varnames and isinstance(frame.f_locals.get("self"), Runnable):
            return True
        frame = frame.f_back
    return False


def _target(
    config: RunnableConfig | None,
) -> tuple[CallbackManager, dict[str, Any]] | None:
    from leanchain.runnables.config import current_config, ensure_config

    if config is None and current_config() is None and not _inside_a_run():
        raise RuntimeError(_NO_PARENT)  # outside any run, as LangChain: a misplaced call
    config = ensure_config(config)
    callbacks = config.get("callbacks")
    if not callbacks:
        # Inside a run nobody listens to: no run was started, and there is nothing to tell.
        return None
    if not isinstance(callbacks, CallbackManager) or callbacks.parent_run_id is None:
        raise RuntimeError(_NO_PARENT)
    kwargs = {
        "run_id": callbacks.parent_run_id,
        "tags": list(config.get("tags") or ()),
        "metadata": dict(config.get("metadata") or {}),
    }
    return callbacks, kwargs


def dispatch_custom_event(name: str, data: Any, *, config: RunnableConfig | None = None) -> None:
    """Send a user event named `name` carrying `data` to the handlers of the current run.

    Args:
        name: the event's name (the ``name`` of the ``on_custom_event`` stream event).
        data: anything; handlers and event consumers receive it as it is.
        config: the run's config; by default the one of the run whose code is running.

    Raises:
        RuntimeError: no run is in progress to attach the event to (called outside a run
            without a config, or handlers listen but the config names no run).
    """
    target = _target(config)
    if target is not None:
        manager, kwargs = target
        entries = manager.table().get("on_custom_event")
        if entries:
            call_handlers(entries, "on_custom_event", (name, data), kwargs)


async def adispatch_custom_event(
    name: str, data: Any, *, config: RunnableConfig | None = None
) -> None:
    """Async `dispatch_custom_event` (async handlers are awaited)."""
    target = _target(config)
    if target is not None:
        manager, kwargs = target
        entries = manager.table().get("on_custom_event")
        if entries:
            await acall_handlers(entries, "on_custom_event", (name, data), kwargs)
