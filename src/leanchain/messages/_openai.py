"""`convert_to_openai_messages`: messages as OpenAI Chat Completions message dicts.

LangChain's ``convert_to_openai_messages``, for code that calls an OpenAI-compatible client
itself or stores conversations in OpenAI's shape. Content blocks in OpenAI's, Anthropic's and
LangChain's standard forms are read; reasoning blocks (which Chat Completions cannot carry) are
left out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, overload

from leanchain.errors import ContentEncodingError, LeanchainError

from ._ai import AIMessage
from ._base import BaseMessage
from ._convert import MessageLikeRepresentation, convert_to_messages
from ._encodable import why_unencodable
from ._simple import ChatMessage, FunctionMessage, HumanMessage, SystemMessage
from ._tool import ToolMessage

__all__ = ["convert_to_openai_messages", "openai_role", "openai_tool_calls"]

_REASONING: Final = frozenset({"thinking", "redacted_thinking", "reasoning"})
_STANDARD_SOURCES: Final = ("source_type", "url", "base64", "file_id")


# A str is a sequence too; the first overload wins for it, as at run time.
@overload
def convert_to_openai_messages(  # type: ignore[overload-overlap]
    messages: BaseMessage | dict[str, Any] | str,
    *,
    text_format: Literal["string", "block"] = "string",
    include_id: bool = False,
) -> dict[str, Any]: ...
@overload
def convert_to_openai_messages(
    messages: Sequence[MessageLikeRepresentation],
    *,
    text_format: Literal["string", "block"] = "string",
    include_id: bool = False,
) -> list[dict[str, Any]]: ...
def convert_to_openai_messages(
    messages: MessageLikeRepresentation | Sequence[MessageLikeRepresentation],
    *,
    text_format: Literal["string", "block"] = "string",
    include_id: bool = False,
) -> dict[str, Any] | list[dict[str, Any]]:
    """Messages as OpenAI Chat Completions message dicts (``{"role": ..., "content": ...}``).

    Roles: AI → ``assistant``, human → ``user``, system → ``system`` (``developer`` for a
    system message read from a developer dict), tool → ``tool`` (with ``tool_call_id``),
    function → ``function``, chat → its ``role``. A ``name`` is kept. An AI message's tool
    calls (and invalid ones, with their raw arguments) become ``tool_calls`` with JSON-string
    ``arguments``; Anthropic ``tool_use`` blocks become tool calls too, and ``tool_result``
    blocks become ``tool`` messages after their message. An empty content is ``""`` (or
    ``[]``), never null.

    Args:
        messages: one message (or a dict or str that `convert_to_messages` reads), or a
            sequence of them.
        text_format: ``"string"``: text contents are strings (text blocks joined with
            ``"\\n"``), a content with other blocks stays a list. ``"block"``: every content
            is a list of blocks (``{"type": "text", "text": ...}`` for text).
        include_id: add each message's ``id`` (when it has one).

    Returns:
        One dict for one message, else a list of dicts.

    Raises:
        ValueError: an unknown `text_format`, a content block in no form this function knows
            or missing a key its form needs, or a message kind with no OpenAI role.
        ContentEncodingError: tool call arguments that JSON cannot write (an int of more
            than 4,300 digits, nesting deeper than the recursion limit).
    """
    if text_format not in ("string", "block"):
        raise ValueError(f"Unrecognized {text_format=}, expected one of 'string' or 'block'.")
    single = isinstance(messages, (BaseMessage, dict, str))
    converted = convert_to_messages([messages] if single else messages)
    result: list[dict[str, Any]] = []
    for position, message in enumerate(converted):
        try:
            result.extend(_convert(position, message, text_format, include_id))
        except (ValueError, RecursionError) as exc:
            why = why_unencodable(exc)
            if why is None or isinstance(exc, LeanchainError):
                raise
            where = f"message {position} ({type(message).__name__})"
            raise ContentEncodingError(f"{where} cannot be written as JSON: {why}") from None
    return result[0] if single else result


def openai_role(message: BaseMessage) -> str:
    """The OpenAI chat role of a message.

    Raises:
        ValueError: a message kind with no role (a ``BaseMessage`` subclass of your own), or
            a system message whose ``additional_kwargs["__openai_role__"]`` is not a str.
    """
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, ToolMessage):
        return "tool"
    if isinstance(message, SystemMessage):
        role = message.additional_kwargs.get("__openai_role__", "system")
        if not isinstance(role, str):
            raise ValueError(f"Expected '__openai_role__' to be a str, got {type(role).__name__}")
        return role
    if isinstance(message, FunctionMessage):
        return "function"
    if isinstance(message, ChatMessage):
        return message.role
    raise ValueError(f"Unknown BaseMessage type {message.__class__}.")


def openai_tool_calls(message: AIMessage) -> list[dict[str, Any]]:
    """An AI message's tool calls as OpenAI's ``tool_calls``: ChatOpenAI sends this list too.

    Arguments are JSON strings (non-ASCII kept); an invalid call goes back with its raw
    arguments as they came (``""`` for none), so the model sees what it wrote.
    """
    calls = [_call(c["id"], c["name"], _json(c["args"])) for c in message.tool_calls]
    if message.invalid_tool_calls:
        calls += [_call(c["id"], c["name"], c["args"] or "") for c in message.invalid_tool_calls]
    return calls


def _convert(
    position: int, message: BaseMessage, text_format: str, include_id: bool
) -> list[dict[str, Any]]:
    """The dicts for one message: itself, then any tool results its content carried."""
    result: dict[str, Any] = {"role": openai_role(message)}
    if message.name:
        result["name"] = message.name
    known_calls: set[Any] = set()
    if isinstance(message, AIMessage):
        calls = openai_tool_calls(message)
        known_calls = {call["id"] for call in calls}
        if calls:
            result["tool_calls"] = calls
    refusal = message.additional_kwargs.get("refusal")
    if refusal:
        result["refusal"] = refusal
    if isinstance(message, ToolMessage):
        result["tool_call_id"] = message.tool_call_id
    if include_id and message.id:
        result["id"] = message.id
    results: list[dict[str, Any]] = []
    content = message.content
    if not content:
        result["content"] = "" if text_format == "string" else []
    elif isinstance(content, str):
        result["content"] = content if text_format == "string" else [_text(content)]
    elif text_format == "string" and all(_is_text(block) for block in content):
        result["content"] = "\n".join(_text_of(block) for block in content)
    else:
        parts: list[dict[str, Any]] = []
        for index, block in enumerate(content):
            if isinstance(block, str):
                parts.append(_text(block))
            else:
                parts.extend(
                    _block(position, index, block, result, known_calls, results, text_format)
                )
        if text_format == "string" and all(part["type"] == "text" for part in parts):
            result["content"] = "\n".join(part["text"] for part in parts)
        else:
            result["content"] = parts
        if not result["content"] and results:
            return results  # a user turn that only carried tool results
    return [result, *results]


def _block(
    position: int,
    index: int,
    block: Mapping[str, Any],
    result: dict[str, Any],
    known_calls: set[Any],
    results: list[dict[str, Any]],
    text_format: str,
) -> list[dict[str, Any]]:
    """The OpenAI content parts for one block (tool blocks go to `result` or `results`)."""
    where = f"messages[{position}].content[{index}]"
    kind = block.get("type")
    if kind == "text":
        _require(where, block, "text", ("text",))
        return [_text(block["text"])]
    if kind == "image_url":
        _require(where, block, "image_url", ("image_url",))
        return [{"type": "image_url", "image_url": block["image_url"]}]
    if kind == "image" and isinstance(block.get("source"), Mapping):
        return [_anthropic_image(where, block)]
    if kind == "file" and isinstance(block.get("file"), Mapping):
        return [dict(block)]  # OpenAI's own file part
    if kind == "input_audio" and isinstance(block.get("input_audio"), Mapping):
        return [dict(block)]
    if kind in ("image", "audio", "file") and any(key in block for key in _STANDARD_SOURCES):
        return [_standard(where, block)]
    if kind == "tool_use":
        _require(where, block, "tool_use", ("id", "name", "input"))
        if block["id"] not in known_calls:
            call = _call(block["id"], block["name"], _json(block["input"]))
            result.setdefault("tool_calls", []).append(call)
            known_calls.add(block["id"])
        return []
    if kind == "tool_result":
        _require(where, block, "tool_result", ("content", "tool_use_id"))
        answer = ToolMessage(
            block["content"],
            tool_call_id=block["tool_use_id"],
            status="error" if block.get("is_error") else "success",
        )
        results.extend(_convert(position, answer, text_format, False))
        return []
    if kind == "json" or (kind is None and "json" in block):
        _require(where, block, "json", ("json",))
        return [_text(json.dumps(block["json"]))]
    if kind in _REASONING:
        return []
    raise ValueError(
        f"Unrecognized content block at {where} does not match OpenAI, Anthropic, or "
        f"LangChain's standard format. Full content block:\n\n{block}"
    )


def _anthropic_image(where: str, block: Mapping[str, Any]) -> dict[str, Any]:
    source = block["source"]
    if source.get("type") == "url" and isinstance(source.get("url"), str):
        return {"type": "image_url", "image_url": {"url": source["url"]}}
    missing = [key for key in ("media_type", "type", "data") if key not in source]
    if missing:
        raise ValueError(
            f"Unrecognized content block at {where} has 'type': 'image' but 'source' is "
            f"missing expected key(s) {missing}. Full content block:\n\n{block}"
        )
    url = f"data:{source['media_type']};{source['type']},{source['data']}"
    return {"type": "image_url", "image_url": {"url": url}}


def _standard(where: str, block: Mapping[str, Any]) -> dict[str, Any]:
    """A LangChain standard data block (``url``/``base64``/``file_id``, or ``source_type``)."""
    kind = block["type"]
    source = block.get("source_type")
    url = block.get("url") if source in (None, "url") else None
    data = block.get("data") if source == "base64" else block.get("base64")
    file_id = block.get("id") if source == "id" else block.get("file_id")
    if data is not None:
        mime_type = block.get("mime_type")
        if not isinstance(mime_type, str):
            raise ValueError(
                f"Content block at {where} has base64 data but no 'mime_type'. Full content"
                f" block:\n\n{block}"
            )
        if kind == "audio":
            audio = {"data": data, "format": mime_type.rpartition("/")[2]}
            return {"type": "input_audio", "input_audio": audio}
        data_url = f"data:{mime_type};base64,{data}"
        if kind == "image":
            return {"type": "image_url", "image_url": {"url": data_url}}
        file: dict[str, Any] = {"file_data": data_url}
        filename = _filename(block)
        if filename is not None:
            file["filename"] = filename
        return {"type": "file", "file": file}
    if kind == "image" and isinstance(url, str):
        return {"type": "image_url", "image_url": {"url": url}}
    if kind == "file" and file_id is not None:
        return {"type": "file", "file": {"file_id": file_id}}
    supported = {"image": "a URL or base64 data", "audio": "base64 data"}.get(
        kind, "base64 data or a file id"
    )
    raise ValueError(
        f"Content block at {where} cannot be sent: OpenAI chat messages take {kind} blocks"
        f" given by {supported} only. Full content block:\n\n{block}"
    )


def _filename(block: Mapping[str, Any]) -> Any:
    if block.get("filename") is not None:
        return block["filename"]
    for key in ("extras", "metadata"):
        extra = block.get(key)
        if isinstance(extra, Mapping) and extra.get("filename") is not None:
            return extra["filename"]
    return None


def _require(where: str, block: Mapping[str, Any], kind: str, keys: tuple[str, ...]) -> None:
    missing = [key for key in keys if key not in block]
    if missing:
        raise ValueError(
            f"Unrecognized content block at {where} has 'type': '{kind}' but is missing "
            f"expected key(s) {missing}. Full content block:\n\n{block}"
        )


def _is_text(block: str | dict[str, Any]) -> bool:
    return isinstance(block, str) or (block.get("type") == "text" and "text" in block)


def _text_of(block: str | dict[str, Any]) -> str:
    return block if isinstance(block, str) else block["text"]


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _call(call_id: Any, name: Any, arguments: str) -> dict[str, Any]:
    return {"type": "function", "id": call_id, "function": {"name": name, "arguments": arguments}}


def _json(args: Any) -> str:
    return json.dumps(args, ensure_ascii=False)
