"""An Anthropic Messages answer or stream to leanchain messages (provider-wire.md §5.4, §5.5).

A ``Message`` becomes an `AIMessage`; the raw events of a stream become `AIMessageChunk`s
through `AnthropicStreamReader`, which numbers tool calls itself (a block's ``index`` counts
text blocks too). Usage counts the cache tokens as input; the stop reason is kept and also
named in neutral terms (``finish_reason``).
"""

from __future__ import annotations

import json
from typing import Any, Final

from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    InvalidToolCall,
    ToolCall,
    UsageMetadata,
    invalid_tool_call,
    tool_call,
    tool_call_chunk,
)

from ._content import text_chunk

__all__ = [
    "AnthropicStreamReader",
    "message_from_anthropic",
    "response_metadata",
    "usage_from_anthropic",
]

_FINISH: Final = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


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
    except (ValueError, RecursionError) as exc:
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

    @property
    def complete(self) -> bool:
        """Whether ``message_stop`` arrived (a stream without it was cut short)."""
        return self.stopped

    def read(self, event: Any) -> AIMessageChunk | None:
        """The chunk for one stream event, or ``None``."""
        kind = event.type
        if kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta":
                return text_chunk(delta.text, self.id) if delta.text else None
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
                return text_chunk(block.text, self.id)
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
