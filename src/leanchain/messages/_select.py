"""Picking messages by kind, name or id: the rules `filter_messages` and `trim_messages` share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias

from ._base import BaseMessage, BaseMessageChunk

__all__ = ["MessageTypes", "message_kind", "string_set", "type_matcher"]

MessageTypes: TypeAlias = str | type[BaseMessage] | Sequence[str | type[BaseMessage]]
"""Message kinds, by type tag (``"human"``, ``"ai"``, ``"system"``, ``"tool"``, ...) or class."""

# A chunk class -> the type tag of the message it streams ("HumanMessageChunk" -> "human").
_KINDS: dict[type[BaseMessage], str] = {}


def message_kind(message: BaseMessage) -> str:
    """The type tag of a message, or of the message a chunk is a piece of."""
    cls = type(message)
    kind = _KINDS.get(cls)
    if kind is None:
        kind = message.type
        if isinstance(message, BaseMessageChunk):
            for base in cls.__mro__:
                if issubclass(base, BaseMessage) and not issubclass(base, BaseMessageChunk):
                    kind = base.model_fields["type"].default
                    break
        _KINDS[cls] = kind
    return kind


def type_matcher(types: MessageTypes | None, argument: str) -> Callable[[BaseMessage], bool] | None:
    """A test for "is this message of one of `types`", or ``None`` when `types` is empty.

    A string names a kind by its type tag and matches the kind's chunks too ("human" matches
    ``HumanMessageChunk``); a class matches its instances, subclasses included.

    Raises:
        ValueError: an entry that is neither a string nor a message class.
    """
    if not types:
        return None
    entries: Iterable[Any] = (types,) if isinstance(types, (str, type)) else types
    tags: set[str] = set()
    classes: list[type[BaseMessage]] = []
    for entry in entries:
        if isinstance(entry, str):
            tags.add(entry)
        elif isinstance(entry, type) and issubclass(entry, BaseMessage):
            classes.append(entry)
        else:
            raise ValueError(
                f"{argument} takes message type names (such as 'human') or message classes,"
                f" got {entry!r}"
            )
    kinds = tuple(classes)

    def matches(message: BaseMessage) -> bool:
        return message.type in tags or message_kind(message) in tags or isinstance(message, kinds)

    return matches


def string_set(values: str | Iterable[Any] | None) -> frozenset[Any] | None:
    """Names or ids as a set; one string is one value (not its characters); empty is ``None``."""
    if not values:
        return None
    if isinstance(values, str):
        return frozenset((values,))
    return frozenset(values)
