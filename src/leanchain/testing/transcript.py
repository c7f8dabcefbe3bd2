"""Messages written for people: what `HumanChatModel` shows and ``leanchain replay`` prints.

A message is a header line in brackets (``[system]``, ``[human]``, ``[ai]``, ``[tool
get_time call_Z]``) followed by its text, and one ``-> name {args} (id)`` line per tool call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from leanchain.messages import AIMessage, BaseMessage, ToolMessage

__all__ = [
    "call_line",
    "header",
    "message_lines",
    "prompt_lines",
    "shorten",
    "tool_names",
    "usage_line",
]


def shorten(text: str, limit: int | None) -> str:
    """`text`, cut to `limit` characters with a note of how long it was."""
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} chars)"


def header(message: BaseMessage) -> str:
    """The bracketed header of `message`."""
    if isinstance(message, ToolMessage):
        return f"[tool {message.name or '?'} {message.tool_call_id}]"
    kind = message.type
    if kind.endswith("MessageChunk"):
        kind = kind[: -len("MessageChunk")].lower()
    return f"[{kind} {message.name}]" if message.name else f"[{kind}]"


def call_line(name: str, args: Any, id: str | None) -> str:
    """One tool call: ``-> name {"arg": 1} (id)``."""
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return f"-> {name} {text}" + (f" ({id})" if id else "")


def message_lines(message: BaseMessage, limit: int | None = None) -> list[str]:
    """`message` as lines: its header, its text (cut to `limit`), its tool calls."""
    lines = [header(message)]
    text = message.text
    if text:
        lines.extend(shorten(text, limit).split("\n"))
    if isinstance(message, AIMessage):
        lines.extend(call_line(c["name"], c["args"], c["id"]) for c in message.tool_calls)
        lines.extend(
            call_line(c["name"] or "?", c["args"] or "", c["id"]) + f"  [invalid: {c['error']}]"
            for c in message.invalid_tool_calls
        )
    return lines


def tool_names(tools: Any) -> list[str]:
    """The names of the tools a request offers (OpenAI or Anthropic tool schemas)."""
    names: list[str] = []
    for tool in tools if isinstance(tools, Sequence) else ():
        if not isinstance(tool, Mapping):
            continue
        function = tool.get("function")
        name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
        names.append(str(name))
    return names


def prompt_lines(
    messages: Sequence[BaseMessage], tools: Any = None, stop: Sequence[str] | None = None
) -> list[str]:
    """A whole prompt: every message in full, then the tools offered and the stop sequences."""
    lines: list[str] = []
    for message in messages:
        lines.extend(message_lines(message))
    names = tool_names(tools)
    if names:
        lines.append(f"tools offered: {', '.join(names)}")
    if stop:
        lines.append(f"stop sequences: {', '.join(json.dumps(s) for s in stop)}")
    return lines


def usage_line(message: AIMessage) -> str | None:
    """``usage: 10 in, 5 out`` for a reply that reports its usage."""
    usage = message.usage_metadata
    if not usage:
        return None
    return f"usage: {usage.get('input_tokens', 0)} in, {usage.get('output_tokens', 0)} out"
