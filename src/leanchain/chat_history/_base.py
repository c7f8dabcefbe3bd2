"""`BaseChatMessageHistory` and the in-memory history: where a conversation's messages live."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from leanchain.messages import AIMessage, BaseMessage, HumanMessage, get_buffer_string
from leanchain.runnables.concurrency import run_in_executor

__all__ = ["BaseChatMessageHistory", "InMemoryChatMessageHistory"]

_NO_ADD = (
    "add_message is not implemented for this class. Please implement add_message or add_messages."
)


class BaseChatMessageHistory:
    """The messages of one conversation, and how to add to them and clear them (LangChain's).

    A subclass provides ``messages`` (an attribute or a property), ``clear()``, and
    ``add_messages`` (preferred: one write for several messages) or ``add_message``. The
    async methods default to the sync ones in a worker thread; override them for real async
    storage.
    """

    messages: list[BaseMessage]
    """The conversation so far, oldest first."""

    def add_message(self, message: BaseMessage) -> None:
        """Append one message (by default through `add_messages`).

        Raises:
            NotImplementedError: the class implements neither this nor `add_messages`.
        """
        if type(self).add_messages is BaseChatMessageHistory.add_messages:
            raise NotImplementedError(_NO_ADD)
        self.add_messages([message])

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append several messages, in order (by default one `add_message` each)."""
        for message in messages:
            self.add_message(message)

    def add_user_message(self, message: HumanMessage | str) -> None:
        """Append a human message (a str becomes one)."""
        self.add_message(HumanMessage(message) if isinstance(message, str) else message)

    def add_ai_message(self, message: AIMessage | str) -> None:
        """Append an AI message (a str becomes one)."""
        self.add_message(AIMessage(message) if isinstance(message, str) else message)

    def clear(self) -> None:
        """Remove every message."""
        raise NotImplementedError(f"{type(self).__name__} must implement clear()")

    async def aget_messages(self) -> list[BaseMessage]:
        """Async ``messages``."""
        return await run_in_executor(lambda: list(self.messages))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Async `add_messages`."""
        await run_in_executor(self.add_messages, messages)

    async def aclear(self) -> None:
        """Async `clear`."""
        await run_in_executor(self.clear)

    def __str__(self) -> str:
        return get_buffer_string(self.messages)


class InMemoryChatMessageHistory(BaseChatMessageHistory):
    """A history kept in a list, for one process (tests, demos, short-lived sessions).

    Safe to share between threads: additions and reads take a lock. Its async methods run
    inline, since nothing here blocks.
    """

    def __init__(self, messages: Sequence[BaseMessage] | None = None) -> None:
        self._lock = threading.Lock()
        self._messages: list[BaseMessage] = list(messages or ())

    @property
    def messages(self) -> list[BaseMessage]:
        """A copy of the conversation so far."""
        with self._lock:
            return list(self._messages)

    @messages.setter
    def messages(self, value: Sequence[BaseMessage]) -> None:
        with self._lock:
            self._messages = list(value)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append `messages`, in order."""
        with self._lock:
            self._messages.extend(messages)

    def add_message(self, message: BaseMessage) -> None:
        """Append `message`."""
        self.add_messages([message])

    def clear(self) -> None:
        """Forget every message."""
        with self._lock:
            self._messages = []

    async def aget_messages(self) -> list[BaseMessage]:
        """``messages``, inline."""
        return self.messages

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """`add_messages`, inline."""
        self.add_messages(messages)

    async def aclear(self) -> None:
        """`clear`, inline."""
        self.clear()

    def __repr__(self) -> str:
        return f"InMemoryChatMessageHistory(messages={self.messages!r})"

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, InMemoryChatMessageHistory):
            return NotImplemented
        return self.messages == other.messages

    __hash__ = None  # type: ignore[assignment]
