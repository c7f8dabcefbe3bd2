"""The streaming half of `BaseChatModel`: token callbacks, closing chunks, merging."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

from leanchain.callbacks.manager import RunManager
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    message_chunk_to_message,
    tool_call_chunk,
)

from ._results import ChatGeneration, ChatGenerationChunk, ChatResult

__all__ = [
    "aemitting",
    "as_chunk",
    "as_message",
    "emitting",
    "merge_chunks",
    "reply_of",
    "result_from_chunks",
]


def emitting(
    chunks: Iterator[ChatGenerationChunk], run: RunManager | None
) -> Iterator[ChatGenerationChunk]:
    """`chunks`, telling `run` about each one, ending with a chunk marked last."""
    last: ChatGenerationChunk | None = None
    for chunk in chunks:
        if run is not None:
            run.emit("on_llm_new_token", _token(chunk.message), chunk=chunk)
        last = chunk
        yield chunk
    if last is None or last.message.chunk_position != "last":
        tail = _tail(last)
        if run is not None:
            run.emit("on_llm_new_token", "", chunk=tail)
        yield tail


async def aemitting(
    chunks: AsyncIterator[ChatGenerationChunk], run: RunManager | None
) -> AsyncIterator[ChatGenerationChunk]:
    """Async `emitting`."""
    last: ChatGenerationChunk | None = None
    async for chunk in chunks:
        if run is not None:
            await run.aemit("on_llm_new_token", _token(chunk.message), chunk=chunk)
        last = chunk
        yield chunk
    if last is None or last.message.chunk_position != "last":
        tail = _tail(last)
        if run is not None:
            await run.aemit("on_llm_new_token", "", chunk=tail)
        yield tail


def reply_of(result: ChatResult) -> AIMessage:
    """The reply in a `_generate` result, as a whole `AIMessage`."""
    return as_message(result.generations[0].message)


def as_message(message: BaseMessage) -> AIMessage:
    """A model's reply as a whole `AIMessage` (a chunk becomes the message it adds up to)."""
    if type(message) is AIMessage:  # the usual reply, told apart without an isinstance
        return message
    if isinstance(message, AIMessageChunk):
        return cast(AIMessage, message_chunk_to_message(message))
    return cast(AIMessage, message)


def _token(message: AIMessageChunk) -> str:
    content = message.content
    return content if isinstance(content, str) else message.text


def _tail(last: ChatGenerationChunk | None) -> ChatGenerationChunk:
    """The empty chunk that closes a stream whose last chunk was not marked."""
    empty: Any = "" if last is None or isinstance(last.message.content, str) else []
    return ChatGenerationChunk(message=AIMessageChunk(content=empty, chunk_position="last"))


def merge_chunks(chunks: list[ChatGenerationChunk]) -> ChatGenerationChunk:
    """The sum of a non-empty list of chunks, in one multi-operand ``+``."""
    return chunks[0] + chunks[1:] if len(chunks) > 1 else chunks[0]


def result_from_chunks(chunks: list[ChatGenerationChunk]) -> ChatResult:
    """A `_generate` result from a whole stream of chunks."""
    merged = merge_chunks(chunks)
    message = message_chunk_to_message(merged.message)
    return ChatResult(
        generations=[ChatGeneration(message=message, generation_info=merged.generation_info)]
    )


def as_chunk(message: AIMessage) -> AIMessageChunk:
    """A whole reply as one chunk (for models that cannot stream)."""
    if isinstance(message, AIMessageChunk):
        if message.chunk_position == "last":
            return message
        return message.model_copy(update={"chunk_position": "last"})
    chunks = [
        tool_call_chunk(name=call["name"], args=json.dumps(call["args"]), id=call["id"], index=i)
        for i, call in enumerate(message.tool_calls)
    ]
    offset = len(chunks)
    chunks += [
        tool_call_chunk(name=bad["name"], args=bad["args"], id=bad["id"], index=offset + i)
        for i, bad in enumerate(message.invalid_tool_calls)
    ]
    return AIMessageChunk(
        content=message.content,
        additional_kwargs=message.additional_kwargs,
        response_metadata=message.response_metadata,
        name=message.name,
        id=message.id,
        tool_call_chunks=chunks,
        usage_metadata=message.usage_metadata,
        chunk_position="last",
    )
