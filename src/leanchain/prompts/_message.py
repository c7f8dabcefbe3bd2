"""Templates for one chat message each, and `MessagesPlaceholder` for a list of messages.

These are the building blocks of `ChatPromptTemplate`; they are plain objects, not runnables.
Each one appends its messages to a list (`_format_into`) so that a chat prompt formats in one
pass without intermediate lists.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Self

from leanchain import messages
from leanchain.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    convert_to_messages,
)
from leanchain.prompts._blocks import BlocksTemplate
from leanchain.prompts._build import build_message
from leanchain.prompts._string import PromptTemplate
from leanchain.prompts._template import (
    compile_template,
    missing_variables_error,
    validate_variable_name,
)

if TYPE_CHECKING:
    from leanchain.prompts._chat import ChatPromptTemplate

__all__ = [
    "AIMessagePromptTemplate",
    "BaseMessagePromptTemplate",
    "BaseStringMessagePromptTemplate",
    "ChatMessagePromptTemplate",
    "HumanMessagePromptTemplate",
    "MessagesPlaceholder",
    "SystemMessagePromptTemplate",
]


@cache
def _plain_message_classes() -> frozenset[type[BaseMessage]]:
    """leanchain's own message classes: checked by type, before the slower ``isinstance`` on
    pydantic's ABC metaclass (a scratchpad of tool messages is checked on every step)."""
    names = [name for name in messages.__all__ if name.endswith(("Message", "MessageChunk"))]
    return frozenset(getattr(messages, name) for name in names)


class BaseMessagePromptTemplate(ABC):
    """A template that formats to a list of chat messages."""

    __slots__ = ()

    @property
    @abstractmethod
    def input_variables(self) -> list[str]:
        """The variables this template needs, sorted."""

    @abstractmethod
    def _format_into(self, values: Mapping[str, Any], out: list[BaseMessage]) -> None:
        """Append the messages for `values` to `out`."""

    def format_messages(self, /, **kwargs: Any) -> list[BaseMessage]:
        """The messages for these variables."""
        out: list[BaseMessage] = []
        self._format_into(kwargs, out)
        return out

    async def aformat_messages(self, /, **kwargs: Any) -> list[BaseMessage]:
        """Async `format_messages` (formatting never blocks, so it runs inline)."""
        return self.format_messages(**kwargs)

    def __add__(self, other: Any) -> ChatPromptTemplate:
        """A chat prompt of this template followed by `other` (anything ``+`` on a chat prompt
        takes)."""
        from leanchain.prompts._chat import ChatPromptTemplate

        combined: ChatPromptTemplate = ChatPromptTemplate([self]) + other
        return combined


class MessagesPlaceholder(BaseMessagePromptTemplate):
    """A slot for a list of messages supplied at format time (a chat history, a scratchpad).

    The value must be a list of message-likes (messages, ``(role, text)`` tuples, strings,
    dicts), converted with `convert_to_messages`.

    Args:
        variable_name: the variable that holds the list.
        optional: whether the variable may be left out (then it is ``[]``).
        n_messages: keep only the last `n_messages` messages.
    """

    __slots__ = ("n_messages", "optional", "variable_name")

    def __init__(
        self, variable_name: str, *, optional: bool = False, n_messages: int | None = None
    ) -> None:
        validate_variable_name(variable_name)
        self.variable_name = variable_name
        """The variable that holds the list of messages."""
        self.optional = optional
        """Whether the variable may be left out (it is then an empty list)."""
        self.n_messages = n_messages
        """Keep only this many of the last messages (``None`` or 0: keep all)."""

    @property
    def input_variables(self) -> list[str]:
        """``[variable_name]``, or ``[]`` when optional."""
        return [] if self.optional else [self.variable_name]

    def _format_into(self, values: Mapping[str, Any], out: list[BaseMessage]) -> None:
        name = self.variable_name
        try:
            value = values[name]
        except KeyError:
            if not self.optional:
                raise missing_variables_error(
                    "MessagesPlaceholder", [name], [name], values
                ) from None
            return
        self._extend(value, out)

    def _extend(self, value: Any, out: list[BaseMessage]) -> None:
        """Append the messages of `value` (this placeholder's variable) to `out`."""
        if not isinstance(value, list):
            raise ValueError(
                f"variable {self.variable_name} should be a list of base messages, "
                f"got {value} of type {type(value)}"
            )
        if self.n_messages:
            value = value[-self.n_messages :]
        plain = _plain_message_classes()
        if not all(map(plain.__contains__, map(type, value))):
            for item in value:
                if type(item) not in plain and not isinstance(item, BaseMessage):
                    out.extend(convert_to_messages(value))
                    return
        out.extend(value)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, MessagesPlaceholder)
            and other.variable_name == self.variable_name
            and other.optional == self.optional
            and other.n_messages == self.n_messages
        )

    def __hash__(self) -> int:
        return hash((self.variable_name, self.optional, self.n_messages))

    def __repr__(self) -> str:
        extra = ", optional=True" if self.optional else ""
        if self.n_messages is not None:
            extra += f", n_messages={self.n_messages}"
        return f"MessagesPlaceholder(variable_name={self.variable_name!r}{extra})"


