"""Tool-call rules both providers keep: calls paired with results, finished calls read whole."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from leanchain.language_models import ChatGeneration, ChatGenerationChunk, ChatResult
from leanchain.messages import AIMessage, BaseMessage, ToolMessage, message_chunk_to_message

__all__ = ["check_tool_pairing", "result_from_chunks"]


def check_tool_pairing(messages: Sequence[BaseMessage]) -> None:
    """Reject a history in which a tool call is unanswered or a tool result answers no call.

    Both APIs answer 400 to such a history; failing here names the message at fault and sends
    nothing. Every tool call of an AI message needs a `ToolMessage` with its id before the next
    message of any other kind.

    Raises:
        ValueError: the tool calls and tool messages do not pair up.
    """
    pending: dict[str, int] = {}
    for position, message in enumerate(messages):
        if isinstance(message, ToolMessage):
            if pending.pop(message.tool_call_id, None) is None:
                raise ValueError(
                    f"Message {position} is a ToolMessage for tool_call_id "
                    f"{message.tool_call_id!r}, but no tool call of the AI message before it "
                    "has that id (or it was answered already)"
                )
            continue
        if pending:
            _unanswered(pending, position)
        if isinstance(message, AIMessage):
            ids = [call["id"] for call in message.tool_calls]
            ids += [call["id"] for call in message.invalid_tool_calls]
            pending = {call_id: position for call_id in ids if call_id}
    if pending:
        _unanswered(pending, None)


def _unanswered(pending: dict[str, int], position: int | None) -> NoReturn:
    source = next(iter(pending.values()))
    where = "at the end of the messages" if position is None else f"before message {position}"
    raise ValueError(
        f"The tool calls {sorted(pending)} of message {source} have no ToolMessage answering "
        f"them {where}; every tool call needs a ToolMessage with its tool_call_id right after "
        "the AI message that made it"
    )


def result_from_chunks(chunks: list[ChatGenerationChunk]) -> ChatResult:
    """The whole reply of a stream, its tool-call arguments read as complete JSON.

    The messages layer owns that rule (``AIMessageChunk``): the finished reply's arguments
    that are not one complete JSON object (cut off by the stream, malformed, not an object)
    make invalid tool calls with the error said, never a call with truncated arguments.
    """
    merged = chunks[0] + chunks[1:] if len(chunks) > 1 else chunks[0]
    message = message_chunk_to_message(merged.message)
    return ChatResult(
        generations=[ChatGeneration(message=message, generation_info=merged.generation_info)]
    )
