"""Messages built from a formatted prompt: the content is known to be valid, so pydantic
validation would only repeat what is known (the hot path of every prompt)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from leanchain.messages import BaseMessage, HumanMessage

__all__ = ["build_message", "message_builder"]

_M = TypeVar("_M", bound=BaseMessage)

_Defaults = tuple[dict[str, Any], tuple[tuple[str, Any], ...], Callable[[dict[str, Any]], Any]]

_DEFAULTS: dict[type[BaseMessage], _Defaults] = {}


def _defaults(cls: type[BaseMessage]) -> _Defaults:
    """Every field of `cls` at its default, in field order, the fields built by factories,
    and the class's ``_construct`` (read once: a pydantic class's attribute read is slow)."""
    found = _DEFAULTS.get(cls)
    if found is None:
        base = {name: info.default for name, info in cls.model_fields.items()}
        factories = tuple(
            (name, info.default_factory)
            for name, info in cls.model_fields.items()
            if info.default_factory is not None
        )
        found = _DEFAULTS[cls] = (base, factories, cls._construct)
    return found


def build_message(cls: type[_M], content: str | list[Any]) -> _M:
    """A message with this content and every other field at its default.

    The content was produced by formatting a validated template, so pydantic validation
    would only repeat what is known; this is the hot path of every chat prompt.
    """
    base, factories, construct = _DEFAULTS.get(cls) or _defaults(cls)  # (a frame less once known)
    fields = base.copy()
    fields["content"] = content
    for name, factory in factories:
        fields[name] = factory()
    return construct(fields)  # type: ignore[no-any-return]


_TEXT_BUILDERS: dict[type[BaseMessage], Callable[[str], BaseMessage]] = {
    HumanMessage: HumanMessage._of_text
}
"""Message classes with a constructor of their own for a text (`HumanMessage._of_text`)."""


def message_builder(cls: type[_M]) -> Callable[[str], _M]:
    """``build_message(cls, text)`` as one callable for a text, chosen once (a prompt that
    formats again keeps it): the class's own text constructor where it has one."""
    own = _TEXT_BUILDERS.get(cls)
    if own is not None:
        return own  # type: ignore[return-value]
    return partial(build_message, cls)