class BaseStringMessagePromptTemplate(BaseMessagePromptTemplate):
    """A template for one message whose content is a template (text or content blocks)."""

    __slots__ = ("additional_kwargs", "prompt")

    def __init__(
        self,
        prompt: PromptTemplate | BlocksTemplate,
        *,
        additional_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        self.prompt = prompt
        """The content's template: a `PromptTemplate`, or a template of content blocks."""
        self.additional_kwargs = dict(additional_kwargs or {})
        """Copied into every formatted message's ``additional_kwargs``."""

    @classmethod
    def from_template(
        cls,
        template: str | Sequence[str | Mapping[str, Any]],
        *,
        template_format: str = "f-string",
        partial_variables: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Self:
        """A message template from a text template or a list of content-block templates."""
        prompt: PromptTemplate | BlocksTemplate
        if isinstance(template, str):
            prompt = PromptTemplate(
                template, template_format=template_format, partial_variables=partial_variables
            )
        else:
            prompt = BlocksTemplate(template, template_format=template_format)
        return cls(prompt, **kwargs)

    @classmethod
    def from_template_file(
        cls,
        template_file: str | os.PathLike[str],
        input_variables: Sequence[str] | None = None,
        *,
        encoding: str | None = None,
        **kwargs: Any,
    ) -> Self:
        """A message template from a text file (the same template rules as `from_template`).

        `input_variables` is accepted for LangChain compatibility; the template decides.
        """
        text = Path(template_file).read_text(encoding=encoding)
        return cls.from_template(text, **kwargs)

    @property
    def input_variables(self) -> list[str]:
        """The variables of the content template, sorted."""
        return self.prompt.input_variables

    def _content(self, values: Mapping[str, Any]) -> str | list[Any]:
        prompt = self.prompt
        if isinstance(prompt, PromptTemplate):
            return prompt._text(values)
        return prompt.format_blocks(values)

    _kind: ClassVar[type[BaseMessage] | None] = None
    """The class of the message formatted; ``None`` where `_message` is overridden."""

    def _message(self, content: str | list[Any]) -> BaseMessage:
        """The message with this content."""
        kind = self._kind
        if kind is None:
            raise NotImplementedError(f"{type(self).__name__} does not implement _message")
        if self.additional_kwargs:
            return kind(content=content, additional_kwargs=self.additional_kwargs)
        return build_message(kind, content)

    def _format_into(self, values: Mapping[str, Any], out: list[BaseMessage]) -> None:
        prompt, kind = self.prompt, self._kind
        if (
            kind
            and type(prompt) is PromptTemplate
            and not prompt._partials
            and not self.additional_kwargs
        ):
            # A plain text template (the hot path of every chat prompt): what `_content` and
            # `_message` do, in one step.
            out.append(build_message(kind, compile_template(prompt.template).format(values)))
            return
        out.append(self._message(self._content(values)))

    def format(self, /, **kwargs: Any) -> BaseMessage:
        """The message for these variables."""
        return self._message(self._content(kwargs))

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and isinstance(other, BaseStringMessagePromptTemplate)
            and other.prompt == self.prompt
            and other.additional_kwargs == self.additional_kwargs
        )

    def __hash__(self) -> int:
        return hash((type(self), tuple(self.prompt.input_variables)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(prompt={self.prompt!r})"


class HumanMessagePromptTemplate(BaseStringMessagePromptTemplate):
    """A template for a `HumanMessage`."""

    __slots__ = ()

    _kind = HumanMessage


class AIMessagePromptTemplate(BaseStringMessagePromptTemplate):
    """A template for an `AIMessage`."""

    __slots__ = ()

    _kind = AIMessage


class SystemMessagePromptTemplate(BaseStringMessagePromptTemplate):
    """A template for a `SystemMessage`."""

    __slots__ = ()

    _kind = SystemMessage


class ChatMessagePromptTemplate(BaseStringMessagePromptTemplate):
    """A template for a `ChatMessage` with an arbitrary role."""

    __slots__ = ("role",)

    def __init__(
        self,
        prompt: PromptTemplate | BlocksTemplate,
        *,
        role: str,
        additional_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(prompt, additional_kwargs=additional_kwargs)
        self.role = role
        """The speaker's role."""

    def _message(self, content: str | list[Any]) -> BaseMessage:
        return ChatMessage(
            content=content, role=self.role, additional_kwargs=self.additional_kwargs
        )
