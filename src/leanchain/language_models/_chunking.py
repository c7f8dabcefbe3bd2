"""How the fake and scripted models cut a reply into the chunks they stream."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal, TypeAlias

from leanchain.messages import AIMessage, AIMessageChunk, tool_call_chunk

__all__ = ["Chunking", "mark_last", "split_words", "splitter", "stream_chunks"]

Chunking: TypeAlias = Literal["words", "chars"] | int | Callable[[str], list[str]]
"""How a streamed reply is cut: at whitespace (each whitespace character its own piece),
per character, in pieces of n characters, or by a function whose pieces join back to the text."""

_WHITESPACE = re.compile(r"(\s)")


def split_words(text: str) -> list[str]:
    """Split at every whitespace character, each one its own piece: ``"a b"`` → a, " ", b."""
    return [piece for piece in _WHITESPACE.split(text) if piece]


def mark_last(chunks: list[AIMessageChunk]) -> list[AIMessageChunk]:
    """`chunks` with the final one marked ``chunk_position="last"`` (one empty if none)."""
    if not chunks:
        return [AIMessageChunk(content="", chunk_position="last")]
    chunks[-1] = chunks[-1].model_copy(update={"chunk_position": "last"})
    return chunks


def splitter(chunking: Chunking) -> Callable[[str], list[str]]:
    """The function that cuts text as `chunking` says.

    Raises:
        ValueError: `chunking` is none of the accepted forms (the models check at build time).
    """
    if chunking == "words":
        return split_words
    if chunking == "chars":
        return list
    if isinstance(chunking, int) and not isinstance(chunking, bool) and chunking > 0:
        size = chunking
        return lambda text: [text[i : i + size] for i in range(0, len(text), size)]
    if callable(chunking):
        func = chunking

        def checked(text: str) -> list[str]:
            pieces = list(func(text))
            if "".join(pieces) != text:
                raise ValueError(
                    f"chunking function's pieces {pieces!r} do not join back to {text!r}"
                )
            return [piece for piece in pieces if piece]

        return checked
    raise ValueError(
        "chunking must be 'words', 'chars', a positive int or a function of the text, "
        f"got {chunking!r}"
    )


def stream_chunks(
    message: AIMessage,
    split: Callable[[str], list[str]],
    *,
    with_kwargs: bool = False,
) -> list[AIMessageChunk]:
    """The chunks a fake streams for `message`; they add up to it.

    Args:
        message: the whole reply.
        split: ``str -> list[str]``, how text (and tool-call arguments) is cut into pieces.
        with_kwargs: also stream ``additional_kwargs``, one key per chunk.
    """
    mid = message.id
    chunks: list[AIMessageChunk] = []
    content = message.content
    if isinstance(content, str):
        text_chunk = AIMessageChunk._of_text
        chunks += [text_chunk(piece, mid) for piece in split(content)]
    elif content:
        chunks.append(AIMessageChunk(content=content, id=mid))
    calls, bad_calls = message.tool_calls, message.invalid_tool_calls
    if with_kwargs:
        chunks += _kwargs_chunks(message, mid)
        if "tool_calls" in message.additional_kwargs:
            calls, bad_calls = [], []  # the raw calls streamed above carry them already
    for index, call in enumerate(calls):
        pieces = split(json.dumps(call["args"])) or [""]
        chunks.append(
            AIMessageChunk(
                content="",
                id=mid,
                tool_call_chunks=[
                    tool_call_chunk(name=call["name"], args=pieces[0], id=call["id"], index=index)
                ],
            )
        )
        chunks += [
            AIMessageChunk(
                content="",
                id=mid,
                tool_call_chunks=[tool_call_chunk(name=None, args=piece, id=None, index=index)],
            )
            for piece in pieces[1:]
        ]
    for index, bad in enumerate(bad_calls, start=len(calls)):
        piece = tool_call_chunk(name=bad["name"], args=bad["args"], id=bad["id"], index=index)
        chunks.append(AIMessageChunk(content="", id=mid, tool_call_chunks=[piece]))
    chunks = mark_last(chunks)
    # Without `with_kwargs`, the extra fields ride on the last chunk, as a provider's final
    # event carries them (a refusal, say); raw tool calls are already the chunks above.
    extra = {} if with_kwargs else _unstreamed_kwargs(message.additional_kwargs)
    if message.response_metadata or message.usage_metadata or message.name or mid or extra:
        update: dict[str, Any] = {
            "response_metadata": message.response_metadata,
            "usage_metadata": message.usage_metadata,
            "name": message.name,
            "id": mid,
        }
        if extra:
            update["additional_kwargs"] = {**chunks[-1].additional_kwargs, **extra}
        chunks[-1] = chunks[-1].model_copy(update=update)
    return chunks


def _unstreamed_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    if not kwargs:
        return kwargs
    return {key: value for key, value in kwargs.items() if key != "tool_calls"}


def _kwargs_chunks(message: AIMessage, mid: str | None) -> list[AIMessageChunk]:
    chunks: list[AIMessageChunk] = []
    for key, value in message.additional_kwargs.items():
        if key == "function_call" and isinstance(value, dict):
            for fkey, fvalue in value.items():
                pieces = re.split(r"(,)", fvalue) if isinstance(fvalue, str) else [fvalue]
                chunks += [
                    AIMessageChunk(
                        content="", id=mid, additional_kwargs={"function_call": {fkey: piece}}
                    )
                    for piece in pieces
                    if piece != ""
                ]
        else:
            chunks.append(AIMessageChunk(content="", id=mid, additional_kwargs={key: value}))
    return chunks
