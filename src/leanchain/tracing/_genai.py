"""OpenTelemetry GenAI semantic-convention attributes from leanchain's run data.

Plain functions from messages, invocation parameters and results to attribute dicts; the
message content is rendered as the conventions' JSON (``gen_ai.input.messages``,
``gen_ai.output.messages``), which a tracing backend reads and nothing ever revives.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "chat_request_attributes",
    "chat_response_attributes",
    "error_type",
    "messages_json",
    "provider_of",
    "to_json",
]

_PROVIDERS = {"openai-chat": "openai", "anthropic-chat": "anthropic"}
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
_REQUEST_PARAMS = (
    ("temperature", "gen_ai.request.temperature"),
    ("top_p", "gen_ai.request.top_p"),
    ("top_k", "gen_ai.request.top_k"),
    ("max_tokens", "gen_ai.request.max_tokens"),
    ("max_completion_tokens", "gen_ai.request.max_tokens"),
    ("frequency_penalty", "gen_ai.request.frequency_penalty"),
    ("presence_penalty", "gen_ai.request.presence_penalty"),
    ("seed", "gen_ai.request.seed"),
)


def to_json(value: Any) -> str:
    """`value` as compact JSON; anything JSON cannot say is written as its ``str``."""
    return json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":"))


def provider_of(params: Mapping[str, Any]) -> str | None:
    """``gen_ai.provider.name`` from a chat model's invocation params (its ``_type``)."""
    kind = params.get("_type")
    if not isinstance(kind, str):
        return None
    return _PROVIDERS.get(kind, kind)


def model_of(params: Mapping[str, Any]) -> str | None:
    """The requested model's name from a chat model's invocation params."""
    model = params.get("model_name") or params.get("model")
    return model if isinstance(model, str) else None


def chat_request_attributes(params: Mapping[str, Any]) -> dict[str, Any]:
    """The request attributes of a chat span (without content)."""
    attributes: dict[str, Any] = {"gen_ai.operation.name": "chat"}
    provider = provider_of(params)
    if provider is not None:
        attributes["gen_ai.provider.name"] = provider
    model = model_of(params)
    if model is not None:
        attributes["gen_ai.request.model"] = model
    for key, attribute in _REQUEST_PARAMS:
        value = params.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            attributes[attribute] = value
    stop = params.get("stop")
    if isinstance(stop, Sequence) and not isinstance(stop, str) and stop:
        attributes["gen_ai.request.stop_sequences"] = [str(s) for s in stop]
    return attributes


def _finish_reason(message: Any, info: Mapping[str, Any] | None) -> str | None:
    metadata = getattr(message, "response_metadata", None) or {}
    for source in (metadata, info or {}):
        reason = source.get("finish_reason") or source.get("stop_reason")
        if isinstance(reason, str):
            return reason
    return None


def chat_response_attributes(response: Any, *, capture_content: bool) -> dict[str, Any]:
    """The response attributes of a chat span from the `LLMResult` it ended with."""
    attributes: dict[str, Any] = {}
    generations = getattr(response, "generations", None)
    if not generations or not generations[0]:
        return attributes
    generation = generations[0][0]
    message = generation.message
    reason = _finish_reason(message, getattr(generation, "generation_info", None))
    if reason is not None:
        attributes["gen_ai.response.finish_reasons"] = [reason]
    metadata = getattr(message, "response_metadata", None) or {}
    model = metadata.get("model_name") or metadata.get("model")
    if isinstance(model, str):
        attributes["gen_ai.response.model"] = model
    message_id = getattr(message, "id", None)
    if isinstance(message_id, str):
        attributes["gen_ai.response.id"] = message_id
    usage = getattr(message, "usage_metadata", None)
    if usage:
        attributes["gen_ai.usage.input_tokens"] = int(usage.get("input_tokens", 0))
        attributes["gen_ai.usage.output_tokens"] = int(usage.get("output_tokens", 0))
    if capture_content:
        part = _message(message)
        part["finish_reason"] = reason or "stop"
        attributes["gen_ai.output.messages"] = to_json([part])
    return attributes


def _parts(message: Any) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    kind = getattr(message, "type", None)
    text = getattr(message, "text", None)
    if not isinstance(text, str):
        text = str(getattr(message, "content", ""))
    if kind == "tool":
        parts.append(
            {
                "type": "tool_call_response",
                "id": getattr(message, "tool_call_id", None),
                "response": text,
            }
        )
        return parts
    if text:
        parts.append({"type": "text", "content": text})
    for call in getattr(message, "tool_calls", None) or ():
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": call.get("name"),
                "arguments": call.get("args"),
            }
        )
    return parts


def _message(message: Any) -> dict[str, Any]:
    kind = str(getattr(message, "type", "user"))
    if kind.endswith("MessageChunk"):
        kind = kind[: -len("MessageChunk")].lower()
    return {"role": _ROLES.get(kind, kind), "parts": _parts(message)}


def messages_json(messages: Sequence[Any]) -> str:
    """``gen_ai.input.messages``: the messages as the conventions' role/parts JSON."""
    return to_json([_message(m) for m in messages])


def error_type(error: BaseException) -> str:
    """``error.type``: the exception's class, qualified by its module unless a builtin."""
    cls = type(error)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"
