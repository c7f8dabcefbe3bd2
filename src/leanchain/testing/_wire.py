"""Pieces both providers' wire renderers share: the per-request context and text splitting."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from leanchain.testing._script import ScriptedToolCall

__all__ = ["RenderContext", "arguments_json", "dumps", "split"]

CREATED = 1700000000
"""The fixed ``created`` timestamp of OpenAI answers, so that answers are reproducible."""


@dataclass(frozen=True, slots=True)
class RenderContext:
    """What a renderer needs besides the scripted reply, resolved by the server per request."""

    model: str
    """The model name to answer with."""
    response_id: str
    """The answer's id, e.g. ``chatcmpl-fake1`` or ``msg_fake1``."""
    tool_ids: Sequence[str]
    """One id per tool call of the reply, scripted or numbered by the server."""
    chunk_size: int
    """Characters per streamed text delta or argument fragment."""
    include_usage: bool = False
    """OpenAI only: whether the request asked for the final usage chunk."""


def dumps(value: Any) -> str:
    """Compact JSON, as the providers send it on the wire.

    Non-ASCII is kept, unless the value holds what UTF-8 cannot carry (a lone surrogate a
    script put in on purpose): then everything is ``\\u``-escaped, as a real server's JSON
    would escape it, so that the answer is still valid UTF-8.
    """
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    try:
        text.encode()
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":"))
    return text


def arguments_json(call: ScriptedToolCall) -> str:
    """The tool call's arguments as the JSON text a model would generate (a raw str verbatim)."""
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(dict(call.arguments), ensure_ascii=False)


def split(text: str, size: int) -> list[str]:
    """Cut ``text`` into consecutive pieces of at most ``size`` characters."""
    return [text[i : i + size] for i in range(0, len(text), size)]
