"""Answering a chat-model call in the model's place (`ModelCall.answer` and its twins).

The answer is given by a stand-in model that looks to the callbacks exactly like the model it
replaces — its name, tags, metadata, type and identifying parameters, whether it can stream
(sync, async or both) and whether streaming is disabled — and whose reply is the one given.
It runs through `BaseChatModel`'s own run code (past the interceptors), so a handler sees the
same ``on_chat_model_start``, tokens and ``on_llm_end`` as it would have from the model.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from leanchain.callbacks.manager import RunManager
from leanchain.messages import AIMessage, AIMessageChunk, BaseMessage

from ._base import BaseChatModel
from ._results import ChatGeneration, ChatGenerationChunk, ChatResult
from ._streaming import as_chunk, reply_of, result_from_chunks

__all__ = ["stand_in"]


class _Answer(BaseChatModel):
    """A model that gives one reply, posing as `model` (it cannot stream)."""

    __slots__ = ("_chunks", "_message", "_model")

    def __init__(
        self,
        model: BaseChatModel,
        message: AIMessage | None,
        chunks: tuple[AIMessageChunk, ...] | None,
    ) -> None:
        super().__init__(
            name=model.get_name(),
            disable_streaming=model.disable_streaming,
            tags=model.tags,
            metadata=model.metadata,
        )
        self._model = model
        self._message = message
        self._chunks = chunks

    @property
    def _llm_type(self) -> str:
        return self._model._llm_type

    @property
    def _identifying_params(self) -> Mapping[str, Any]:
        return self._model._identifying_params

    def _reply(self) -> AIMessage:
        if self._message is not None:
            return self._message
        assert self._chunks is not None
        return reply_of(result_from_chunks([ChatGenerationChunk(c) for c in self._chunks]))

    def _pieces(self) -> tuple[AIMessageChunk, ...]:
        if self._chunks is not None:
            return self._chunks
        assert self._message is not None
        return (as_chunk(self._message),)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply())])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._generate(messages)


class _AsyncStreamingAnswer(_Answer):
    """`_Answer` for a model that streams async only."""

    __slots__ = ()

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._pieces():
            yield ChatGenerationChunk(message=chunk)


class _StreamingAnswer(_AsyncStreamingAnswer):
    """`_Answer` for a model that streams (sync, and async too)."""

    __slots__ = ()

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._pieces():
            yield ChatGenerationChunk(message=chunk)


def stand_in(model: BaseChatModel, reply: AIMessage | Sequence[AIMessageChunk]) -> BaseChatModel:
    """A model that answers `reply` and that callbacks cannot tell from `model`.

    Raises:
        TypeError: `reply` is neither an `AIMessage` nor a non-empty sequence of chunks.
            (One `AIMessageChunk` counts as a stream of one chunk.)
    """
    message: AIMessage | None
    chunks: tuple[AIMessageChunk, ...] | None
    if isinstance(reply, AIMessageChunk):
        message, chunks = None, (reply,)
    elif isinstance(reply, AIMessage):
        message, chunks = reply, None
    elif (
        isinstance(reply, Sequence) and reply and all(isinstance(c, AIMessageChunk) for c in reply)
    ):
        message, chunks = None, tuple(reply)
    else:
        raise TypeError(
            "a model call is answered with an AIMessage or a non-empty sequence of "
            f"AIMessageChunks, got {type(reply).__name__}"
        )
    cls = type(model)
    if cls._stream is not BaseChatModel._stream:
        return _StreamingAnswer(model, message, chunks)
    if cls._astream is not BaseChatModel._astream:
        return _AsyncStreamingAnswer(model, message, chunks)
    return _Answer(model, message, chunks)
