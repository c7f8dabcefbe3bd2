"""Turning other shapes into messages and messages into plain data or text."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, TypeAlias

from leanchain.errors import ContentEncodingError

from ._ai import AIMessage, AIMessageChunk
from ._base import BaseMessage, BaseMessageChunk
from ._buffer import get_buffer_string
from ._encodable import why_unencodable
from ._simple import (
    ChatMessage,
    ChatMessageChunk,
    FunctionMessage,
    FunctionMessageChunk,
    HumanMessage,
    HumanMessageChunk,
    SystemMessage,
    SystemMessageChunk,
)
from ._tool import ToolMessage, ToolMessageChunk

__all__ = [
    "MessageLikeRepresentation",
    "convert_to_messages",
    "get_buffer_string",
    "message_chunk_to_message",
    "message_to_dict",
    "messages_from_dict",
    "messages_to_dict",
]

MessageLikeRepresentation: TypeAlias = (
    BaseMessage | str | tuple[str, Any] | list[Any] | dict[str, Any]
)
"""What :func:`convert_to_messages` accepts for one message."""

# Type tag -> class. The only classes messages_from_dict ever builds: no import paths.
_BY_TYPE: Final[dict[str, type[BaseMessage]]] = {
    cls.model_fields["type"].default: cls
    for cls in (
        HumanMessage,
        AIMessage,
        SystemMessage,
        ChatMessage,
        FunctionMessage,
        ToolMessage,
        HumanMessageChunk,
        AIMessageChunk,
        SystemMessageChunk,
        ChatMessageChunk,
        FunctionMessageChunk,
        ToolMessageChunk,
    )
}

_NO_ROLE: Final[Any] = object()
_ROLES: Final = "'human', 'user', 'ai', 'assistant', 'function', 'tool', 'system', or 'developer'"


def message_chunk_to_message(chunk: BaseMessage) -> BaseMessage:
    """The complete message a (merged) chunk stands for; other messages come back as they are.

    An ``AIMessageChunk`` becomes an ``AIMessage`` with the same usage and ids (its
    ``tool_call_chunks`` and ``chunk_position`` are dropped), and so on for every kind. The
    message is final, so its tool calls are those of a finished reply: the arguments of each
    tool-call chunk must be complete JSON, and arguments a stream cut off become an
    ``InvalidToolCall`` (see ``AIMessageChunk``), whether or not the chunk was marked last.
    """
    if not isinstance(chunk, BaseMessageChunk):
        return chunk
    target = next(
        cls
        for cls in type(chunk).__mro__
        if issubclass(cls, BaseMessage) and not issubclass(cls, BaseMessageChunk)
    )
    values = chunk.__dict__
    fields: dict[str, Any] = {}
    for key, info in target.model_fields.items():
        if key == "type":
            fields[key] = info.default
        else:
            value = values[key]
            fields[key] = value.copy() if isinstance(value, (list, dict)) else value
    if (
        isinstance(chunk, AIMessageChunk)
        and chunk.tool_call_chunks
        and chunk.chunk_position != "last"  # a last chunk's calls are read as final already
    ):
        fields["tool_calls"], fields["invalid_tool_calls"] = chunk._final_tool_calls()
    return target._construct(fields)


def convert_to_messages(messages: Iterable[MessageLikeRepresentation] | Any) -> list[BaseMessage]:
    """Messages from the shapes users write them in.

    Accepts messages (kept as they are), plain strings (→ ``HumanMessage``), ``(role,
    content)`` pairs, dicts with ``role`` (or ``type``) and ``content`` keys in OpenAI's shape
    (``name``, ``tool_call_id``, ``tool_calls`` and ``id`` keys become those fields, others go
    to ``additional_kwargs``), and a prompt value (anything with ``to_messages()``).

    Roles: human/user → ``HumanMessage``, ai/assistant → ``AIMessage``, system/developer →
    ``SystemMessage``, function → ``FunctionMessage``, tool → ``ToolMessage``.

    Raises:
        ValueError: an unknown role, a pair that is not two items, or a dict without
            ``role``/``content``.
        TypeError: something that is none of the shapes above.
    """
    to_messages = getattr(messages, "to_messages", None)
    if callable(to_messages):
        return list(to_messages())
    return [_convert_one(m) for m in messages]


def _convert_one(message: Any) -> BaseMessage:
    if isinstance(message, BaseMessage):
        return message
    if isinstance(message, str):
        return HumanMessage(content=message)
    if isinstance(message, Mapping):
        kwargs = dict(message)
        role = kwargs.pop("role", _NO_ROLE)
        if role is _NO_ROLE:
            role = kwargs.pop("type", _NO_ROLE)
        if role is _NO_ROLE or "content" not in kwargs:
            raise ValueError(
                f"Message dict must contain 'role' and 'content' keys, got {dict(message)!r}"
            )
        content = kwargs.pop("content") or ""
        return _from_role(role, content, **kwargs)
    if isinstance(message, Sequence):
        if len(message) != 2:
            raise ValueError(
                f"Message as a sequence must be (role string, template), got {message!r}"
            )
        role, content = message
        return _from_role(role, content)
    raise TypeError(f"Unsupported message type: {type(message)}")


def _from_role(
    role: Any,
    content: Any,
    name: str | None = None,
    tool_call_id: str | None = None,
    tool_calls: list[Any] | None = None,
    id: str | None = None,
    **extra: Any,
) -> BaseMessage:
    kwargs: dict[str, Any] = {}
    if name is not None:
        kwargs["name"] = name
    if tool_call_id is not None:
        kwargs["tool_call_id"] = tool_call_id
    if id is not None:
        kwargs["id"] = id
    response_metadata = extra.pop("response_metadata", None)
    if response_metadata:
        kwargs["response_metadata"] = response_metadata
    nested = extra.pop("additional_kwargs", None) or {}
    additional = {**extra, **nested}
    if role in ("human", "user"):
        return HumanMessage(content, additional_kwargs=additional, **kwargs)
    if role in ("ai", "assistant"):
        if tool_calls is not None:
            kwargs["tool_calls"] = [_openai_tool_call(c) for c in tool_calls]
        return AIMessage(content, additional_kwargs=additional, **kwargs)
    if role in ("system", "developer"):
        if role == "developer":
            additional["__openai_role__"] = "developer"
        return SystemMessage(content, additional_kwargs=additional, **kwargs)
    if role == "function":
        return FunctionMessage(content, additional_kwargs=additional, **kwargs)
    if role == "tool":
        for key in ("artifact", "status"):
            if key in additional:
                kwargs[key] = additional.pop(key)
        return ToolMessage(content, additional_kwargs=additional, **kwargs)
    raise ValueError(f"Unexpected message type: '{role}'. Use one of {_ROLES}.")


def _openai_tool_call(call: Any) -> Any:
    """An OpenAI-shaped tool call (``{"id", "function": {...}}``) in leanchain's shape."""
    if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping):
        function = call["function"]
        args = function.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args, strict=False) if args else {}
            except (ValueError, RecursionError) as exc:
                # Not JSON at all stays LangChain's JSONDecodeError; JSON Python will not
                # read (too deep, an int too long) is named as such.
                why = why_unencodable(exc)
                if why is None or isinstance(exc, json.JSONDecodeError):
                    raise
                raise ContentEncodingError(
                    f"The arguments of tool call {call.get('id')!r} cannot be read: {why}"
                ) from None
        return {"name": function.get("name"), "args": args, "id": call.get("id")}
    return call


def message_to_dict(message: BaseMessage) -> dict[str, Any]:
    """``{"type": message.type, "data": message.model_dump()}``: plain, JSON-ready data."""
    return {"type": message.type, "data": message.model_dump()}


def messages_to_dict(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """:func:`message_to_dict` of each message."""
    return [message_to_dict(m) for m in messages]


def messages_from_dict(messages: Sequence[Mapping[str, Any]]) -> list[BaseMessage]:
    """Messages back from :func:`messages_to_dict` data.

    Only the message classes of this package are ever built, chosen by their type tag;
    nothing in the data can name another class.

    Raises:
        ValueError: an entry that is not ``{"type": ..., "data": {...}}``, an unknown type
            tag, or data that does not validate (pydantic's ``ValidationError``).
    """
    result = []
    for entry in messages:
        if not (isinstance(entry, Mapping) and isinstance(entry.get("data"), Mapping)):
            raise ValueError(f"Expected a dict with 'type' and 'data' keys, got {entry!r}")
        tag = entry.get("type")
        cls = _BY_TYPE.get(tag) if isinstance(tag, str) else None
        if cls is None:
            raise ValueError(f"Got unexpected message type: {tag}")
        result.append(cls.model_validate(dict(entry["data"])))
    return result
