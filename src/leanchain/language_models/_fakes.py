"""LangChain's fake chat models: `FakeListChatModel` and `GenericFakeChatModel`.

They answer from a fixed list or an iterator, for tests and examples. For agent tests prefer
`ScriptedChatModel`, which records requests and fails loudly when its script runs out.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from leanchain.callbacks.manager import RunManager
from leanchain.errors import LeanchainError, ScriptExhaustedError
from leanchain.messages import AIMessage, AIMessageChunk, BaseMessage
from leanchain.runnables.config import RunnableConfig, get_config_list

from ._base import BaseChatModel, LanguageModelInput, ToolChoice
from ._chunking import split_words, stream_chunks
from ._results import ChatGeneration, ChatGenerationChunk, ChatResult

if TYPE_CHECKING:
    from leanchain.runnables.base import Runnable
    from leanchain.tools import ToolLike

__all__ = [
    "FakeListChatModel",
    "FakeListChatModelError",
    "GenericFakeChatModel",
    "SequentialBatchMixin",
]


class FakeListChatModelError(LeanchainError):
    """Raised by `FakeListChatModel` at its ``error_on_chunk_number`` while streaming."""


class SequentialBatchMixin:
    """`batch`/`abatch` one item after another, so that scripted replies go out in order."""

    __slots__ = ()

    def batch(
        self,
        inputs: Sequence[LanguageModelInput],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[AIMessage]:
        """Invoke on each input in turn; with `return_exceptions` errors take their place."""
        model: Any = self
        results: list[Any] = []
        for item, conf in zip(inputs, get_config_list(config, len(inputs)), strict=True):
            try:
                results.append(model.invoke(item, conf, **kwargs))
            except Exception as exc:
                if not return_exceptions:
                    raise
                results.append(exc)
        return results

    async def abatch(
        self,
        inputs: Sequence[LanguageModelInput],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[AIMessage]:
        """Async `batch`, still one item after another."""
        model: Any = self
        results: list[Any] = []
        for item, conf in zip(inputs, get_config_list(config, len(inputs)), strict=True):
            try:
                results.append(await model.ainvoke(item, conf, **kwargs))
            except Exception as exc:
                if not return_exceptions:
                    raise
                results.append(exc)
        return results


class FakeListChatModel(SequentialBatchMixin, BaseChatModel):
    """Answers with its responses in turn, starting over after the last one.

    Streams one character per chunk. Ignores ``stop`` and cannot call tools.

    Args:
        responses: the replies' texts (at least one).
        sleep: seconds to wait before a reply, and before each streamed character.
        i: the index of the next response.
        error_on_chunk_number: raise `FakeListChatModelError` instead of streaming the chunk
            with this (0-based) number.
    """

    __slots__ = ("_lock", "error_on_chunk_number", "i", "responses", "sleep")

    def __init__(
        self,
        responses: Sequence[str],
        *,
        sleep: float | None = None,
        i: int = 0,
        error_on_chunk_number: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        if isinstance(responses, str) or not responses:
            raise ValueError(
                f"FakeListChatModel needs a non-empty list of response strings, got {responses!r}"
            )
        self.responses = list(responses)
        self.sleep = sleep
        self.i = i
        self.error_on_chunk_number = error_on_chunk_number
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"FakeListChatModel(responses={self.responses!r})"

    @property
    def _llm_type(self) -> str:
        return "fake-list-chat-model"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"responses": self.responses}

    def _next(self) -> str:
        with self._lock:
            response = self.responses[self.i % len(self.responses)]
            self.i = (self.i + 1) % len(self.responses)
        return response

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        response = self._next()
        if self.sleep is not None:
            time.sleep(self.sleep)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=response))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        response = self._next()
        if self.sleep is not None:
            await asyncio.sleep(self.sleep)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=response))])

    def _chunk(self, response: str, number: int) -> ChatGenerationChunk:
        if number == self.error_on_chunk_number:
            raise FakeListChatModelError(f"FakeListChatModel error on chunk {number}")
        last = "last" if number == len(response) - 1 else None
        return ChatGenerationChunk(
            message=AIMessageChunk(content=response[number], chunk_position=last)
        )

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        response = self._next()
        for number in range(len(response)):
            if self.sleep is not None:
                time.sleep(self.sleep)
            yield self._chunk(response, number)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        response = self._next()
        for number in range(len(response)):
            if self.sleep is not None:
                await asyncio.sleep(self.sleep)
            yield self._chunk(response, number)


class GenericFakeChatModel(BaseChatModel):
    """Answers with the next message of an iterator; streams word by word.

    A string from the iterator becomes ``AIMessage(content=string)``. Streaming splits the
    text at every whitespace character (each one its own chunk), then sends each
    ``additional_kwargs`` key as a chunk of its own (``function_call`` arguments split after
    each comma), then each tool call as one ``tool_call_chunk``; the last chunk carries the
    response metadata and usage. `bind_tools` is accepted and the tools are ignored: the
    iterator decides what the model says.

    Args:
        messages: the replies, in order; an iterable is iterated once.

    Raises:
        ScriptExhaustedError: when called after the last message.
    """

    __slots__ = ("_count", "_lock", "messages")

    def __init__(self, messages: Iterable[AIMessage | str], *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.messages: Iterator[AIMessage | str] = iter(messages)
        self._lock = threading.Lock()
        self._count = 0

    def __repr__(self) -> str:
        return "GenericFakeChatModel(messages=<iterator>)"

    @property
    def _llm_type(self) -> str:
        return "generic-fake-chat-model"

    def bind_tools(
        self,
        tools: Sequence[ToolLike],
        *,
        tool_choice: ToolChoice | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind the tools' schemas (ignored when answering: the iterator decides)."""
        return self._bind_openai_tools(tools, tool_choice, kwargs)

    def _next(self) -> AIMessage:
        with self._lock:
            try:
                message = next(self.messages)
            except StopIteration:
                raise ScriptExhaustedError(
                    f"GenericFakeChatModel ran out of messages after {self._count} replies; "
                    "give it more messages"
                ) from None
            self._count += 1
        return AIMessage(content=message) if isinstance(message, str) else message

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next())])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in stream_chunks(self._next(), split_words, with_kwargs=True):
            yield ChatGenerationChunk(message=chunk)
