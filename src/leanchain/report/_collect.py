"""The pieces the report handler collects with: steps and runs in progress, and what it reads
from a model call's request and reply (only generation settings: never keys or headers)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from leanchain.messages import BaseMessage
from leanchain.report._model import (
    ErrorRecord,
    EventRecord,
    RunRecord,
    StepKind,
    StepRecord,
    TokenUsage,
)
from leanchain.report._plain import message_data, plain

__all__ = [
    "RunInProgress",
    "StepInProgress",
    "error_record",
    "model_name",
    "reply_data",
    "reply_message",
    "request_settings",
    "token_usage",
    "utc_now",
]

_SETTINGS: Final = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "seed",
    "tool_choice",
    "frequency_penalty",
    "presence_penalty",
)
"""The request settings a model step keeps (never keys, headers or clients)."""


def utc_now() -> str:
    """The time now, ISO 8601 in UTC to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def error_record(error: BaseException) -> ErrorRecord:
    """An exception as its qualified class name and message."""
    cls = type(error)
    kind = (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )
    return ErrorRecord(type=kind, message=plain(str(error)))


class StepInProgress:
    """A step being collected (mutable until its run is turned into records)."""

    __slots__ = (
        "end",
        "error",
        "input",
        "kind",
        "model",
        "name",
        "output",
        "parent",
        "settings",
        "start",
        "tool_call_id",
        "usage",
    )

    def __init__(self, kind: StepKind, name: str, parent: int | None, start: float) -> None:
        self.kind: StepKind = kind
        self.name = name
        self.parent = parent
        self.start = start
        self.end: float | None = None
        self.error: ErrorRecord | None = None
        self.input: Any = None
        self.output: Any = None
        self.model: str | None = None
        self.usage: TokenUsage | None = None
        self.settings: dict[str, Any] | None = None
        self.tool_call_id: str | None = None

    def record(self) -> StepRecord:
        return StepRecord(
            kind=self.kind,
            name=self.name,
            parent=self.parent,
            start=round(self.start, 6),
            end=None if self.end is None else round(self.end, 6),
            error=self.error,
            input=self.input,
            output=self.output,
            model=self.model,
            usage=self.usage,
            settings=self.settings,
            tool_call_id=self.tool_call_id,
        )


class RunInProgress:
    """A run being collected: its clock, its steps and its events."""

    __slots__ = ("events", "started_at", "steps", "t0")

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.started_at = utc_now()
        self.steps: list[StepInProgress] = []
        self.events: list[EventRecord] = []

    def now(self) -> float:
        return time.perf_counter() - self.t0

    def record(self) -> RunRecord:
        return RunRecord(
            name=self.steps[0].name,
            started_at=self.started_at,
            steps=tuple(step.record() for step in self.steps),
            events=tuple(self.events),
        )


def model_name(params: Mapping[str, Any], fallback: str) -> str:
    model = params.get("model_name") or params.get("model")
    return model if isinstance(model, str) and model else fallback


def tool_names(tools: Any) -> list[str]:
    names: list[str] = []
    for tool in tools if isinstance(tools, Sequence) and not isinstance(tools, str) else ():
        if isinstance(tool, Mapping):
            function = tool.get("function")
            name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
        else:
            name = getattr(tool, "name", None)
        if isinstance(name, str):
            names.append(name)
    return names


def request_settings(params: Mapping[str, Any]) -> dict[str, Any] | None:
    settings = {key: plain(params[key]) for key in _SETTINGS if params.get(key) is not None}
    tools = tool_names(params.get("tools"))
    if tools:
        settings["tools"] = tools
    return settings or None


def token_usage(message: Any) -> TokenUsage | None:
    usage = getattr(message, "usage_metadata", None)
    if not isinstance(usage, Mapping):
        return None
    details = usage.get("input_token_details")
    cached = details.get("cache_read", 0) if isinstance(details, Mapping) else 0
    return TokenUsage(
        input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        total_tokens=int(usage.get("total_tokens") or 0),
        cached_input_tokens=int(cached or 0),
    )


def reply_data(message: BaseMessage) -> dict[str, Any]:
    """A model's reply as report data: the message, and why the model stopped when it said."""
    data = message_data(message)
    metadata = message.response_metadata
    reason = metadata.get("finish_reason") or metadata.get("stop_reason")
    if isinstance(reason, str):
        data["finish_reason"] = reason
    return data


def reply_message(response: Any) -> Any:
    generations = getattr(response, "generations", None)
    if not generations or not generations[0]:
        return None
    return getattr(generations[0][0], "message", None)
