"""The plain message kinds: human, system, chat (any role) and function, with their chunks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, Self

from ._base import (
    MISSING,
    BaseMessage,
    BaseMessageChunk,
    _new,
    _set_dict,
    _set_extra,
    _set_fields_set,
    _set_private,
)
from ._merge import Content

if TYPE_CHECKING:
    from ._block_types import ContentBlock

__all__ = [
    "ChatMessage",
    "ChatMessageChunk",
    "FunctionMessage",
    "FunctionMessageChunk",
    "HumanMessage",
    "HumanMessageChunk",
    "SystemMessage",
    "SystemMessageChunk",
]


_HUMAN_FIELDS: Final = frozenset(
    ("content", "additional_kwargs", "response_metadata", "type", "name", "id")
)
"""A human message's fields, all counted as set by `HumanMessage._of_text`."""


class HumanMessage(BaseMessage):
    """A message from the user: ``HumanMessage("What is 2 + 2?")``."""

    type: Literal["human"] = "human"
    """Always "human"."""

    def __init__(
        self,
        content: Content = MISSING,
        /,
        *,
        content_blocks: Sequence[ContentBlock] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(content, content_blocks=content_blocks, **kwargs)

    @staticmethod
    def _of_text(text: str) -> HumanMessage:
        """``HumanMessage(text)`` as a formatted prompt builds it, for a `str` known to be one.

        Internal API: what `build_message` gives (every field at its default and counted as
        set), with the fields written out rather than read from the class on each call, and
        `BaseMessage._construct` inline (a human message has no private attributes); a text
        prompt becomes one on every model call. Tests hold it to `build_message`.
        """
        fields: dict[str, Any] = {
            "content": text,
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "human",
            "name": None,
            "id": None,
        }
        message = _new(HumanMessage)
        _set_dict(message, fields)
        _set_fields_set(message, set(_HUMAN_FIELDS))  # (from a frozenset: no hashing)
        _set_extra(message, None)
        _set_private(message, None)
        return message


class HumanMessageChunk(HumanMessage, BaseMessageChunk):
    """A piece of a streamed human message."""

    type: Literal["HumanMessageChunk"] = "HumanMessageChunk"  # type: ignore[assignment]
    """Always "HumanMessageChunk"."""

    def __init__(self, content: Content = MISSING, /, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)


class SystemMessage(BaseMessage):
    """Instructions that prime the model's behaviour, usually the first message."""

    type: Literal["system"] = "system"
    """Always "system"."""

    def __init__(
        self,
        content: Content = MISSING,
        /,
        *,
        content_blocks: Sequence[ContentBlock] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(content, content_blocks=content_blocks, **kwargs)


class SystemMessageChunk(SystemMessage, BaseMessageChunk):
    """A piece of a streamed system message."""

    type: Literal["SystemMessageChunk"] = "SystemMessageChunk"  # type: ignore[assignment]
    """Always "SystemMessageChunk"."""

    def __init__(self, content: Content = MISSING, /, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)


class ChatMessage(BaseMessage):
    """A message whose speaker is named by an arbitrary ``role``."""

    type: Literal["chat"] = "chat"
    """Always "chat"."""
    role: str
    """The speaker's role, as the provider names it."""

    def __init__(self, content: Content = MISSING, /, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)


class ChatMessageChunk(ChatMessage, BaseMessageChunk):
    """A piece of a streamed chat message; only pieces with the same role combine."""

    type: Literal["ChatMessageChunk"] = "ChatMessageChunk"  # type: ignore[assignment]
    """Always "ChatMessageChunk"."""

    def __init__(self, content: Content = MISSING, /, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)

    def _merge(self, others: Sequence[BaseMessageChunk]) -> Self:
        for other in others:
            if isinstance(other, ChatMessageChunk) and other.role != self.role:
                raise ValueError("Cannot concatenate ChatMessageChunks with different roles.")
        fields = self._merge_common(others)
        fields["role"] = self.role
        return self._construct(fields)


class FunctionMessage(BaseMessage):
    """The result of a legacy OpenAI function call; ``name`` is the function's name."""

    type: Literal["function"] = "function"
    """Always "function"."""
    name: str
    """The name of the function that produced this result (required)."""

    def __init__(self, content: Content = MISSING, /, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)


class FunctionMessageChunk(FunctionMessage, BaseMessageChunk):
    """A piece of a streamed function message; only pieces with the same name combine."""

    type: Literal["FunctionMessageChunk"] = "FunctionMessageChunk"  # type: ignore[assignment]
    """Always "FunctionMessageChunk"."""

    def __init__(self, content: Content = MISSING, /, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)

    def _merge(self, others: Sequence[BaseMessageChunk]) -> Self:
        for other in others:
            if isinstance(other, FunctionMessageChunk) and other.name != self.name:
                raise ValueError("Cannot concatenate FunctionMessageChunks with different names.")
        return self._construct(self._merge_common(others))
