"""Run values as plain JSON data: messages, prompt values, agent decisions, anything else.

A report keeps what a run saw and said, never live objects: every value a callback hands
over is turned into JSON types here, once, when it arrives. Nothing is ever revived from
this data; it is for reading.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, Final

from pydantic import BaseModel

from leanchain.agents.schema import AgentAction, AgentFinish, AgentStep
from leanchain.messages import BaseMessage
from leanchain.prompts import ChatPromptValue, StringPromptValue

__all__ = ["MAX_DEPTH", "MAX_TEXT", "message_data", "plain"]

MAX_TEXT: Final = 1_000_000
"""The most characters of one string a report keeps (the rest is counted, not kept)."""
MAX_DEPTH: Final = 40
"""How deep nested containers are followed; deeper values are written as their type name."""
MAX_ITEMS: Final = 10_000
"""The most items of one list or dict a report keeps."""


def _text(value: str) -> str:
    if len(value) <= MAX_TEXT:
        return value
    return value[:MAX_TEXT] + f"… ({len(value) - MAX_TEXT} more characters)"


def message_data(message: BaseMessage, depth: int = 0) -> dict[str, Any]:
    """A message as ``{"type", "content", ...}``: its kind, content, and whichever of name,
    tool calls, tool call id and status it has."""
    kind = message.type
    if kind.endswith("MessageChunk"):  # a streamed reply: the same message, merged
        kind = kind.removesuffix("MessageChunk").lower()
    data: dict[str, Any] = {"type": kind, "content": plain(message.content, depth + 1)}
    if message.name:
        data["name"] = _text(message.name)
    calls = getattr(message, "tool_calls", None)
    if calls:
        data["tool_calls"] = [
            {
                "name": plain(call.get("name"), depth + 2),
                "args": plain(call.get("args"), depth + 2),
                "id": plain(call.get("id"), depth + 2),
            }
            for call in calls
        ]
    invalid = getattr(message, "invalid_tool_calls", None)
    if invalid:
        data["invalid_tool_calls"] = plain(list(invalid), depth + 1)
    call_id = getattr(message, "tool_call_id", None)
    if isinstance(call_id, str):
        data["tool_call_id"] = _text(call_id)
    status = getattr(message, "status", None)
    if status == "error":
        data["status"] = "error"
    return data


def _action(action: AgentAction, depth: int) -> dict[str, Any]:
    data: dict[str, Any] = {
        "tool": _text(action.tool),
        "tool_input": plain(action.tool_input, depth + 1),
        "log": _text(action.log),
    }
    call_id = getattr(action, "tool_call_id", None)
    if isinstance(call_id, str):
        data["tool_call_id"] = _text(call_id)
    return data


def plain(value: Any, depth: int = 0) -> Any:
    """`value` as JSON data (dicts with str keys, lists, str, int, float, bool, None).

    Never raises: what has no JSON form is written as its ``repr``, cut to `MAX_TEXT`.
    Floats that JSON cannot say (NaN, infinities) become strings.
    """
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if depth >= MAX_DEPTH:
        return f"<{type(value).__name__}: nested too deep>"
    try:
        return _container(value, depth)
    except Exception as exc:  # a value's own accessors failed; say so rather than fail
        return f"<{type(value).__name__}: {type(exc).__name__} while reading it>"


def _container(value: Any, depth: int) -> Any:
    inner = depth + 1
    if isinstance(value, Mapping):
        pairs = list(value.items())
        data = {_text(str(key)): plain(item, inner) for key, item in pairs[:MAX_ITEMS]}
        if len(pairs) > MAX_ITEMS:
            data["…"] = f"{len(pairs) - MAX_ITEMS} more items"
        return data
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        kept = [plain(item, inner) for item in items[:MAX_ITEMS]]
        if len(items) > MAX_ITEMS:
            kept.append(f"… ({len(items) - MAX_ITEMS} more items)")
        return kept
    if isinstance(value, BaseMessage):
        return message_data(value, depth)
    if isinstance(value, ChatPromptValue):
        return [message_data(message, inner) for message in value.messages]
    if isinstance(value, StringPromptValue):
        return _text(value.text)
    if isinstance(value, AgentAction):
        return _action(value, depth)
    if isinstance(value, AgentFinish):
        return {"return_values": plain(value.return_values, inner), "log": _text(value.log)}
    if isinstance(value, AgentStep):
        return {
            "action": _action(value.action, inner),
            "observation": plain(value.observation, inner),
        }
    if isinstance(value, BaseModel):
        # JSON mode: a SecretStr is written as stars, never its value.
        return plain(value.model_dump(mode="json"), inner)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return plain(fields, inner)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return _text(repr(value))
