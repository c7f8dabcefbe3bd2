"""The base message and message-chunk types every concrete message builds on.

Messages are immutable values (``frozen`` pydantic models): a field cannot be reassigned
(``msg.content = "x"`` raises ``ValidationError``); use ``msg.model_copy(update={...})`` to get
a changed copy. LangChain lets users set attributes; leanchain does not, so that a message
shared between a prompt, a history and a trace cannot change under any of them. The dicts and
lists inside a message are not deep-frozen: treat them as read-only too.

Construction from user code validates (pydantic); the internal hot paths (chunk ``+``, chunk to
message) build instances without re-validating data that is already valid.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, Self

from pydantic import BaseModel, ConfigDict, Field

from ._merge import Content, merge_content, merge_dicts

if TYPE_CHECKING:
    from ._block_types import ContentBlock

__all__ = ["BaseMessage", "BaseMessageChunk", "get_msg_title_repr"]

MISSING: Final[Any] = object()
"""Marks "content not given positionally" in the message constructors."""

_set = object.__setattr__
# The four slots every pydantic model instance has, set through their descriptors: the same
# as ``object.__setattr__`` without its lookup through the class's MRO (the message fast path).
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_new = object.__new__
_PRIVATE_NAMES: dict[type[BaseModel], tuple[str, ...]] = {}
"""Each message class's private attribute names, as `BaseMessage._construct` first read them.

Read once per class: an attribute read on a pydantic model class goes through its
metaclass's ``__getattr__`` hook, which costs about as much as the rest of `_construct`.
"""


def get_msg_title_repr(title: str, *, bold: bool = False) -> str:
    """The 80-column ``==== Title ====`` banner that ``pretty_repr`` puts above a message."""
    padded = f" {title} "
    sep = "=" * ((80 - len(padded)) // 2)
    second = sep + "=" if len(padded) % 2 else sep
    if bold:
        padded = f"\033[1m{padded}\033[0m"
    return f"{sep}{padded}{second}"


def content_kwargs(content: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Fold a positionally given ``content`` into the constructor's keyword arguments.

    ``content_blocks=[...]`` (standard blocks, LangChain 1.x) is the content when given, as in
    LangChain, which lets it win over ``content``.
    """
    if content is not MISSING:
        if "content" in kwargs:
            raise TypeError("got multiple values for argument 'content'")
        kwargs["content"] = content
    if "content_blocks" in kwargs:
        blocks = kwargs.pop("content_blocks")
        if blocks is not None:
            kwargs["content"] = _block_list(blocks)
    return kwargs


def _block_list(blocks: Any) -> Any:
    """``content_blocks`` as the list ``content`` holds (a list of dicts; strings refused)."""
    if isinstance(blocks, (str, bytes)) or not isinstance(blocks, Iterable):
        raise TypeError(
            f"content_blocks must be a list of content blocks (dicts), got {type(blocks).__name__}"
        )
    return [dict(block) if isinstance(block, Mapping) else block for block in blocks]


