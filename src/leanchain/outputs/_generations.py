"""What a model call produced: generations (text, or a chat reply) and the results holding them.

LangChain's ``langchain_core.outputs``. A chat model's `_generate` returns a `ChatResult`, its
`_stream` yields `ChatGenerationChunk`s, ``on_llm_end`` handlers receive an `LLMResult`, and an
output parser's ``parse_result`` receives a list of generations: a `ChatGeneration` for a
message, a `Generation` for text (chunks of either while a stream is parsed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from leanchain.messages import AIMessageChunk, BaseMessage

__all__ = [
    "ChatGeneration",
    "ChatGenerationChunk",
    "ChatResult",
    "Generation",
    "GenerationChunk",
    "LLMResult",
]


def _merge_info(
    generations: tuple[Generation, ...],
) -> Mapping[str, Any] | None:
    """The generation infos of pieces joined left to right (a later key wins)."""
    info: dict[str, Any] | None = None
    for generation in generations:
        if generation.generation_info:
            info = {**(info or {}), **generation.generation_info}
    return info


def _unsupported(left: str, other: Any) -> TypeError:
    return TypeError(f'unsupported operand type(s) for +: "{left}" and "{type(other).__name__}"')


@dataclass(frozen=True, slots=True)
class Generation:
    """One text output of a model (what a parser gets for a string input)."""

    text: str
    """The text."""
    generation_info: Mapping[str, Any] | None = None
    """Provider details about this output (finish reason, log-probs, ...)."""

    @property
    def type(self) -> str:
        """``"Generation"``, LangChain's tag for this class."""
        return "Generation"


@dataclass(frozen=True, slots=True)
class GenerationChunk(Generation):
    """A piece of a streamed text output; pieces add up with ``+``."""

    @property
    def type(self) -> str:
        """``"GenerationChunk"``."""
        return "GenerationChunk"

    def __add__(self, other: GenerationChunk | list[GenerationChunk]) -> GenerationChunk:
        """Concatenate the texts and merge the generation infos (right wins)."""
        others = other if isinstance(other, list) else [other]
        if not all(isinstance(o, GenerationChunk) for o in others):
            raise _unsupported("GenerationChunk", other)
        text = self.text + "".join(o.text for o in others)
        return GenerationChunk(text=text, generation_info=_merge_info((self, *others)))


@dataclass(frozen=True, slots=True, init=False)
class ChatGeneration(Generation):
    """One reply of a chat model: its message, and the message's text as ``text``."""

    # kw_only: a field without a default after the inherited ones (the __init__ is our own).
    message: BaseMessage = field(kw_only=True)
    """The reply (an `AIMessage` for every leanchain model)."""

    def __init__(
        self, message: BaseMessage, generation_info: Mapping[str, Any] | None = None
    ) -> None:
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "text", message.text)
        object.__setattr__(self, "generation_info", generation_info)

    @property
    def type(self) -> str:
        """``"ChatGeneration"``, LangChain's tag for this class."""
        return "ChatGeneration"


@dataclass(frozen=True, slots=True, init=False)
class ChatGenerationChunk(ChatGeneration):
    """A piece of a streamed reply; pieces add up with ``+``."""

    message: AIMessageChunk = field(kw_only=True)
    """The piece of the reply."""

    def __init__(
        self, message: AIMessageChunk, generation_info: Mapping[str, Any] | None = None
    ) -> None:
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "text", message.text)
        object.__setattr__(self, "generation_info", generation_info)

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
            raise _unsupported("ChatGenerationChunk", other)
        message = self.message + [o.message for o in others] if others else self.message
        return ChatGenerationChunk(message=message, generation_info=_merge_info((self, *others)))


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
