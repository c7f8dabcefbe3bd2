"""OpenAI Chat Completions wire format: answers, SSE chunks, error bodies (provider-wire §2)."""

from __future__ import annotations

from typing import Any

from leanchain.testing._script import FinishReason, ScriptedError, ScriptedReply, ScriptedUsage
from leanchain.testing._wire import CREATED, RenderContext, arguments_json, dumps, split

__all__ = [
    "error_body",
    "reply_body",
    "stream_error_event",
    "stream_events",
    "unsupported_parameter_error",
]

_FINISH: dict[FinishReason, str] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
}

DONE = b"data: [DONE]\n\n"


def reply_body(reply: ScriptedReply, ctx: RenderContext) -> dict[str, Any]:
    """The ``chat.completion`` JSON of a non-stream answer."""
    refused = reply.refusal is not None
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.text if (reply.text or not reply.tool_calls) and not refused else None,
        "refusal": reply.refusal,
        "annotations": [],
    }
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": arguments_json(call)},
            }
            for call, call_id in zip(reply.tool_calls, ctx.tool_ids, strict=True)
        ]
    return {
        "id": ctx.response_id,
        "object": "chat.completion",
        "created": CREATED,
        "model": ctx.model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": _FINISH[reply.resolved_finish_reason],
            }
        ],
        "usage": _usage(reply.usage),
        "service_tier": "default",
        "system_fingerprint": "fp_fake",
    }


def stream_events(reply: ScriptedReply, ctx: RenderContext) -> list[bytes]:
    """Every SSE event of a streamed answer, ``data: [DONE]`` last."""
    deltas: list[dict[str, Any]] = []
    role: dict[str, Any] = {"role": "assistant", "content": "", "refusal": None}
    if reply.refusal is not None:
        deltas.append({"role": "assistant", "content": None, "refusal": ""})
        deltas.extend({"refusal": piece} for piece in split(reply.refusal, ctx.chunk_size))
    elif reply.text or not reply.tool_calls:
        deltas.append(role)
        deltas.extend({"content": piece} for piece in split(reply.text, ctx.chunk_size))
    for index, (call, call_id) in enumerate(zip(reply.tool_calls, ctx.tool_ids, strict=True)):
        opening = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        if deltas:
            deltas.append({"tool_calls": [opening]})
        else:
            # Like the real API, a reply without text opens with the role and first call together.
            deltas.append({**role, "content": None, "tool_calls": [opening]})
        deltas.extend(
            {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
            for piece in split(arguments_json(call), ctx.chunk_size)
        )
    finish = _FINISH[reply.resolved_finish_reason]
    events = [_chunk(ctx, delta, None) for delta in deltas]
    events.append(_chunk(ctx, {}, finish))
    if ctx.include_usage:
        events.append(_frame({**_chunk_head(ctx), "choices": [], "usage": _usage(reply.usage)}))
    events.append(DONE)
    return events


def unsupported_parameter_error(param: str) -> ScriptedError:
    """The 400 OpenAI answers when a model does not take a parameter (``stop`` on o3, ...)."""
    return ScriptedError(
        400,
        f"Unsupported parameter: {param!r} is not supported with this model.",
        error_type="invalid_request_error",
        code="unsupported_parameter",
        param=param,
    )


def stream_error_event(error_type: str | None, message: str, code: str | None = None) -> bytes:
    """The ``data: {"error": ...}`` event an OpenAI stream fails with mid-way."""
    return _frame(error_body(500, message, error_type, code))


def error_body(
    status: int, message: str, error_type: str | None, code: str | None, param: str | None = None
) -> dict[str, Any]:
    """The ``{"error": {message, type, param, code}}`` body of an error status."""
    default_type, default_code = _ERROR_TYPES.get(status, _default_error(status))
    return {
        "error": {
            "message": message,
            "type": error_type or default_type,
            "param": param,
            "code": code if code is not None else default_code,
        }
    }


_ERROR_TYPES: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def _default_error(status: int) -> tuple[str, str | None]:
    return ("server_error", None) if status >= 500 else ("invalid_request_error", None)


def _usage(usage: ScriptedUsage) -> dict[str, Any]:
    prompt_details: dict[str, int] = {"cached_tokens": usage.cache_read_tokens, "audio_tokens": 0}
    if usage.cache_creation_tokens:
        prompt_details["cache_write_tokens"] = usage.cache_creation_tokens
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "prompt_tokens_details": prompt_details,
        "completion_tokens_details": {
            "reasoning_tokens": usage.reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _chunk_head(ctx: RenderContext) -> dict[str, Any]:
    return {
        "id": ctx.response_id,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": ctx.model,
        "system_fingerprint": "fp_fake",
    }


def _chunk(ctx: RenderContext, delta: dict[str, Any], finish_reason: str | None) -> bytes:
    chunk = {
        **_chunk_head(ctx),
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
    }
    if ctx.include_usage:
        # With include_usage the real API sends "usage": null on every chunk but the last.
        chunk["usage"] = None
    return _frame(chunk)


def _frame(payload: dict[str, Any]) -> bytes:
    return f"data: {dumps(payload)}\n\n".encode()
