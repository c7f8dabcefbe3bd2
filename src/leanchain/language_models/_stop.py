"""Stop sequences applied on the client: a reply ends at the first stop marker in its text.

Servers cut replies at ``stop`` themselves, but not all do: reasoning models reject the
parameter (pitfalls.md 1C-2), some compatible servers ignore it. A text-protocol agent (ReAct,
structured chat, XML) must not read a made-up ``Observation:`` all the same, so the chat model
base cuts the reply text here, whole (`cut_result`) or while it streams (`cut_stream`). Text
after a marker is never emitted; a streamed reply ends at the marker and the rest of the
server's stream is not read. Tool calls and usage that came with the text are kept.

When a reply is cut, a ``finish_reason`` in its metadata becomes ``"stop"`` (and Anthropic's
``stop_reason``/``stop_sequence`` say ``"stop_sequence"`` and the marker), as if the server had
stopped there. Only string content is cut; a list of content blocks is left as it is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from leanchain.messages import AIMessage, AIMessageChunk

from ._results import ChatGeneration, ChatGenerationChunk, ChatResult

__all__ = [
    "StopScanner",
    "acut_stream",
    "cut_message",
    "cut_result",
    "cut_stream",
    "cut_text",
    "first_stop",
    "stopped_metadata",
]


def first_stop(text: str, stop: Sequence[str]) -> tuple[int, str] | None:
    """Where the first stop marker in `text` starts, and which one; ``None`` if none is in it.

    Of markers starting at the same place, the shortest wins (it is the one completed first).
    Empty markers are ignored.
    """
    best: tuple[int, str] | None = None
    for marker in stop:
        if not marker:
            continue
        at = text.find(marker)
        if at != -1 and (best is None or (at, len(marker)) < (best[0], len(best[1]))):
            best = (at, marker)
    return best


def cut_text(text: str, stop: Sequence[str]) -> str:
    """`text` up to the first occurrence of any stop marker."""
    found = first_stop(text, stop)
    return text if found is None else text[: found[0]]


def stopped_metadata(metadata: Mapping[str, Any], marker: str) -> Mapping[str, Any]:
    """`metadata` saying that the reply ended at stop sequence `marker`.

    Only the keys a provider reader already set are rewritten: OpenAI's (and the neutral)
    ``finish_reason``, Anthropic's ``stop_reason`` and ``stop_sequence``.
    """
    if "finish_reason" not in metadata and "stop_reason" not in metadata:
        return metadata
    updated = dict(metadata)
    if "finish_reason" in updated:
        updated["finish_reason"] = "stop"
    if "stop_reason" in updated:
        updated["stop_reason"] = "stop_sequence"
        updated["stop_sequence"] = marker
    return updated


def cut_message(message: AIMessage, stop: Sequence[str]) -> AIMessage:
    """`message` with its text cut at the first stop marker (itself when there is none)."""
    content = message.content
    if not isinstance(content, str):
        return message
    for marker in stop:  # the usual reply holds none: `first_stop` runs only when one is in it
        if marker and marker in content:
            break
    else:
        return message
    found = first_stop(content, stop)
    return message if found is None else _cut_at(message, content, found)


def cut_result(result: ChatResult, stop: Sequence[str] | None) -> ChatResult:
    """A `_generate` result with its reply cut at the first stop marker."""
    if not stop:
        return result
    generation = result.generations[0]
    message = generation.message
    if not isinstance(message, AIMessage):
        return result
    content = message.content
    if not isinstance(content, str):
        return result
    found = first_stop(content, stop)
    if found is None:
        return result
    cut, marker = _cut_at(message, content, found), found[1]
    info = generation.generation_info
    replaced = ChatGeneration(
        message=cut, generation_info=stopped_metadata(info, marker) if info else info
    )
    return ChatResult(generations=[replaced, *result.generations[1:]], llm_output=result.llm_output)


def _cut_at(message: AIMessage, content: str, found: tuple[int, str]) -> AIMessage:
    """`message`, whose text is `content`, cut where `first_stop` `found` a marker."""
    at, marker = found
    update: dict[str, Any] = {"content": content[:at]}
    metadata = stopped_metadata(message.response_metadata, marker)
    if metadata is not message.response_metadata:
        update["response_metadata"] = metadata
    return message.model_copy(update=update)


class StopScanner:
    """Finds the first stop marker in text that arrives in pieces.

    `feed` returns the text that can be released now: everything but a tail that could still
    be the start of a marker. That tail is held back until the next piece shows it is not one
    (it is released then), or it completes a marker. Once a marker is found, `marker` is set
    and nothing after it is ever returned. What was released, followed by `flush`, is the whole
    text cut as `cut_text` cuts it.
    """

    __slots__ = ("_firsts", "_held", "_longest", "_stop", "marker")

    def __init__(self, stop: Sequence[str]) -> None:
        self._stop = tuple(marker for marker in stop if marker)
        self._longest = max(map(len, self._stop), default=0)
        self._firsts = frozenset(marker[0] for marker in self._stop)
        self._held = ""
        self.marker: str | None = None
        """The marker the text was cut at, once found."""

    def feed(self, text: str) -> str:
        """The text that can be released after this piece (before the marker, once found)."""
        if not self._held:
            for first in self._firsts:
                if first in text:
                    break
            else:  # no marker can start in this piece: the usual case, kept cheap
                return text
        buffer = self._held + text if self._held else text
        found = first_stop(buffer, self._stop)
        end = len(buffer) if found is None else found[0]
        start = self._open_from(buffer, end)
        if found is not None and start == end:
            self._held = ""
            self.marker = found[1]
            return buffer[:end]
        # A marker may start in the held tail; one found later in it may not be the first.
        self._held = buffer[start:]
        return buffer[:start]

    def flush(self) -> str:
        """The held-back text at the end of the stream, cut at a marker it contains."""
        held, self._held = self._held, ""
        found = first_stop(held, self._stop)
        if found is None:
            return held
        self.marker = found[1]
        return held[: found[0]]

    def _open_from(self, buffer: str, end: int) -> int:
        """The first position before `end` from which `buffer` is an unfinished marker."""
        low = max(0, len(buffer) - self._longest + 1)
        found = end
        for first in self._firsts:  # str.find per first character: most pieces have none
            at = buffer.find(first, low, found)
            while at != -1:
                tail = buffer[at:]
                if any(len(m) > len(tail) and m.startswith(tail) for m in self._stop):
                    found = at
                    break
                at = buffer.find(first, at + 1, found)
        return found

    def step(self, chunk: ChatGenerationChunk) -> ChatGenerationChunk | None:
        """What to send on for `chunk`: itself, its released part, or ``None`` (all held)."""
        message = chunk.message
        content = message.content
        if not isinstance(content, str):
            return chunk
        last = message.chunk_position == "last"
        if not content and not last:
            return chunk
        text = self.feed(content) if content else ""
        if last and self.marker is None:
            text += self.flush()
        marker = self.marker
        if marker is not None:
            update: dict[str, Any] = {"content": text, "chunk_position": "last"}
            metadata = stopped_metadata(message.response_metadata, marker)
            if metadata is not message.response_metadata:
                update["response_metadata"] = metadata
            info = chunk.generation_info
            return ChatGenerationChunk(
                message=message.model_copy(update=update),
                generation_info=stopped_metadata(info, marker) if info else info,
            )
        if text == content:
            return chunk
        if not text and _only_text(chunk):
            return None
        return ChatGenerationChunk(
            message=message.model_copy(update={"content": text}),
            generation_info=chunk.generation_info,
        )

    def rest(self, message_id: str | None) -> ChatGenerationChunk | None:
        """The held text of a stream that ended with no last chunk, as one chunk (if any)."""
        text = self.flush()
        if not text and self.marker is None:
            return None
        position = "last" if self.marker is not None else None
        return ChatGenerationChunk(
            message=AIMessageChunk(content=text, id=message_id, chunk_position=position)
        )


def _only_text(chunk: ChatGenerationChunk) -> bool:
    message = chunk.message
    return not (
        message.tool_call_chunks
        or message.usage_metadata
        or message.response_metadata
        or message.additional_kwargs
        or chunk.generation_info
    )


def cut_stream(
    chunks: Iterator[ChatGenerationChunk], stop: Sequence[str] | None
) -> Iterator[ChatGenerationChunk]:
    """`chunks` with their text cut at the first stop marker; the stream ends there.

    With no `stop`, `chunks` itself: a stream without stop sequences costs nothing more.
    """
    return _cut_stream(chunks, stop) if stop else chunks


def acut_stream(
    chunks: AsyncIterator[ChatGenerationChunk], stop: Sequence[str] | None
) -> AsyncIterator[ChatGenerationChunk]:
    """Async `cut_stream`."""
    return _acut_stream(chunks, stop) if stop else chunks


def _cut_stream(
    chunks: Iterator[ChatGenerationChunk], stop: Sequence[str]
) -> Iterator[ChatGenerationChunk]:
    scanner = StopScanner(stop)
    message_id: str | None = None
    for chunk in chunks:
        message_id = chunk.message.id or message_id
        out = scanner.step(chunk)
        if scanner.marker is not None:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()  # stop reading now: the server may still be writing past the marker
            if out is not None:
                yield out
            return
        if out is not None:
            yield out
    rest = scanner.rest(message_id)
    if rest is not None:
        yield rest


async def _acut_stream(
    chunks: AsyncIterator[ChatGenerationChunk], stop: Sequence[str]
) -> AsyncIterator[ChatGenerationChunk]:
    scanner = StopScanner(stop)
    message_id: str | None = None
    async for chunk in chunks:
        message_id = chunk.message.id or message_id
        out = scanner.step(chunk)
        if scanner.marker is not None:
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                await aclose()
            if out is not None:
                yield out
            return
        if out is not None:
            yield out
    rest = scanner.rest(message_id)
    if rest is not None:
        yield rest
