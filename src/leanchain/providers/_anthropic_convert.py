"""leanchain messages to Anthropic Messages and back (provider-wire.md §5.3-5.5).

Outbound, one normaliser: system messages are hoisted into ``system``; AI messages become
assistant turns of text then ``tool_use`` blocks (ids kept, made safe for the API); tool results
become ``tool_result`` blocks; empty text is dropped; consecutive turns of one role merge, and in
a user turn the tool results come first, so that every ``tool_use`` is answered by the very next
message. Inbound: a ``Message`` becomes an `AIMessage`; the events of a stream become
`AIMessageChunk`s through `AnthropicStreamReader`, which numbers tool calls itself (a block's
``index`` counts text blocks too).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    InvalidToolCall,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UsageMetadata,
    invalid_tool_call,
    tool_call,
    tool_call_chunk,
)
from leanchain.tools import convert_to_anthropic_tool

from ._content import read_image

__all__ = [
    "AnthropicStreamReader",
    "anthropic_tool_choice",
    "anthropic_tools",
    "message_from_anthropic",
    "to_anthropic_messages",
    "usage_from_anthropic",
]

_UNSAFE_ID: Final = re.compile(r"[^A-Za-z0-9_-]")
_FINISH: Final = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
_KEEP_BLOCKS: Final = frozenset({"thinking", "redacted_thinking"})


# -- outbound -------------------------------------------------------------------------------


def to_anthropic_messages(
    messages: Sequence[BaseMessage],
) -> tuple[str | list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """The ``system`` and ``messages`` parameters for `messages`.

    Raises:
        ValueError: no message is left besides system ones, or the first is not a user turn.
        TypeError: a message kind the Messages API has no role for.
    """
    system: list[dict[str, Any]] = []
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            system.extend(_text_content(message.content))
            continue
        role, blocks = _turn(message)
        if not blocks:
            continue
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    if not turns:
        raise ValueError("Anthropic needs at least one user message besides system messages")
    if turns[0][0] != "user":
        raise ValueError(
            "Anthropic needs the first message after the system messages to be a user "
            f"message, got an {turns[0][0]} message"
        )
    wire = [{"role": role, "content": _compact(role, blocks)} for role, blocks in turns]
    return _system(system), wire


def _system(blocks: list[dict[str, Any]]) -> str | list[dict[str, Any]] | None:
    if not blocks:
        return None
    if len(blocks) == 1 and blocks[0].keys() == {"type", "text"}:
        return str(blocks[0]["text"])
    return blocks


def _compact(role: str, blocks: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    if len(blocks) == 1 and blocks[0].keys() == {"type", "text"}:
        return str(blocks[0]["text"])
    if role == "user" and any(block.get("type") == "tool_result" for block in blocks):
        # Results first: the API wants them straight after the tool_use turn.
        results = [block for block in blocks if block.get("type") == "tool_result"]
        return results + [block for block in blocks if block.get("type") != "tool_result"]
    return blocks


def _turn(message: BaseMessage) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(message, AIMessage):
        return "assistant", _assistant_blocks(message)
    if isinstance(message, ToolMessage):
        return "user", [_tool_result(message)]
    if isinstance(message, HumanMessage):
        return "user", _user_blocks(message.content)
    if isinstance(message, ChatMessage) and message.role in ("user", "assistant"):
        return message.role, _user_blocks(message.content)
    raise TypeError(f"ChatAnthropic cannot send a {type(message).__name__}: {message!r}")


def safe_id(call_id: str | None) -> str:
    """A tool-call id the API accepts (letters, digits, ``_`` and ``-``), the same every time."""
    if not call_id:
        return "toolu_missing"
    return _UNSAFE_ID.sub("_", call_id)


def _text_content(content: str | list[Any]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, str):
            if block:
                blocks.append({"type": "text", "text": block})
        elif block.get("type") == "text" and block.get("text"):
            blocks.append(
                {k: v for k, v in block.items() if k in ("type", "text", "cache_control")}
            )
    return blocks


def _user_blocks(content: str | list[Any]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, str) or block.get("type") == "text":
            blocks.extend(_text_content([block]))
            continue
        image = read_image(block)
        if image is None:
            blocks.append(dict(block))  # document, search_result, ...: the API's own forms
        elif image.url is not None:
            blocks.append({"type": "image", "source": {"type": "url", "url": image.url}})
        else:
            source = {"type": "base64", "media_type": image.mime_type, "data": image.data}
            blocks.append({"type": "image", "source": source})
    return blocks


def _tool_result(message: ToolMessage) -> dict[str, Any]:
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": safe_id(message.tool_call_id)}
    content = message.content
    if isinstance(content, str):
        if content:
            result["content"] = content
    else:
        blocks = _user_blocks(content)
        if blocks:
            result["content"] = blocks
    if message.status == "error":
        result["is_error"] = True
    return result


def _assistant_blocks(message: AIMessage) -> list[dict[str, Any]]:
    calls: dict[str, dict[str, Any]] = {}
    for call in message.tool_calls:
        calls[safe_id(call["id"])] = _tool_use(call["id"], call["name"], call["args"])
    for bad in message.invalid_tool_calls:
        calls[safe_id(bad["id"])] = _tool_use(bad["id"], bad["name"], _partial_args(bad["args"]))
    content = message.content
    if isinstance(content, str):
        blocks = [{"type": "text", "text": content}] if content else []
        return blocks + list(calls.values())
    blocks = []
    for block in content:
        if isinstance(block, str) or block.get("type") == "text":
            blocks.extend(_text_content([block]))
        elif block.get("type") == "tool_use":
            # Rebuilt from the message's calls: SDK dumps carry fields the API rejects.
            key = safe_id(block.get("id"))
            rebuilt = calls.pop(key, None)
            blocks.append(rebuilt or _tool_use(block.get("id"), block["name"], block["input"]))
        elif block.get("type") in _KEEP_BLOCKS:
            blocks.append(dict(block))  # extended thinking goes back unchanged, signature too
    return blocks + list(calls.values())


def _tool_use(call_id: str | None, name: str | None, args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": safe_id(call_id), "name": name or "", "input": args}


def _partial_args(args: str | None) -> dict[str, Any]:
    try:
        value = json.loads(args or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def anthropic_tools(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """Tool definitions in Anthropic's form; native ones (and server tools) pass unchanged."""
    return [tool if _native(tool) else convert_to_anthropic_tool(tool) for tool in tools]


