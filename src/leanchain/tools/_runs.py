"""Starting a tool run for the callbacks, and the config a tool run sees."""

from __future__ import annotations

from typing import Any, Protocol

from leanchain.callbacks.manager import Callbacks, RunManager, astart_run, start_run
from leanchain.runnables.config import RunnableConfig, ensure_config, merge_configs

__all__ = ["astart_tool_run", "call_config", "start_tool_run", "with_tool_settings"]


class _Tool(Protocol):
    name: str
    description: str


def _start_args(tool: _Tool, tool_input: Any, tool_call_id: str | None) -> dict[str, Any]:
    return {
        "serialized": {"name": tool.name, "description": tool.description},
        "inputs": None if isinstance(tool_input, str) else tool_input,
        "tool_call_id": tool_call_id,
    }


def _text(tool_input: Any) -> str:
    return tool_input if isinstance(tool_input, str) else str(tool_input)


def start_tool_run(
    config: RunnableConfig, tool: _Tool, tool_input: Any, tool_call_id: str | None
) -> RunManager | None:
    """Start a tool run and send ``on_tool_start``; ``None`` when nobody listens."""
    if not config.get("callbacks"):
        return None
    return start_run(
        config, "tool", tool.name, _text(tool_input), **_start_args(tool, tool_input, tool_call_id)
    )


async def astart_tool_run(
    config: RunnableConfig, tool: _Tool, tool_input: Any, tool_call_id: str | None
) -> RunManager | None:
    """Async twin of `start_tool_run`."""
    if not config.get("callbacks"):
        return None
    return await astart_run(
        config, "tool", tool.name, _text(tool_input), **_start_args(tool, tool_input, tool_call_id)
    )


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
