"""An OpenAI Chat Completions answer or stream to leanchain messages (provider-wire.md §5.2, §5.5).

A ``ChatCompletion`` becomes an `AIMessage`; the chunks of a stream become `AIMessageChunk`s
through `OpenAIStreamReader`, which numbers tool-call pieces by their ``index`` and sends each
call's id and name once, however a compatible server repeats (or omits) them.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    InvalidToolCall,
    ToolCall,
    ToolCallChunk,
    UsageMetadata,
    invalid_tool_call,
    parse_tool_call_args,
    tool_call,
    tool_call_chunk,
)

from ._content import text_chunk

__all__ = [
    "OpenAIStreamReader",
    "message_from_openai",
    "response_metadata",
    "usage_from_openai",
]


def usage_from_openai(usage: Any) -> UsageMetadata | None:
    """`UsageMetadata` from a ``CompletionUsage`` (cached tokens are part of the input)."""
    if usage is None:
        return None
    result = UsageMetadata(
        input_tokens=usage.prompt_tokens,
        output_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens,
    )
    details = usage.prompt_tokens_details
    if details is not None:
        inputs = _given(
            ("audio", details.audio_tokens),
            ("cache_read", details.cached_tokens),
            ("cache_creation", getattr(details, "cache_write_tokens", None)),
        )
        if inputs:
            result["input_token_details"] = inputs  # type: ignore[typeddict-item]
    details = usage.completion_tokens_details
    if details is not None:
        outputs = _given(("audio", details.audio_tokens), ("reasoning", details.reasoning_tokens))
        if outputs:
            result["output_token_details"] = outputs  # type: ignore[typeddict-item]
    return result


def response_metadata(
    model: str | None, finish_reason: str | None, fingerprint: str | None, tier: str | None
) -> dict[str, Any]:
    """The ``response_metadata`` of a reply, the same for a whole answer and a stream."""
    metadata: dict[str, Any] = {"model_provider": "openai"}
    for key, value in (
        ("model_name", model),
        ("finish_reason", finish_reason),
        ("system_fingerprint", fingerprint),
        ("service_tier", tier),
    ):
        if value is not None:
            metadata[key] = value
    return metadata


def _given(*pairs: tuple[str, Any]) -> dict[str, Any]:
    """The pairs whose value is set (not ``None``), as a dict."""
    return {key: value for key, value in pairs if value is not None}


def _new_call_id() -> str:
    # Some compatible servers send no id; a result can only answer a call that has one.
    return f"call_{uuid.uuid4().hex[:24]}"


def _parse_call(raw: Any) -> ToolCall | InvalidToolCall:
    call_id = raw.id or _new_call_id()
    if raw.type != "function":  # a custom tool: its input is one string
        return tool_call(name=raw.custom.name, args={"__arg1": raw.custom.input}, id=call_id)
    name, arguments = raw.function.name, raw.function.arguments
    # The same rule as a streamed reply's (truncated by max_tokens, say): complete JSON only.
    args, error = parse_tool_call_args(arguments)
    if args is None:
        return invalid_tool_call(name=name, args=arguments, id=call_id, error=error)
    return tool_call(name=name, args=args, id=call_id)


def message_from_openai(completion: Any) -> AIMessage:
    """The `AIMessage` of a ``ChatCompletion`` (its first choice)."""
    choice = completion.choices[0]
    message = choice.message
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for raw in message.tool_calls or ():
        parsed = _parse_call(raw)
        if parsed.get("type") == "invalid_tool_call":
            invalid.append(parsed)  # type: ignore[arg-type]
        else:
            calls.append(parsed)  # type: ignore[arg-type]
    extra = {"refusal": message.refusal} if message.refusal else {}
    return AIMessage(
        content=message.content or "",
        additional_kwargs=extra,
        response_metadata=response_metadata(
            completion.model,
            choice.finish_reason,
            completion.system_fingerprint,
            completion.service_tier,
        ),
        id=completion.id,
        tool_calls=calls,
        invalid_tool_calls=invalid,
        usage_metadata=usage_from_openai(completion.usage),
    )


class OpenAIStreamReader:
    """Turns the ``ChatCompletionChunk``s of one stream into `AIMessageChunk`s.

    `read` gives the chunk for an event (``None`` when it carries no text or tool call);
    `finish` gives the closing chunk with the finish reason, metadata and usage.
    """

    __slots__ = ("_calls", "_ids", "finish_reason", "id", "last", "usage")

    def __init__(self) -> None:
        self.id: str | None = None
        self.finish_reason: str | None = None
        self.usage: UsageMetadata | None = None
        self.last: Any = None
        # index -> [id sent, name sent, id made up here]
        self._calls: dict[int, list[Any]] = {}
        self._ids: dict[str, int] = {}

    @property
    def complete(self) -> bool:
        """Whether the finish reason arrived (a stream without one was cut short)."""
        return self.finish_reason is not None

    def read(self, event: Any) -> AIMessageChunk | None:
        """The chunk for one stream event, or ``None``."""
        self.last = event
        if self.id is None:
            self.id = event.id
        if event.usage is not None:
            self.usage = usage_from_openai(event.usage)
        choices = event.choices
        if not choices:  # the usage chunk, or a compatible server's filter results
            return None
        choice = choices[0]
        if choice.finish_reason is not None:
            self.finish_reason = choice.finish_reason
        delta = choice.delta
        content = delta.content
        if delta.tool_calls:
            chunks = self._tool_chunks(delta.tool_calls)
            return AIMessageChunk(content=content or "", tool_call_chunks=chunks, id=self.id)
        if content:
            return text_chunk(content, self.id)
        refusal = delta.refusal  # a structured-output refusal streams in its own field
        if refusal:
            return AIMessageChunk(content="", additional_kwargs={"refusal": refusal}, id=self.id)
        return None

    def _tool_chunks(self, deltas: Sequence[Any]) -> list[ToolCallChunk]:
        chunks = []
        for position, delta in enumerate(deltas):
            function = delta.function
            name = function.name if function is not None else None
            args = function.arguments if function is not None else None
            call_id = delta.id
            index = delta.index
            if index is None:
                known = self._ids.get(call_id) if call_id else None
                index = known if known is not None else (len(self._calls) if call_id else position)
            seen = self._calls.get(index)
            if seen is None or (call_id and call_id != seen[0] and not seen[2]):
                made_up = call_id is None
                call_id = call_id or _new_call_id()
                self._calls[index] = [call_id, name, made_up]
                self._ids[call_id] = index
            else:
                # `+` concatenates what each piece repeats: send id and name once.
                call_id = None
                if name is not None:
                    name, seen[1] = (None, seen[1]) if name == seen[1] else (name, name)
            chunks.append(tool_call_chunk(name=name, args=args, id=call_id, index=index))
        return chunks

    def finish(self) -> AIMessageChunk:
        """The closing chunk: finish reason, model, usage; marked ``chunk_position="last"``."""
        last = self.last
        metadata = response_metadata(
            last.model if last is not None else None,
            self.finish_reason,
            getattr(last, "system_fingerprint", None),
            getattr(last, "service_tier", None),
        )
        return AIMessageChunk(
            content="",
            response_metadata=metadata,
            usage_metadata=self.usage,
            id=self.id,
            chunk_position="last",
        )
