"""A tool run, written once: `execute` and its async twin are `BaseTool._execute`/`_aexecute`.

A run starts for the callbacks only when someone listens, calls the tool with a config that
names the run as parent, turns a handled error into the observation, and wraps the result in
a `ToolMessage` when the input was a tool call. The config it runs with is the caller's plus
the tool's own tags, metadata and callbacks. A run nobody listens to first asks the tool for
its quick call (`BaseTool._quick_call`), which answers `NOT_QUICK` unless it can stand in for
the general steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Protocol

from pydantic import ValidationError

from leanchain.callbacks.manager import Callbacks, RunManager, astart_run, start_run
from leanchain.errors import ToolException
from leanchain.messages import display_text
from leanchain.runnables.config import RunnableConfig, ensure_config, merge_configs
from leanchain.tools._injected import inject
from leanchain.tools._output import (
    format_output,
    handle_tool_error,
    handle_validation_error,
    split_artifact,
)
from leanchain.tools._validation import ToolInputValidationError

if TYPE_CHECKING:
    from leanchain.tools._base import BaseTool

__all__ = [
    "NOT_QUICK",
    "aexecute",
    "astart_tool_run",
    "call_config",
    "execute",
    "start_tool_run",
    "with_tool_settings",
]


NOT_QUICK: Final = object()
"""What `BaseTool._quick_call` returns when the call must take the general way."""


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
    # `display_text`: arguments `str` cannot write (an int of 5,000 digits) must not fail
    # the run before the tool has even started.
    return tool_input if isinstance(tool_input, str) else display_text(tool_input)


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
    config: RunnableConfig,
    tags: list[str] | None,
    metadata: dict[str, Any] | None,
    callbacks: Callbacks,
) -> RunnableConfig:
    """The (ensured) config of a run plus a tool's own tags, metadata and callbacks.

    Called only for a tool that has some: most have none and run with the caller's config.
    """
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
) -> RunnableConfig | None:
    """The config for `BaseTool.run`'s keyword arguments laid over `config`.

    `run` calls it only when some are given: otherwise the run takes `config` as it was
    given and resolves it (`ensure_config`) once.
    """
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
    return merge_configs(config, extra)


def _outcome(self: BaseTool, exc: Exception) -> Any:
    """The observation for a handled error; re-raises an error that is not handled."""
    if isinstance(exc, (ToolInputValidationError, ValidationError)):
        if self.handle_validation_error:
            return handle_validation_error(exc, self.handle_validation_error)
    elif isinstance(exc, ToolException) and self.handle_tool_error:
        return handle_tool_error(exc, self.handle_tool_error)
    raise exc


def execute(
    self: BaseTool,
    tool_input: Any,
    config: RunnableConfig | None,
    tool_call_id: str | None,
    as_message: bool = True,
    resolved: bool = False,
) -> Any:
    """Run `self` on `tool_input`: its output, or a `ToolMessage` answering `tool_call_id`.

    `resolved`: `config` is what `ensure_config` made of it in this context already (an
    agent run's config, which no one listens to), so resolving it again would only copy it.
    """
    config = config if resolved and config is not None else ensure_config(config)
    if self.tags or self.metadata or self.callbacks:
        config = with_tool_settings(config, self.tags, self.metadata, self.callbacks)
    run = None
    if config.get("callbacks"):
        run = start_tool_run(config, self, tool_input, tool_call_id)
    status = "success"
    try:
        try:
            response = NOT_QUICK if run is not None else self._quick_call(tool_input, config)
            if response is NOT_QUICK:
                child = config if run is None else run.child_config(config)
                found = self._injections()
                if found is not None:
                    tool_input = inject(found, tool_input, tool_call_id, config)
                response = self._call(tool_input, child, run)
            content, artifact = response, None
            if self.response_format == "content_and_artifact":
                content, artifact = split_artifact(response)
        except Exception as exc:
            content, artifact, status = _outcome(self, exc), None, "error"
        output = content  # what `format_output` makes of it when no tool call is answered
        if as_message and tool_call_id is not None:
            output = format_output(content, artifact, tool_call_id, self.name, status)
    except BaseException as exc:
        if run is not None:
            run.on_error(exc)
        raise
    if run is not None:
        run.on_end(output)
    return output


async def aexecute(
    self: BaseTool,
    tool_input: Any,
    config: RunnableConfig | None,
    tool_call_id: str | None,
    as_message: bool = True,
) -> Any:
    """Async `execute`."""
    config = ensure_config(config)
    if self.tags or self.metadata or self.callbacks:
        config = with_tool_settings(config, self.tags, self.metadata, self.callbacks)
    run = None
    if config.get("callbacks"):
        run = await astart_tool_run(config, self, tool_input, tool_call_id)
    status = "success"
    try:
        try:
            response = NOT_QUICK
            if run is None:
                response = await self._aquick_call(tool_input, config)
            if response is NOT_QUICK:
                child = config if run is None else run.child_config(config)
                found = self._injections()
                if found is not None:
                    tool_input = inject(found, tool_input, tool_call_id, config)
                response = await self._acall(tool_input, child, run)
            content, artifact = response, None
            if self.response_format == "content_and_artifact":
                content, artifact = split_artifact(response)
        except Exception as exc:
            content, artifact, status = _outcome(self, exc), None, "error"
        output = content  # what `format_output` makes of it when no tool call is answered
        if as_message and tool_call_id is not None:
            output = format_output(content, artifact, tool_call_id, self.name, status)
    except BaseException as exc:
        if run is not None:
            await run.aon_error(exc)
        raise
    if run is not None:
        await run.aon_end(output)
    return output