def _native(tool: Any) -> bool:
    if not isinstance(tool, dict):
        return False
    kind = tool.get("type")
    return "input_schema" in tool or (
        isinstance(kind, str) and kind not in ("function", "object", "custom")
    )


def anthropic_tool_choice(
    choice: Any, tools: Sequence[Mapping[str, Any]], parallel: bool | None
) -> dict[str, Any] | None:
    """Anthropic's ``tool_choice`` for any leanchain form of it, or ``None`` to send none.

    A bound tool's name, ``"auto"``, ``"none"``, ``"any"``/``"required"``, ``True`` (= any),
    ``False`` (= none), or a dict (Anthropic's form, or OpenAI's named form). ``parallel=False``
    adds ``disable_parallel_tool_use`` (with ``auto`` when no choice is given).

    Raises:
        ValueError: a name that no tool in `tools` has.
        TypeError: anything else.
    """
    result: dict[str, Any]
    names = [tool.get("name") for tool in tools]
    if choice is None:
        if parallel is not False:
            return None
        result = {"type": "auto"}
    elif choice is True or choice in ("any", "required"):
        result = {"type": "any"}
    elif choice is False or choice == "none":
        return {"type": "none"}
    elif isinstance(choice, str) and choice in names:
        result = {"type": "tool", "name": choice}
    elif choice == "auto":
        result = {"type": "auto"}
    elif isinstance(choice, str):
        raise ValueError(
            f"tool_choice {choice!r} is neither 'auto', 'none', 'any', 'required' nor the name "
            f"of a bound tool; the tools are {names}"
        )
    elif isinstance(choice, Mapping):
        function = choice.get("function")
        if choice.get("type") == "function" and isinstance(function, Mapping):
            result = {"type": "tool", "name": function.get("name")}
        else:
            result = dict(choice)
        if result.get("type") == "tool" and result.get("name") not in names:
            raise ValueError(
                f"tool_choice names the tool {result.get('name')!r}, but the tools are {names}"
            )
    else:
        raise TypeError(f"tool_choice must be a str, bool or dict, got {choice!r}")
    if parallel is False:
        result["disable_parallel_tool_use"] = True
    return result


# -- inbound --------------------------------------------------------------------------------


def usage_from_anthropic(
    input_tokens: int, output_tokens: int, cache_creation: int | None, cache_read: int | None
) -> UsageMetadata:
    """`UsageMetadata` from Anthropic's counts, whose ``input_tokens`` leave out the cache."""
    total_input = input_tokens + (cache_creation or 0) + (cache_read or 0)
    usage = UsageMetadata(
        input_tokens=total_input,
        output_tokens=output_tokens,
        total_tokens=total_input + output_tokens,
    )
    details = {
        key: value
        for key, value in (("cache_read", cache_read), ("cache_creation", cache_creation))
        if value is not None
    }
    if details:
        usage["input_token_details"] = details  # type: ignore[typeddict-item]
    return usage


def response_metadata(
    model: str | None, stop_reason: str | None, stop_sequence: str | None
) -> dict[str, Any]:
    """The ``response_metadata`` of a reply, the same for a whole answer and a stream.

    ``stop_reason``/``stop_sequence`` are Anthropic's; ``finish_reason`` is the neutral name
    (stop, length, tool_calls, content_filter, or the raw reason when it has none).
    """
    metadata: dict[str, Any] = {"model_provider": "anthropic"}
    if model is not None:
        metadata["model_name"] = model
    if stop_reason is not None:
        metadata["finish_reason"] = _FINISH.get(stop_reason, stop_reason)
        metadata["stop_reason"] = stop_reason
    metadata["stop_sequence"] = stop_sequence
    return metadata