class BaseMessage(BaseModel):
    """A message in a conversation with a chat model; the base of every message type."""

    # defer_build: a class's validator is built when it first validates, not at import; most
    # programs use a few of the fourteen message classes (and the _construct paths none).
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    content: Content
    """The text of the message, or a list of strings and content blocks (dicts with a type)."""
    additional_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Provider-specific payload that has no field of its own (raw tool calls, say)."""
    response_metadata: dict[str, Any] = Field(default_factory=dict)
    """What the provider said about the response: model name, finish reason, headers."""
    type: str
    """The message kind's tag ("human", "ai", ...); ``messages_from_dict`` dispatches on it."""
    name: str | None = None
    """An optional name for the speaker."""
    id: str | None = Field(default=None, coerce_numbers_to_str=True)
    """An optional unique id, usually the provider's."""

    def __init__(
        self,
        content: Content = MISSING,
        /,
        *,
        content_blocks: Sequence[ContentBlock] | None = None,
        **kwargs: Any,
    ) -> None:
        if content_blocks is not None:
            kwargs["content_blocks"] = content_blocks
        super().__init__(**content_kwargs(content, kwargs))

    @classmethod
    def _construct(cls, fields: dict[str, Any], private: dict[str, Any] | None = None) -> Self:
        """An instance from already valid field values, without validation (internal API).

        The fast path for messages leanchain builds from data it produced or checked itself,
        where pydantic validation would only repeat what is known: chunk ``+``,
        ``message_chunk_to_message``, formatted chat prompts, the tool-calling agents'
        scratchpad, providers' streamed text chunks. User-facing construction validates.

        The contract, which nothing checks at run time:

        - ``fields`` holds every field of ``cls``, in ``cls.model_fields`` order (the order
          of ``model_dump`` and of the repr), and nothing else.
        - Each value is what validation would have produced from it: the right type
          (``content`` a str or list of str/dict, ``id`` a str or ``None``), ``type`` the
          class's own tag, tool calls as the factories build them (``"type"`` key included),
          a ``ToolMessage``'s content already text or a list. No validator runs, so nothing is
          normalised or derived: an ``AIMessageChunk`` needs its ``tool_calls`` and
          ``invalid_tool_calls`` given as its ``tool_call_chunks`` imply.
        - ``fields`` and the lists and dicts in it become the message's own, not copied:
          the caller hands them over and must not change them afterwards.
        - ``private`` gives the private attributes; ``None`` leaves each at ``None``.

        Kept, the result equals the validated ``cls(**fields)`` (``==``, ``model_dump``,
        repr); every field counts as set (``model_fields_set``). ``tests/messages/
        test_construct.py`` checks this for every message class.
        """
        message = _new(cls)
        _set_dict(message, fields)
        _set_fields_set(message, set(fields))
        _set_extra(message, None)
        if private is None:
            names = _PRIVATE_NAMES.get(cls)
            if names is None:
                names = _PRIVATE_NAMES[cls] = tuple(cls.__private_attributes__)
            if names:
                private = dict.fromkeys(names)
        _set_private(message, private)
        return message

    def __eq__(self, other: object) -> bool:
        # Value equality over the fields only: private caches must not make equal messages
        # unequal (pydantic's default compares them too).
        if not isinstance(other, BaseModel):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def __repr_args__(self) -> Iterable[tuple[str | None, Any]]:
        # Show content always, other fields only when they differ from their empty default.
        fields = type(self).model_fields
        for key, value in self.__dict__.items():
            if key == "type":
                continue
            if key != "content":
                if value is None or (isinstance(value, (str, list, dict)) and not value):
                    continue
                default = fields[key].default if key in fields else None
                if isinstance(default, str) and value == default:
                    continue
            yield key, value

    @property
    def text(self) -> str:
        """The message's text: the content string, or its strings and text blocks joined."""
        content = self.content
        if isinstance(content, str):
            return content
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "".join(parts)

    @property
    def content_blocks(self) -> list[ContentBlock]:
        """The content as LangChain 1.x standard blocks (text, reasoning, tool calls, images...).

        Computed from ``content`` on each read: provider-shaped blocks (OpenAI's
        ``image_url``, Anthropic's ``thinking``...) become their standard form, and a model's
        reply adds its tool calls. The rules: docs/messages.md, "Standard content blocks".
        """
        from ._blocks import message_content_blocks

        return message_content_blocks(self)

    def pretty_repr(self, html: bool = False) -> str:
        """A human-readable rendering: a title banner, the name if any, then the content.

        Args:
            html: print the title in bold (ANSI escape codes).
        """
        title = get_msg_title_repr(self.type.title() + " Message", bold=html)
        if self.name is not None:
            title += f"\nName: {self.name}"
        return f"{title}\n\n{self.content}"

    def pretty_print(self) -> None:
        """Print :meth:`pretty_repr`."""
        print(self.pretty_repr(html=True))


class BaseMessageChunk(BaseMessage):
    """A piece of a streamed message; pieces combine with ``+``.

    ``left + right`` (or ``left + [right, ...]``) returns the left operand's class: content
    concatenates (:func:`merge_content`), ``additional_kwargs`` and ``response_metadata``
    merge (:func:`merge_dicts`), the left id is kept, and the first name given is kept.
    """

    _adds_at_once: ClassVar[bool] = True
    """``chunk + [more, ...]`` merges them all in one step, as adding one at a time would
    (what a fold of a stream uses: `leanchain.runnables`' ``adds_at_once``)."""

    def __init__(self, content: Content = MISSING, /, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)

    def __add__(self, other: BaseMessageChunk | Sequence[BaseMessageChunk]) -> Self:
        if isinstance(other, BaseMessageChunk):
            return self._merge((other,))
        if isinstance(other, (list, tuple)) and all(isinstance(o, BaseMessageChunk) for o in other):
            return self._merge(other) if other else self
        raise TypeError(
            'unsupported operand type(s) for +: "'
            f'{type(self).__name__}" and "{type(other).__name__}"'
        )

    def _merge(self, others: Sequence[BaseMessageChunk]) -> Self:
        """This chunk followed by ``others``; subclasses with more fields extend it."""
        return self._construct(self._merge_common(others))

    def _merge_common(self, others: Sequence[BaseMessageChunk]) -> dict[str, Any]:
        """The merged values of the fields every message has, in field order."""
        name = self.name
        if name is None:
            name = next((o.name for o in others if o.name is not None), None)
        return {
            "content": merge_content(self.content, *(o.content for o in others)),
            "additional_kwargs": _merge_metadata(
                self.additional_kwargs, [o.additional_kwargs for o in others]
            ),
            "response_metadata": _merge_metadata(
                self.response_metadata, [o.response_metadata for o in others]
            ),
            "type": self.type,
            "name": name,
            "id": self.id,
        }


def _merge_metadata(left: dict[str, Any], others: list[dict[str, Any]]) -> dict[str, Any]:
    present = [o for o in others if o]
    return merge_dicts(left, *present) if present else left.copy()
