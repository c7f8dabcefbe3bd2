"""Test doubles for the chat-model tests: a handler recording model events, a tiny model."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from leanchain.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from leanchain.callbacks.manager import RunManager
from leanchain.language_models import (
    BaseChatModel,
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
)
from leanchain.messages import AIMessage, AIMessageChunk, BaseMessage


class ModelEvents(BaseCallbackHandler):
    """Records chat-model events as ``(event, payload)`` and their keyword arguments."""

    def __init__(self, *, wants_tokens: bool = False) -> None:
        self.events: list[tuple[str, Any]] = []
        self.kwargs: list[dict[str, Any]] = []
        self.wants_tokens = wants_tokens
        self._lock = threading.Lock()

    def _add(self, event: str, payload: Any, kwargs: dict[str, Any]) -> None:
        with self._lock:
            self.events.append((event, payload))
            self.kwargs.append(kwargs)

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: UUID, **kwargs: Any
    ) -> None:
        self._add("on_chat_model_start", messages, {"serialized": serialized, **kwargs})

    def on_llm_new_token(self, token: str, *, run_id: UUID, **kwargs: Any) -> None:
        self._add("on_llm_new_token", token, kwargs)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._add("on_llm_end", response, kwargs)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._add("on_llm_error", error, kwargs)

    def names(self) -> list[str]:
        """The event names, in order."""
        return [event for event, _ in self.events]

    def tokens(self) -> list[str]:
        """The streamed tokens, in order."""
        return [payload for event, payload in self.events if event == "on_llm_new_token"]


class AsyncModelEvents(AsyncCallbackHandler):
    """The async twin of `ModelEvents` (names only)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    async def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: UUID, **kwargs: Any
    ) -> None:
        self.events.append(("on_chat_model_start", messages))

    async def on_llm_new_token(self, token: str, *, run_id: UUID, **kwargs: Any) -> None:
        self.events.append(("on_llm_new_token", token))

    async def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.events.append(("on_llm_end", response))

    async def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self.events.append(("on_llm_error", error))


class EchoModel(BaseChatModel):
    """Replies with the last message's text; records what `_generate` received."""

    __slots__ = ("calls",)

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[list[BaseMessage], list[str] | None, dict[str, Any]]] = []

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls.append((messages, stop, kwargs))
        reply = AIMessage(content=messages[-1].text, response_metadata={"model": "echo"})
        return ChatResult(generations=[ChatGeneration(message=reply)], llm_output={"n": 1})


class UnmarkedStreamModel(EchoModel):
    """Streams the reply's words without marking the last chunk (the base closes it)."""

    __slots__ = ()

    @property
    def _llm_type(self) -> str:
        return "unmarked"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": "unmarked-1"}

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        self.calls.append((messages, stop, kwargs))
        for word in messages[-1].text.split():
            yield ChatGenerationChunk(message=AIMessageChunk(content=word))


class FailingStreamModel(EchoModel):
    """Streams one chunk, then raises."""

    __slots__ = ()

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        yield ChatGenerationChunk(message=AIMessageChunk(content="partial"))
        raise RuntimeError("stream broke")
