"""Token counts a provider reports for one model call, and their arithmetic."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any, NotRequired, cast

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

__all__ = [
    "InputTokenDetails",
    "OutputTokenDetails",
    "UsageMetadata",
    "add_usage",
    "subtract_usage",
]

_MAX_DEPTH = 100


@with_config(ConfigDict(extra="allow"))
class InputTokenDetails(TypedDict, total=False):
    """A breakdown of the input tokens; providers may add keys of their own."""

    audio: int
    """Audio input tokens."""
    cache_creation: int
    """Input tokens written to the provider's prompt cache."""
    cache_read: int
    """Input tokens read from the provider's prompt cache."""


@with_config(ConfigDict(extra="allow"))
class OutputTokenDetails(TypedDict, total=False):
    """A breakdown of the output tokens; providers may add keys of their own."""

    audio: int
    """Audio output tokens."""
    reasoning: int
    """Tokens spent on reasoning that is not part of the visible answer."""


@with_config(ConfigDict(extra="allow"))
class UsageMetadata(TypedDict):
    """Token usage of one model call (``AIMessage.usage_metadata``)."""

    input_tokens: int
    """Tokens in the prompt."""
    output_tokens: int
    """Tokens in the reply."""
    total_tokens: int
    """Usually ``input_tokens + output_tokens``."""
    input_token_details: NotRequired[InputTokenDetails]
    """A breakdown of ``input_tokens``."""
    output_token_details: NotRequired[OutputTokenDetails]
    """A breakdown of ``output_tokens``."""


def add_usage(left: UsageMetadata | None, right: UsageMetadata | None) -> UsageMetadata:
    """Add two usage records key by key, recursing into the detail dicts.

    If one side is missing (or empty) the other is returned; if both are, all counts are 0.

    Raises:
        ValueError: a key holds something other than an int or a dict.
    """
    if not (left or right):
        return UsageMetadata(input_tokens=0, output_tokens=0, total_tokens=0)
    if not (left and right):
        return cast(UsageMetadata, left or right)
    return cast(UsageMetadata, _combine(left, right, operator.add, 0))


def subtract_usage(left: UsageMetadata | None, right: UsageMetadata | None) -> UsageMetadata:
    """``left - right`` key by key, never below 0 (a missing side counts as all zeros).

    Raises:
        ValueError: a key holds something other than an int or a dict.
    """
    if not (left or right):
        return UsageMetadata(input_tokens=0, output_tokens=0, total_tokens=0)
    if not right:
        return cast(UsageMetadata, left)
    if not left:
        left = UsageMetadata(input_tokens=0, output_tokens=0, total_tokens=0)
    return cast(UsageMetadata, _combine(left, right, lambda a, b: max(a - b, 0), 0))


def _combine(
    left: Mapping[str, Any],
    right: Mapping[str, Any],
    op: Callable[[int, int], int],
    depth: int,
) -> dict[str, Any]:
    if depth >= _MAX_DEPTH:
        raise ValueError(f"Usage metadata is nested deeper than {_MAX_DEPTH} levels.")
    combined: dict[str, Any] = {}
    for key in (*left, *(k for k in right if k not in left)):
        a = left.get(key, 0)
        b = right.get(key, 0)
        if isinstance(a, int) and isinstance(b, int):
            combined[key] = op(a, b)
        elif isinstance(left.get(key, {}), Mapping) and isinstance(right.get(key, {}), Mapping):
            combined[key] = _combine(left.get(key, {}), right.get(key, {}), op, depth + 1)
        else:
            types = [type(d[key]) for d in (left, right) if key in d]
            raise ValueError(
                f"Unknown value types: {types}. Only dict and int values are supported."
            )
    return combined
