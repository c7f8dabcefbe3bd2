"""Anthropic Messages wire format: answers, named SSE events, error bodies (provider-wire §3)."""

from __future__ import annotations

import json
from typing import Any

from leanchain.testing._script import FinishReason, ScriptedReply, ScriptedToolCall, ScriptedUsage
from leanchain.testing._wire import RenderContext, arguments_json, dumps, split

__all__ = ["error_body", "reply_body", "stream_error_event", "stream_events"]


def reply_body(reply: ScriptedReply, ctx: RenderContext) -> dict[str, Any]:
    """The ``message`` JSON of a non-stream answer."""
    content: list[dict[str, Any]] = []
    if reply.text or reply.refusal:
        content.append({"type": "text", "text": reply.text or reply.refusal})
    content.extend(
        {"type": "tool_use", "id": call_id, "name": call.name, "input": _input(call)}
        for call, call_id in zip(reply.tool_calls, ctx.tool_ids, strict=True)
    )
    stop_reason, stop_sequence = _stop(reply)
    return {
        "id": ctx.response_id,
        "type": "message",
        "role": "assistant",
        "model": ctx.model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": stop_sequence,
        "usage": {**_input_usage(reply.usage), "output_tokens": reply.usage.output_tokens},
    }


def stream_events(reply: ScriptedReply, ctx: RenderContext, *, ping: bool) -> list[bytes]:
    """Every SSE event of a streamed answer, in the API's order, ``message_stop`` last.

    With ``ping``, one ``ping`` follows the first ``content_block_start`` (or ``message_start``
    when there is no block), as the real API sends it.
    """
    start_usage = {**_input_usage(reply.usage), "output_tokens": 1}
    message: dict[str, Any] = {
        "id": ctx.response_id,
        "type": "message",
        "role": "assistant",
        "model": ctx.model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    events = [_event("message_start", {"message": message})]
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    if reply.text or reply.refusal:
        pieces = split(reply.text or reply.refusal or "", ctx.chunk_size)
        blocks.append(
            (
                {"type": "text", "text": ""},
                [{"type": "text_delta", "text": piece} for piece in pieces],
            )
        )
    for call, call_id in zip(reply.tool_calls, ctx.tool_ids, strict=True):
        # The real API opens every input_json_delta run with an empty fragment.
        fragments = ["", *split(arguments_json(call), ctx.chunk_size)]
        blocks.append(
            (
                {"type": "tool_use", "id": call_id, "name": call.name, "input": {}},
                [{"type": "input_json_delta", "partial_json": piece} for piece in fragments],
            )
        )
    if ping and not blocks:
        events.append(_event("ping", {}))
    for index, (block, deltas) in enumerate(blocks):
        events.append(_event("content_block_start", {"index": index, "content_block": block}))
        if ping and index == 0:
            events.append(_event("ping", {}))
        events.extend(
            _event("content_block_delta", {"index": index, "delta": delta}) for delta in deltas
        )
        events.append(_event("content_block_stop", {"index": index}))
    stop_reason, stop_sequence = _stop(reply)
    events.append(
        _event(
            "message_delta",
            {
                "delta": {"stop_reason": stop_reason, "stop_sequence": stop_sequence},
                "usage": {"output_tokens": reply.usage.output_tokens},
            },
        )
    )
    events.append(_event("message_stop", {}))
    return events


def stream_error_event(error_type: str | None, message: str, code: str | None = None) -> bytes:
    """The ``event: error`` an Anthropic stream fails with mid-way."""
    error: dict[str, Any] = {"type": error_type or "overloaded_error", "message": message}
    if code is not None:
        error["details"] = {"error_code": code}
    return _event("error", {"error": error})


def error_body(
    status: int, message: str, error_type: str | None, code: str | None, param: str | None = None
) -> dict[str, Any]:
    """The ``{"type": "error", "error": {type, message}}`` body of an error status.

    Anthropic's errors name no parameter: ``param`` is not sent.
    """
    error: dict[str, Any] = {"type": error_type or _error_type(status), "message": message}
    if code is not None:
        error["details"] = {"error_code": code}
    return {"type": "error", "error": error}


_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def _error_type(status: int) -> str:
    return _ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")


_STOP_REASONS: dict[FinishReason, str] = {
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "content_filter": "refusal",
}


def _stop(reply: ScriptedReply) -> tuple[str, str | None]:
    if reply.refusal is not None:
        return "refusal", None
    reason = reply.resolved_finish_reason
    if reason == "stop":
        if reply.stop_sequence is not None:
            return "stop_sequence", reply.stop_sequence
        return "end_turn", None
    return _STOP_REASONS[reason], None


def _input(call: ScriptedToolCall) -> Any:
    """The ``input`` of a non-stream ``tool_use`` block.

    Raw-string arguments that parse to an object are sent as that object; anything else is
    sent as the string itself, which the SDK passes through unvalidated.
    """
    if not isinstance(call.arguments, str):
        return dict(call.arguments)
    try:
        parsed = json.loads(call.arguments)
    except ValueError:
        return call.arguments
    return parsed if isinstance(parsed, dict) else call.arguments


def _input_usage(usage: ScriptedUsage) -> dict[str, Any]:
    cached = usage.cache_read_tokens + usage.cache_creation_tokens
    return {
        "input_tokens": usage.input_tokens - cached,
        "cache_creation_input_tokens": usage.cache_creation_tokens,
        "cache_read_input_tokens": usage.cache_read_tokens,
        "service_tier": "standard",
    }


def _event(name: str, fields: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {dumps({'type': name, **fields})}\n\n".encode()
