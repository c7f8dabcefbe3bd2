"""The cassette file: what one recorded chat-model call looks like as JSON, and back.

A cassette is a JSON object ``{"version": 1, "entries": [...]}`` with one entry per call, in
the order the calls started::

    {
      "call": "invoke",                 # invoke, ainvoke, stream or astream
      "model": "ChatOpenAI",            # the model's name, for people
      "request": {
        "model": {"type": "openai-chat", "params": {"model_name": "gpt-4o-mini"}},
        "messages": [{"type": "system", "content_lines": ["line 1", "line 2"]}, ...],
        "tools": [...], "tool_choice": "auto", "stop": ["\\nObservation"], "kwargs": {...}
      },
      "reply": {"type": "ai", "content": "...", "tool_calls": [...], "usage_metadata": {...}},
      "chunks": [{"content": "Hel"}, {"content": "lo", "chunk_position": "last"}]
    }

Messages are leanchain's own fields with the empty ones left out; a text with line breaks is
written as ``content_lines`` so that a prompt reads (and diffs) line by line. ``chunks`` are
the exact pieces of a streamed reply (and of an `invoke` that streamed for a token handler);
``reply`` is the whole reply, their sum for a stream. A request's key is a hash of its JSON,
so two calls match when they ask the same thing, wherever they come in a run.

No secret is written: values under credential-like names (``api_key``, ``authorization``,
...), `SecretStr` values, the model's own secrets wherever they appear, and strings shaped
like provider keys all become ``[REDACTED]``. Loading builds only leanchain message and chunk
types, chosen by their type tag; anything else in the file is plain data.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, SecretStr

from leanchain.messages import AIMessage, AIMessageChunk, BaseMessage, messages_from_dict
from leanchain.testing._recording import REDACTED

if TYPE_CHECKING:
    from leanchain.language_models import BaseChatModel, ModelCall

__all__ = [
    "CALLS",
    "VERSION",
    "CassetteFormatError",
    "chunk_data",
    "chunk_from_data",
    "dumps",
    "message_data",
    "message_from_data",
    "model_secrets",
    "reply_from_data",
    "request_data",
    "request_key",
    "scrub",
]

VERSION = 1
"""The cassette format version this library writes and reads."""

CALLS = ("invoke", "ainvoke", "stream", "astream")

_SECRET_NAME = re.compile(
    r"(api[-_]?key|authorization|secret|password|passwd|cookie|credential|access[-_]?token"
    r"|refresh[-_]?token|session[-_]?token|bearer)",
    re.IGNORECASE,
)
_KEY_SHAPED = re.compile(
    r"(?<![A-Za-z0-9])(sk-ant-[A-Za-z0-9_\-]{8,}|sk-(?:proj-)?[A-Za-z0-9_\-]{16,}"
    r"|Bearer\s+[A-Za-z0-9._~+/\-]{8,}=*)"
)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_NOT_IN_CHUNKS = frozenset({"tool_calls", "invalid_tool_calls", "type"})


class CassetteFormatError(ValueError):
    """A cassette file that this version cannot read; says where and what was expected."""


# -- secrets ----------------------------------------------------------------------------------


def model_secrets(model: BaseChatModel) -> tuple[str, ...]:
    """The secret strings a model holds: its `SecretStr` settings, its credential headers."""
    found: list[str] = []
    names: set[str] = set(getattr(model, "__dict__", ()))
    for cls in type(model).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        names.update((slots,) if isinstance(slots, str) else slots)
    for name in sorted(names):
        value = getattr(model, name, None)
        if isinstance(value, SecretStr):
            found.append(value.get_secret_value())
        elif isinstance(value, Mapping):
            found.extend(
                str(v) for k, v in value.items() if isinstance(k, str) and _SECRET_NAME.search(k)
            )
    return tuple(s for s in found if len(s) >= 4)


def scrub(value: Any, secrets: Sequence[str] = (), *, by_name: bool = True) -> Any:
    """`value` as plain JSON data with every secret replaced by ``[REDACTED]``.

    The strings in `secrets`, and strings shaped like provider keys, are replaced wherever
    they are. With `by_name`, so is any value under a credential-like name (for settings,
    headers and metadata; not for tool schemas and arguments, where a field may well be
    called ``password``).
    """
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return _KEY_SHAPED.sub(REDACTED, value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, SecretStr):
        return REDACTED
    if isinstance(value, Mapping):
        return {
            str(k): REDACTED
            if by_name and isinstance(k, str) and _SECRET_NAME.search(k) and v is not None
            else scrub(v, secrets, by_name=by_name)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [scrub(v, secrets, by_name=by_name) for v in value]
    if isinstance(value, BaseModel):
        return scrub(value.model_dump(mode="json"), secrets, by_name=by_name)
    if isinstance(value, type):
        return f"<class {value.__module__}.{value.__qualname__}>"
    return scrub(_ADDRESS.sub("", repr(value)), secrets)


# -- messages ---------------------------------------------------------------------------------


def message_data(message: BaseMessage, secrets: Sequence[str] = (), *, keep_id: bool = True) -> Any:
    """A message as readable JSON data: its type, its text, and its non-empty fields."""
    dumped = message.model_dump(mode="json", exclude_defaults=True)
    dumped.pop("type", None)
    if not keep_id:
        dumped.pop("id", None)
    return {"type": message.type, **_scrubbed(_readable_content(dumped), secrets)}


def chunk_data(chunk: AIMessageChunk, secrets: Sequence[str] = ()) -> Any:
    """A streamed chunk as JSON data (its tool calls are read again from its tool-call chunks)."""
    dumped = chunk.model_dump(mode="json", exclude_defaults=True)
    for name in _NOT_IN_CHUNKS:
        dumped.pop(name, None)
    dumped.setdefault("content", chunk.content)
    return _scrubbed(_readable_content(dumped), secrets)


_BY_NAME_FIELDS = frozenset({"additional_kwargs", "response_metadata"})


def _scrubbed(fields: dict[str, Any], secrets: Sequence[str]) -> dict[str, Any]:
    """Message fields scrubbed; by name only in the provider's metadata and extras."""
    return {
        name: scrub(value, secrets, by_name=name in _BY_NAME_FIELDS)
        for name, value in fields.items()
    }


