"""Starting runs from a config, and the run tree's types.

A run starts with `start_run` (or `astart_run`), which returns a `RunManager` — or ``None``
when no handler is attached anywhere, so that the fast path allocates nothing. A run manager
reports the end or the error of its run and hands its children a `CallbackManager` that names
it as their parent (`leanchain.callbacks._runs`).

The handlers of a run tree are resolved once, at its root, into a dispatch table that every
run of the tree shares (`leanchain.callbacks._dispatch`): a handler pays only for the hooks it
overrides. A handler that raises is logged and ignored, unless it sets ``raise_error``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from leanchain.callbacks._dispatch import build_table
from leanchain.callbacks._run_ids import new_run_id
from leanchain.callbacks._runs import (
    CallbackManager,
    Callbacks,
    RunManager,
    RunType,
    atell_start,
    make_run,
    merge_callbacks,
    tell_start,
)

if TYPE_CHECKING:
    from leanchain.runnables.config import RunnableConfig

__all__ = [
    "CallbackManager",
    "Callbacks",
    "RunManager",
    "RunType",
    "astart_run",
    "merge_callbacks",
    "new_run_id",
    "silent_run",
    "start_run",
]


def _new_run(config: RunnableConfig, run_type: RunType, name: str) -> RunManager | None:
    """The run `config` asks for (``None`` without handlers); nothing is told yet."""
    callbacks = config.get("callbacks")
    if not callbacks:
        return None
    if isinstance(callbacks, CallbackManager):
        handlers, parent, local_tags = callbacks.handlers, callbacks.parent_run_id, callbacks.tags
        table = callbacks._table
        if table is None:
            table = callbacks.table()
    else:
        handlers, parent, local_tags = tuple(callbacks), None, ()
        table = build_table(handlers)
    if not handlers:
        return None
    return make_run(
        handlers,
        table,
        parent,
        local_tags,
        config,
        run_type,
        config.get("tags"),
        config.get("run_name") or name,
        config.get("run_id"),
    )


def silent_run(config: RunnableConfig, run_type: RunType, name: str) -> RunManager:
    """A run that tells no one: for code that asks for its run manager when no handler
    listens (a lambda's ``run_manager`` parameter). Its children hang under it as usual."""
    return make_run((), {}, None, (), config, run_type, config.get("tags"), name, None)


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
    run = _new_run(config, run_type, name)
    if run is not None:
        tell_start(run, serialized, inputs, extra)
    return run


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
    run = _new_run(config, run_type, name)
    if run is not None:
        await atell_start(run, serialized, inputs, extra)
    return run
