"""`get_buffer_string`: a conversation as text, in LangChain's prefix or XML form.

The prefix form is one ``Role: text`` line per message; an AI message's tool calls (or legacy
function call) follow its text as Python reprs, as LangChain writes them. The XML form is one
``<message type="...">`` element per message: text escaped, tool calls as
``<tool_call id name>`` elements holding their JSON arguments, content blocks as short tags
(images, audio and video by URL or file id; base64 data left out; long document text and
server tool payloads cut to 500 characters).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from leanchain.errors import ContentEncodingError

from ._ai import AIMessage
from ._base import BaseMessage
from ._encodable import why_unencodable
from ._simple import ChatMessage, FunctionMessage, HumanMessage, SystemMessage
from ._tool import ToolMessage

__all__ = ["get_buffer_string"]


def escape(text: str) -> str:
    """``xml.sax.saxutils.escape``, imported on first use: importing it imports
    ``urllib.request`` and the ``email`` package, which only the XML format needs."""
    from xml.sax.saxutils import escape as sax_escape

    return sax_escape(text)


def quoteattr(text: str) -> str:
    """``xml.sax.saxutils.quoteattr``, imported on first use (see `escape`)."""
    from xml.sax.saxutils import quoteattr as sax_quoteattr

    return sax_quoteattr(text)


_BLOCK_TEXT_LIMIT = 500
_CALL_ID_LIMIT = 64


def _cut(text: str, limit: int = _BLOCK_TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _is_data_url(url: Any) -> bool:
    return isinstance(url, str) and url.startswith("data:")


def _has_base64(block: dict[str, Any]) -> bool:
    if block.get("base64") or _is_data_url(block.get("url", "")):
        return True
    image_url = block.get("image_url", {})
    return isinstance(image_url, dict) and _is_data_url(image_url.get("url", ""))


def _media(tag: str, block: dict[str, Any]) -> str | None:
    if block.get("url"):
        return f"<{tag} url={quoteattr(str(block['url']))} />"
    if block.get("file_id"):
        return f"<{tag} file_id={quoteattr(str(block['file_id']))} />"
    return None


def _block_xml(block: dict[str, Any]) -> str | None:
    """One content block as XML, or ``None`` for a block that is left out."""
    kind = block.get("type", "")
    if _has_base64(block):
        return None
    if kind == "text":
        return escape(block["text"]) if block.get("text") else None
    if kind == "reasoning":
        return (
            f"<reasoning>{escape(block['reasoning'])}</reasoning>"
            if block.get("reasoning")
            else None
        )
    if kind in ("image", "audio", "video"):
        return _media(kind, block)
    if kind == "image_url":
        image_url = block.get("image_url", {})
        url = image_url.get("url", "") if isinstance(image_url, dict) else ""
        return f"<image url={quoteattr(url)} />" if url else None
    if kind == "text-plain":
        return escape(_cut(block["text"])) if block.get("text") else None
    if kind == "server_tool_call":
        args = escape(_cut(json.dumps(block.get("args", {}), ensure_ascii=False)))
        return (
            f"<server_tool_call id={quoteattr(str(block.get('id') or ''))} "
            f"name={quoteattr(str(block.get('name') or ''))}>{args}</server_tool_call>"
        )
    if kind == "server_tool_result":
        output = block.get("output")
        text = escape(_cut(json.dumps(output, ensure_ascii=False))) if output else ""
        return (
            f"<server_tool_result tool_call_id={quoteattr(str(block.get('tool_call_id') or ''))}"
            f" status={quoteattr(str(block.get('status') or ''))}>{text}</server_tool_result>"
        )
    return None


def _content_xml(content: Any) -> list[str]:
    if isinstance(content, str):
        return [escape(content)] if content else []
    parts = []
    for block in content:
        text = (escape(block) if block else None) if isinstance(block, str) else _block_xml(block)
        if text:
            parts.append(text)
    return parts


def _call_id(call_id: str) -> str:
    return call_id if len(call_id) <= _CALL_ID_LIMIT else call_id[:_CALL_ID_LIMIT] + "..."


def _message_xml(message: BaseMessage, kind: str) -> str:
    parts = _content_xml(message.content)
    calls = message.tool_calls if isinstance(message, AIMessage) else []
    function = (
        message.additional_kwargs.get("function_call")
        if isinstance(message, AIMessage) and not calls
        else None
    )
    if not calls and not isinstance(function, dict):
        return f"<message type={quoteattr(kind)}>{' '.join(parts)}</message>"
    lines = [f"<message type={quoteattr(kind)}>"]
    if parts:
        lines.append(f"  <content>{' '.join(parts)}</content>")
    for call in calls:
        args = escape(json.dumps(call.get("args", {}), ensure_ascii=False))
        lines.append(
            f"  <tool_call id={quoteattr(_call_id(call.get('id') or ''))} "
            f"name={quoteattr(str(call.get('name') or ''))}>{args}</tool_call>"
        )
    if isinstance(function, dict):
        lines.append(
            f"  <function_call name={quoteattr(str(function.get('name') or ''))}>"
            f"{escape(str(function.get('arguments') or '{}'))}</function_call>"
        )
    lines.append("</message>")
    return "\n".join(lines)


def get_buffer_string(
    messages: Sequence[BaseMessage],
    human_prefix: str = "Human",
    ai_prefix: str = "AI",
    *,
    system_prefix: str = "System",
    function_prefix: str = "Function",
    tool_prefix: str = "Tool",
    message_separator: str = "\n",
    format: Literal["prefix", "xml"] = "prefix",
) -> str:
    """The conversation as text, one entry per message joined by `message_separator`.

    ``format="prefix"`` (default): ``'Human: hi\\nAI: yo'``; an AI message's tool calls follow
    its text. ``format="xml"``: ``<message type="human">hi</message>``, the type being the
    prefix in lower case (a `ChatMessage`'s role as it is). See the module docstring.

    Raises:
        ValueError: an unknown `format`, or a message of a kind without a prefix.
        ContentEncodingError: a message holds a value text cannot carry (an int of more
            than 4,300 digits, nesting deeper than the recursion limit).
    """
    if format not in ("prefix", "xml"):
        raise ValueError(
            f"Unrecognized format={format!r}. Supported formats are 'prefix' and 'xml'."
        )
    entries: list[str] = []
    try:
        for message in messages:
            if isinstance(message, HumanMessage):
                role = human_prefix
            elif isinstance(message, AIMessage):
                role = ai_prefix
            elif isinstance(message, SystemMessage):
                role = system_prefix
            elif isinstance(message, FunctionMessage):
                role = function_prefix
            elif isinstance(message, ToolMessage):
                role = tool_prefix
            elif isinstance(message, ChatMessage):
                role = message.role
            else:
                raise ValueError(f"Got unsupported message type: {message!r}")
            if format == "xml":
                kind = message.role if isinstance(message, ChatMessage) else role.lower()
                entries.append(_message_xml(message, kind))
                continue
            entry = f"{role}: {message.text}"
            if isinstance(message, AIMessage):
                if message.tool_calls:
                    entry += str(message.tool_calls)
                elif "function_call" in message.additional_kwargs:
                    entry += str(message.additional_kwargs["function_call"])
            entries.append(entry)
    except (ValueError, RecursionError) as exc:
        why = why_unencodable(exc)
        if why is None:
            raise
        # The message that failed is the one after the last entry.
        where = f"message {len(entries)} ({type(messages[len(entries)]).__name__})"
        raise ContentEncodingError(f"{where} cannot be written as text: {why}") from None
    return message_separator.join(entries)
