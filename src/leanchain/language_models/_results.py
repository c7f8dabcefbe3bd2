"""What a chat model's `_generate` and `_stream` return, and what `on_llm_end` receives."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from leanchain.messages import AIMessageChunk, BaseMessage

__all__ = ["ChatGeneration", "ChatGenerationChunk", "ChatResult", "LLMResult"]


@dataclass(frozen=True, slots=True)
class ChatGeneration:
    """One reply of a chat model."""

    message: BaseMessage
    """The reply (an `AIMessage` for every leanchain model)."""
    generation_info: Mapping[str, Any] | None = None
    """Provider details about this reply (finish reason, log-probs, ...)."""

    @property
    def text(self) -> str:
        """The reply's text content."""
        return self.message.text

    @property
    def type(self) -> str:
        """``"ChatGeneration"``, LangChain's tag for this class."""
        return "ChatGeneration"


@dataclass(frozen=True, slots=True)
class ChatGenerationChunk(ChatGeneration):
    """A piece of a streamed reply; pieces add up with ``+``."""

    message: AIMessageChunk
    """The piece of the reply."""

    @property
    def type(self) -> str:
        """``"ChatGenerationChunk"``."""
        return "ChatGenerationChunk"

    def __add__(
        self, other: ChatGenerationChunk | list[ChatGenerationChunk]
    ) -> ChatGenerationChunk:
        """Merge the messages (by the chunk rules) and the generation infos (right wins)."""
        others = other if isinstance(other, list) else [other]
        if not all(isinstance(o, ChatGenerationChunk) for o in others):
            kind = type(other).__name__
            raise TypeError(
                f'unsupported operand type(s) for +: "ChatGenerationChunk" and "{kind}"'
            )
        info: dict[str, Any] | None = None
        for gen in (self, *others):
            if gen.generation_info:
                info = {**(info or {}), **gen.generation_info}
        message = self.message + [o.message for o in others] if others else self.message
        return ChatGenerationChunk(message=message, generation_info=info)


@dataclass(frozen=True, slots=True)
class ChatResult:
    """Everything one `_generate` call produced."""

    generations: list[ChatGeneration]
    """The replies; leanchain models return exactly one."""
    llm_output: Mapping[str, Any] | None = None
    """Provider details about the whole call (token usage, model name, ...)."""


@dataclass(frozen=True, slots=True)
class LLMResult:
    """What ``on_llm_end`` handlers receive: the replies for each prompt of the call."""

    generations: list[list[ChatGeneration]]
    """One list of replies per prompt; a chat model call has one prompt."""
    llm_output: Mapping[str, Any] | None = None
    """Provider details about the whole call."""
    run: list[Any] | None = field(default=None)
    """Run infos (kept for LangChain compatibility; leanchain leaves it ``None``)."""
