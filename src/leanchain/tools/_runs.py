"""Starting a tool run for the callbacks, and the config a tool run sees."""

from __future__ import annotations

from typing import Any, Protocol

from leanchain.callbacks import manager as _callbacks
from leanchain.callbacks.manager import Callbacks, RunManager
from leanchain.runnables.config import RunnableConfig, ensure_config, merge_configs

__all__ = ["astart_tool_run", "call_config", "start_tool_run", "with_tool_settings"]


class _Tool(Protocol):
    name: str
    description: str


def _start_tool_run(
    config: RunnableConfig, tool: _Tool, tool_input: Any, tool_call_id: str | None
) -> tuple[RunManager, str, tuple[Any, ...], dict[str, Any]] | None:
    """The tool run and its ``on_tool_start`` event, not yet sent.

    ``on_tool_start`` takes ``inputs=`` as a keyword, which `start_run` cannot pass on while
    its own positional parameter is called ``inputs``; until that parameter is positional-only
    the event is built here from the same parts `start_run` uses.
    """
    extra = {
        "inputs": None if isinstance(tool_input, str) else tool_input,
        "tool_call_id": tool_call_id,
    }
    prepared = _callbacks._prepare(config, "tool", tool.name, extra)
    if prepared is None:
        return None
    run, event, kwargs = prepared
    text = tool_input if isinstance(tool_input, str) else str(tool_input)
    return run, event, ({"name": run.name, "description": tool.description}, text), kwargs


def start_tool_run(
    config: RunnableConfig, tool: _Tool, tool_input: Any, tool_call_id: str | None
) -> RunManager | None:
    """Start a tool run and send ``on_tool_start``; ``None`` when nobody listens."""
    start = _start_tool_run(config, tool, tool_input, tool_call_id)
    if start is None:
        return None
    run, event, args, kwargs = start
    _callbacks._dispatch(run.handlers, event, args, kwargs)
    return run


async def astart_tool_run(
    config: RunnableConfig, tool: _Tool, tool_input: Any, tool_call_id: str | None
) -> RunManager | None:
    """Async twin of `start_tool_run`."""
    start = _start_tool_run(config, tool, tool_input, tool_call_id)
    if start is None:
        return None
    run, event, args, kwargs = start
    await _callbacks._adispatch(run.handlers, event, args, kwargs)
    return run


def with_tool_settings(
    config: RunnableConfig | None,
    tags: list[str] | None,
    metadata: dict[str, Any] | None,
    callbacks: Callbacks,
) -> RunnableConfig:
    """The caller's config plus a tool's own tags, metadata and callbacks (when it has any)."""
    config = ensure_config(config)
    if not (tags or metadata or callbacks):
        return config
    own: RunnableConfig = {}
    if tags:
        own["tags"] = tags
    if metadata:
        own["metadata"] = metadata
    if callbacks:
        own["callbacks"] = callbacks
    return merge_configs(config, own)


def call_config(
    config: RunnableConfig | None,
    callbacks: Callbacks,
    tags: list[str] | None,
    metadata: dict[str, Any] | None,
    run_name: str | None,
    run_id: Any,
) -> RunnableConfig:
    """The config for `BaseTool.run`'s keyword arguments laid over `config`."""
    extra: RunnableConfig = {}
    if callbacks:
        extra["callbacks"] = callbacks
    if tags:
        extra["tags"] = tags
    if metadata:
        extra["metadata"] = metadata
    if run_name is not None:
        extra["run_name"] = run_name
    if run_id is not None:
        extra["run_id"] = run_id
    return merge_configs(config, extra) if extra else ensure_config(config)
