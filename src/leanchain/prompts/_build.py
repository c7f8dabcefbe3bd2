"""Messages built from a formatted prompt: the content is known to be valid, so pydantic
validation would only repeat what is known (the hot path of every prompt)."""

from __future__ import annotations

from typing import Any, TypeVar

from leanchain.messages import BaseMessage

__all__ = ["build_message"]

_M = TypeVar("_M", bound=BaseMessage)

_DEFAULTS: dict[type[BaseMessage], tuple[dict[str, Any], tuple[tuple[str, Any], ...]]] = {}


def _defaults(cls: type[BaseMessage]) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...]]:
    """Every field of `cls` at its default, in field order, and the fields built by factories."""
    found = _DEFAULTS.get(cls)
    if found is None:
        base = {name: info.default for name, info in cls.model_fields.items()}
        factories = tuple(
            (name, info.default_factory)
            for name, info in cls.model_fields.items()
            if info.default_factory is not None
        )
        found = _DEFAULTS[cls] = (base, factories)
    return found


def build_message(cls: type[_M], content: str | list[Any]) -> _M:
    """A message with this content and every other field at its default.

    The content was produced by formatting a validated template, so pydantic validation
    would only repeat what is known; this is the hot path of every chat prompt.
    """
    base, factories = _DEFAULTS.get(cls) or _defaults(cls)  # (a frame less once known)
    fields = base.copy()
    fields["content"] = content
    for name, factory in factories:
        fields[name] = factory()
    return cls._construct(fields)