def _readable_content(dumped: dict[str, Any]) -> dict[str, Any]:
    content = dumped.pop("content", "")
    head: dict[str, Any] = (
        {"content_lines": content.split("\n")}
        if isinstance(content, str) and "\n" in content
        else {"content": content}
    )
    return {**head, **dumped}


def message_from_data(data: Any, where: str) -> BaseMessage:
    """The message `data` describes (one of leanchain's message classes, by its type tag).

    Raises:
        CassetteFormatError: `data` is not a message of a known type.
    """
    if not isinstance(data, Mapping):
        raise CassetteFormatError(f"{where}: expected a message object, got {_kind(data)}")
    fields = _content_from_lines(data, where)
    tag = fields.pop("type", None)
    try:
        return messages_from_dict([{"type": tag, "data": fields}])[0]
    except ValueError as exc:
        raise CassetteFormatError(f"{where}: not a message leanchain can read: {exc}") from None


def reply_from_data(data: Any, where: str) -> AIMessage:
    """The recorded reply `data` describes: an `AIMessage`.

    Raises:
        CassetteFormatError: `data` is not an AI message.
    """
    message = message_from_data(data, where)
    if not isinstance(message, AIMessage) or isinstance(message, AIMessageChunk):
        raise CassetteFormatError(f"{where}: expected an 'ai' message, got {message.type!r}")
    return message


def chunk_from_data(data: Any, where: str) -> AIMessageChunk:
    """The streamed chunk `data` describes.

    Raises:
        CassetteFormatError: `data` is not a chunk.
    """
    if not isinstance(data, Mapping):
        raise CassetteFormatError(f"{where}: expected a chunk object, got {_kind(data)}")
    message = message_from_data({**data, "type": "AIMessageChunk"}, where)
    assert isinstance(message, AIMessageChunk)
    return message


def _content_from_lines(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    fields = dict(data)
    if "content_lines" in fields:
        lines = fields.pop("content_lines")
        if not (isinstance(lines, list) and all(isinstance(line, str) for line in lines)):
            raise CassetteFormatError(f"{where}: 'content_lines' must be a list of strings")
        fields["content"] = "\n".join(lines)
    return fields


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


# -- requests ---------------------------------------------------------------------------------


def request_data(call: ModelCall, secrets: Sequence[str] = ()) -> dict[str, Any]:
    """What `call` asks, as JSON data: model identity and parameters, messages, tools, stop."""
    model = call.model
    kwargs = dict(call.kwargs)
    tools = kwargs.pop("tools", None)
    tool_choice = kwargs.pop("tool_choice", None)
    request: dict[str, Any] = {
        "model": {
            "type": model._llm_type,
            "params": scrub(dict(model._identifying_params), secrets),
        },
        "messages": [message_data(m, secrets, keep_id=False) for m in call.messages],
    }
    if tools is not None:
        request["tools"] = scrub(tools, secrets, by_name=False)
    if tool_choice is not None:
        request["tool_choice"] = scrub(tool_choice, secrets, by_name=False)
    if call.stop is not None:
        request["stop"] = scrub(list(call.stop), secrets, by_name=False)
    if kwargs:
        request["kwargs"] = scrub(kwargs, secrets)
    return request


def request_key(request: Mapping[str, Any]) -> str:
    """The stable key of a request: a hash of its canonical JSON."""
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# -- writing ----------------------------------------------------------------------------------


def dumps(document: Mapping[str, Any]) -> str:
    """The cassette as text: indented JSON, short values on one line (but a message one field
    a line), each streamed chunk on one line, each line of a long text on its own line."""
    return "".join(_pretty(document, 0, "")) + "\n"


_WIDTH = 96
_LINE_BY_LINE = frozenset({"content_lines", "chunks"})


def _holds_message(value: Any) -> bool:
    """Whether `value` is or holds a message: those are written one field a line, so that
    their diffs stay field by field."""
    if isinstance(value, dict):
        if "type" in value and ("content" in value or "content_lines" in value):
            return True
        return any(isinstance(v, (dict, list)) and _holds_message(v) for v in value.values())
    if isinstance(value, list):
        return any(isinstance(v, (dict, list)) and _holds_message(v) for v in value)
    return False


def _pretty(value: Any, depth: int, key: str) -> Iterator[str]:
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or not value:
        yield flat
        return
    fits = 2 * depth + len(key) + len(flat) <= _WIDTH
    if fits and key not in _LINE_BY_LINE and not _holds_message(value):
        yield flat
        return
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, list):
        yield "["
        for i, item in enumerate(value):
            yield ("," if i else "") + "\n" + inner
            if key == "chunks":
                yield json.dumps(item, ensure_ascii=False)
            else:
                yield from _pretty(item, depth + 1, "")
        yield "\n" + pad + "]"
        return
    yield "{"
    for i, (name, item) in enumerate(value.items()):
        yield ("," if i else "") + "\n" + inner + json.dumps(name) + ": "
        yield from _pretty(item, depth + 1, name)
    yield "\n" + pad + "}"