def _parse_tool_use(block: Any) -> ToolCall | InvalidToolCall:
    value = block.input
    if isinstance(value, dict):
        return tool_call(name=block.name, args=value, id=block.id)
    # The SDK passes a malformed input through as it came: a string, a list, ...
    raw = value if isinstance(value, str) else json.dumps(value)
    try:
        error = f"expected a JSON object, got {type(json.loads(raw)).__name__}"
    except ValueError as exc:
        error = str(exc)
    return invalid_tool_call(name=block.name, args=raw, id=block.id, error=error)


def message_from_anthropic(message: Any) -> AIMessage:
    """The `AIMessage` of a ``Message``.

    The content is the text when the reply has only text and tool_use blocks (the calls are in
    ``tool_calls``); with other blocks (thinking, ...) it is the list of all blocks, so the turn
    can be sent back exactly.
    """
    texts: list[str] = []
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    others = False
    for block in message.content:
        kind = block.type
        if kind == "text":
            texts.append(block.text)
        elif kind == "tool_use":
            parsed = _parse_tool_use(block)
            if parsed.get("type") == "invalid_tool_call":
                invalid.append(parsed)  # type: ignore[arg-type]
            else:
                calls.append(parsed)  # type: ignore[arg-type]
        else:
            others = True
    content: Any = "".join(texts)
    if others:
        content = [_block_dict(block) for block in message.content]
    usage = message.usage
    return AIMessage(
        content=content,
        response_metadata=response_metadata(
            message.model, message.stop_reason, message.stop_sequence
        ),
        id=message.id,
        tool_calls=calls,
        invalid_tool_calls=invalid,
        usage_metadata=usage_from_anthropic(
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_creation_input_tokens,
            usage.cache_read_input_tokens,
        ),
    )


def _block_dict(block: Any) -> dict[str, Any]:
    if block.type == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if block.type == "text":
        return {"type": "text", "text": block.text}
    return dict(block.model_dump(exclude_none=True))


class AnthropicStreamReader:
    """Turns the raw events of one Messages stream into `AIMessageChunk`s.

    Dispatches on each event's ``type`` (the SDK builds unknown events as some known class
    with the unknown type, so ``isinstance`` would lie). `read` gives the chunk for an event
    (``None`` when it carries no text or tool call); `finish` the closing chunk.
    """

    __slots__ = (
        "_slots",
        "cache_creation",
        "cache_read",
        "id",
        "input_tokens",
        "model",
        "output_tokens",
        "stop_reason",
        "stop_sequence",
        "stopped",
    )

    def __init__(self) -> None:
        self.id: str | None = None
        self.model: str | None = None
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        self.input_tokens = 0
        self.output_tokens = 0
        self.cache_creation: int | None = None
        self.cache_read: int | None = None
        self.stopped = False
        self._slots: dict[int, int] = {}  # content block index -> tool-call ordinal

    def read(self, event: Any) -> AIMessageChunk | None:
        """The chunk for one stream event, or ``None``."""
        kind = event.type
        if kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta":
                return AIMessageChunk(content=delta.text, id=self.id) if delta.text else None
            if delta.type == "input_json_delta" and delta.partial_json:
                ordinal = self._slots.get(event.index)
                if ordinal is not None:
                    piece = tool_call_chunk(args=delta.partial_json, index=ordinal)
                    return AIMessageChunk(content="", tool_call_chunks=[piece], id=self.id)
            return None
        if kind == "content_block_start":
            block = event.content_block
            if block.type == "tool_use":
                ordinal = self._slots[event.index] = len(self._slots)
                piece = tool_call_chunk(name=block.name, args="", id=block.id, index=ordinal)
                return AIMessageChunk(content="", tool_call_chunks=[piece], id=self.id)
            if block.type == "text" and block.text:
                return AIMessageChunk(content=block.text, id=self.id)
            return None
        if kind == "message_start":
            message = event.message
            self.id = message.id
            self.model = message.model
            self._count(message.usage)
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self.stop_sequence = event.delta.stop_sequence
            self._count(event.usage)
        elif kind == "message_stop":
            self.stopped = True
        return None

    def _count(self, usage: Any) -> None:
        # Counts are cumulative: a later event overwrites what it carries.
        if usage is None:
            return
        if usage.output_tokens is not None:
            self.output_tokens = usage.output_tokens
        if getattr(usage, "input_tokens", None) is not None:
            self.input_tokens = usage.input_tokens
        if getattr(usage, "cache_creation_input_tokens", None) is not None:
            self.cache_creation = usage.cache_creation_input_tokens
        if getattr(usage, "cache_read_input_tokens", None) is not None:
            self.cache_read = usage.cache_read_input_tokens

    def finish(self) -> AIMessageChunk:
        """The closing chunk: stop reason, model, usage; marked ``chunk_position="last"``."""
        return AIMessageChunk(
            content="",
            response_metadata=response_metadata(self.model, self.stop_reason, self.stop_sequence),
            usage_metadata=usage_from_anthropic(
                self.input_tokens, self.output_tokens, self.cache_creation, self.cache_read
            ),
            id=self.id,
            chunk_position="last",
        )
