"""Pieces of the report page: numbers, durations and content blocks, all escaped.

Every text that came from a run goes through `esc` on its way into the page, so a reply or
an observation that holds HTML or a script is shown as text and never parsed.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import Any, Final

from pydantic import JsonValue

__all__ = [
    "PREVIEW",
    "block",
    "content_html",
    "duration",
    "esc",
    "messages_html",
    "money",
    "number",
    "preview",
]

PREVIEW: Final = 120
"""The most characters of a one-line preview in a timeline row."""


def esc(text: str) -> str:
    """`text` escaped for HTML text and quoted attribute values."""
    return html.escape(text, quote=True)


def number(value: int) -> str:
    """A count with thousands separators: ``12,345``."""
    return f"{value:,}"


def duration(seconds: float) -> str:
    """A duration as people read it: ``0.4 ms``, ``12 ms``, ``1.25 s``, ``2 min 5 s``."""
    if seconds < 0.001:
        return f"{seconds * 1000:.2f} ms"
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def money(value: float, currency: str) -> str:
    """A cost: at least two decimals, up to six significant ones for small amounts."""
    text = f"{value:.6f}".rstrip("0")
    whole, _, decimals = text.partition(".")
    return f"{whole}.{decimals.ljust(2, '0')} {currency}"


def _json(value: JsonValue) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def text_of(value: JsonValue) -> str:
    """Content as one text: strings as they are, text blocks joined, anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(
        isinstance(part, str) or (isinstance(part, Mapping) and part.get("type") == "text")
        for part in value
    ):
        return "".join(
            part if isinstance(part, str) else str(part.get("text", ""))
            for part in value
            if isinstance(part, (str, Mapping))
        )
    return json.dumps(value, ensure_ascii=False)


def _said(value: JsonValue) -> str:
    if isinstance(value, Mapping) and _is_message(value):
        text = text_of(value.get("content"))
        calls = value.get("tool_calls")
        if isinstance(calls, list) and calls:
            names = ", ".join(str(c.get("name")) for c in calls if isinstance(c, Mapping))
            text = f"{text} → {names}" if text else f"→ {names}"
        return text
    if isinstance(value, Mapping) and set(value) >= {"output"} and len(value) <= 2:
        return text_of(value["output"])
    return text_of(value)


def preview(value: JsonValue) -> str:
    """`value` on one line, cut to `PREVIEW` characters (not escaped): a message's text and
    tool call names, a run's ``output``, else the text or JSON of the value."""
    text = " ".join(_said(value).split())
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"


def content_html(value: JsonValue) -> str:
    """A value as a ``<pre>`` block: text as it is, other data as indented JSON."""
    if isinstance(value, str):
        return f'<pre class="text">{esc(value)}</pre>'
    return f'<pre class="json">{esc(_json(value))}</pre>'


def block(title: str, body: str, css: str = "") -> str:
    """A titled part of a step's details (`body` is HTML already)."""
    extra = f" {css}" if css else ""
    return f'<div class="part{extra}"><h4>{esc(title)}</h4>{body}</div>'


_ROLES: Final = frozenset({"system", "human", "ai", "tool", "chat", "function"})


def _is_message(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("type"), str) and "content" in value


def message_html(message: Mapping[str, JsonValue]) -> str:
    """One message: its role, its text, and its tool calls or tool call id."""
    role = str(message.get("type"))
    name = message.get("name")
    label = role if not isinstance(name, str) else f"{role} · {name}"
    call_id = message.get("tool_call_id")
    if isinstance(call_id, str):
        label += f" · call {call_id}"
    parts = [f'<div class="role">{esc(label)}</div>']
    content = message.get("content")
    if content not in ("", None, []):
        parts.append(content_html(text_of(content) if isinstance(content, list) else content))
    for key in ("tool_calls", "invalid_tool_calls"):
        calls = message.get(key)
        if calls:
            title = "tool calls" if key == "tool_calls" else "invalid tool calls"
            parts.append(f'<div class="calls"><span>{title}</span>{content_html(calls)}</div>')
    status = " error" if message.get("status") == "error" else ""
    css = role if role in _ROLES else "other"
    return f'<div class="message role-{css}{status}">{"".join(parts)}</div>'


def messages_html(value: JsonValue) -> str:
    """A prompt: a list of messages as message blocks (other values as `content_html`)."""
    if isinstance(value, list) and value and all(_is_message(item) for item in value):
        return "".join(message_html(item) for item in value if isinstance(item, Mapping))
    if _is_message(value) and isinstance(value, Mapping):
        return message_html(value)
    return content_html(value)
