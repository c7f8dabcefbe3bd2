"""What a prompt produces: a `PromptValue` that reads as text or as chat messages."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from leanchain.messages import BaseMessage, HumanMessage, get_buffer_string

__all__ = ["ChatPromptValue", "PromptValue", "StringPromptValue"]

_human_message = HumanMessage._of_text  # read once: a pydantic class's attribute read is slow


class PromptValue(ABC):
    """A formatted prompt, ready for a model that takes text or one that takes messages."""

    __slots__ = ()

    @abstractmethod
    def to_string(self) -> str:
        """The prompt as plain text."""

    @abstractmethod
    def to_messages(self) -> list[BaseMessage]:
        """The prompt as a list of chat messages."""


class StringPromptValue(PromptValue):
    """A prompt that is one text (from a `PromptTemplate`)."""

    __slots__ = ("text",)

    type = "StringPromptValue"
    """LangChain's type tag."""

    def __init__(self, text: str) -> None:
        self.text = text
        """The prompt's text."""

    def to_string(self) -> str:
        """The text."""
        return self.text

    def to_messages(self) -> list[BaseMessage]:
        """The text as a single human message."""
        text = self.text
        if type(text) is str:
            return [_human_message(text)]
        return [HumanMessage(content=text)]

    def __eq__(self, other: object) -> bool:
        return type(other) is StringPromptValue and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"StringPromptValue(text={self.text!r})"


class ChatPromptValue(PromptValue):
    """A prompt that is a list of chat messages (from a `ChatPromptTemplate`)."""

    __slots__ = ("messages",)

    type = "ChatPromptValue"
    """LangChain's type tag."""

    def __init__(self, messages: Sequence[BaseMessage]) -> None:
        self.messages: list[BaseMessage] = messages if type(messages) is list else list(messages)
        """The messages, in order."""

    def to_string(self) -> str:
        """The messages as a transcript (``"System: ...\\nHuman: ..."``)."""
        return get_buffer_string(self.messages)

    def to_messages(self) -> list[BaseMessage]:
        """A copy of the message list (the messages themselves are shared)."""
        return list(self.messages)

    def __eq__(self, other: object) -> bool:
        return type(other) is ChatPromptValue and other.messages == self.messages

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ChatPromptValue(messages={self.messages!r})"
