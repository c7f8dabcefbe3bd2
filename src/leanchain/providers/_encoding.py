"""Content JSON cannot carry, found and named when a request fails to encode.

A lone surrogate (text decoded with ``surrogateescape``, a ``\\ud800`` escape in a model's
reply), an int longer than Python converts to text (``sys.get_int_max_str_digits()``, 4,300
digits by default), nesting deeper than the JSON encoder recurses, and NaN or infinity (which
both SDKs refuse, except inside OpenAI's tool-call ``arguments``, which are text) fail deep
inside ``json.dumps`` with an untyped error that says neither where the value is nor what to
do. The request is searched only when that
happens (it costs nothing otherwise), and the error becomes an `UnencodableContentError` that
names the message and the place in it.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Sequence
from typing import Any, Final

from leanchain.errors import LeanchainError, UnencodableContentError
from leanchain.messages import BaseMessage

__all__ = ["unencodable"]

_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_JSON_VALUE_ERRORS: Final = ("Exceeds the limit", "Out of range float values", "surrogates")
_MESSAGE_FIELDS: Final = (
    "content",
    "tool_calls",
    "invalid_tool_calls",
    "additional_kwargs",
    "name",
    "tool_call_id",
)
_ARGUMENT_FIELDS: Final = frozenset({"tool_calls", "invalid_tool_calls"})
_DEEP: Final = 100
"""Nesting at least this deep is named as the cause of a recursion error (no API payload
needs it; a recursion error with nothing this deep is someone else's, and re-raised)."""
_SHOWN_KEYS: Final = 4
"""Path steps shown at each end of a long path."""

Node = tuple[Any, Any] | None
"""A place in the walk: (parent node, key), ``None`` at the root (kept as links, not lists,
so that a 5,000-deep value is not copied at every level)."""


def unencodable(
    exc: BaseException,
    *,
    provider: str,
    owner: str,
    messages: Sequence[BaseMessage],
    params: dict[str, Any] | None,
    args_as_text: bool,
) -> UnencodableContentError | None:
    """The typed error for `exc` if it is a JSON encoding failure of this request, else ``None``.

    Args:
        exc: what building or sending the request raised.
        provider: ``"openai"`` or ``"anthropic"``.
        owner: the model class, named in the message.
        messages: the call's messages, searched first (their positions are the caller's).
        params: the request, searched next (tools, extra_body...), when it was built.
        args_as_text: whether tool-call arguments are sent as JSON text (OpenAI's
            ``arguments``), where NaN and infinity are written out, not refused.
    """
    if isinstance(exc, LeanchainError) or not isinstance(exc, ValueError | RecursionError):
        return None
    if type(exc) is ValueError and not any(text in str(exc) for text in _JSON_VALUE_ERRORS):
        return None
    deep = isinstance(exc, RecursionError)
    found = None
    for position, message in enumerate(messages):
        for field in _MESSAGE_FIELDS:
            value = getattr(message, field, None)
            if value:
                where = f"message {position} ({type(message).__name__}) {field}"
                allow_nan = args_as_text and field in _ARGUMENT_FIELDS
                found = _deeper(found, _search(value, where, allow_nan, deep))
                if found is not None and not found[2]:
                    break
        if found is not None and not found[2]:
            break
    if found is None and params is not None:
        found = _search(params, "the request", False, deep)
    if found is None:
        return None
    return UnencodableContentError(
        f"{owner} cannot send {found[0]}: {found[1]}; nothing was sent", provider=provider
    )


def _deeper(
    first: tuple[str, str, int] | None, second: tuple[str, str, int] | None
) -> tuple[str, str, int] | None:
    """A value that cannot be encoded (depth 0) first, else the deeper nesting."""
    if first is None or second is None:
        return first or second
    if not first[2] or not second[2]:
        return first if not first[2] else second
    return second if second[2] > first[2] else first


def _search(value: Any, where: str, allow_nan: bool, deep: bool) -> tuple[str, str, int] | None:
    """The first value JSON cannot carry in `value`: (where, what, 0); else, when the failure
    was a recursion error, the deepest place: (where, what, depth)."""
    stack: list[tuple[Any, Node, int]] = [(value, None, 0)]
    deepest: tuple[Node, int] = (None, 0)
    while stack:
        item, node, depth = stack.pop()
        problem = _problem(item, allow_nan)
        if problem is not None:
            return where + _path(node), problem, 0
        if isinstance(item, dict):
            children: list[tuple[Any, Any]] = []
            for key, child in item.items():
                if isinstance(key, str) and _SURROGATE.search(key):
                    return where + _path((node, key)), "a dict key with " + _surrogate(key), 0
                children.append((key, child))
        elif isinstance(item, list | tuple):
            children = list(enumerate(item))
        else:
            continue
        if depth + 1 > deepest[1]:
            deepest = (node, depth + 1)
        stack.extend((child, (node, key), depth + 1) for key, child in reversed(children))
    if deep and deepest[1] >= _DEEP:
        node, depth = deepest
        what = (
            f"values nested {depth} levels deep, more than JSON encoding goes (flatten the "
            "structure, or send it as text)"
        )
        return where + _path(node), what, depth
    return None


def _problem(value: Any, allow_nan: bool) -> str | None:
    if isinstance(value, str):
        return _surrogate(value) if _SURROGATE.search(value) else None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        limit = sys.get_int_max_str_digits()
        if limit and value.bit_length() > limit * 3:
            try:
                str(value)
            except ValueError:
                return (
                    f"an int of more than {limit} digits, which Python does not turn into "
                    "text (send it as a string, or raise sys.set_int_max_str_digits)"
                )
        return None
    if isinstance(value, float) and not allow_nan and not math.isfinite(value):
        return f"{value!r}, which the API's JSON cannot carry (send null or a string)"
    return None


def _surrogate(text: str) -> str:
    found = _SURROGATE.search(text)
    assert found is not None
    return (
        f"a lone surrogate {found.group()!r} at index {found.start()}, which UTF-8 cannot "
        "encode (text decoded with errors='surrogateescape'?)"
    )


def _path(node: Node) -> str:
    keys: list[Any] = []
    while node is not None:
        node, key = node
        keys.append(key)
    keys.reverse()
    steps = [f"[{key!r}]" for key in keys]
    if len(steps) > 2 * _SHOWN_KEYS:
        hidden = len(steps) - 2 * _SHOWN_KEYS
        steps = [*steps[:_SHOWN_KEYS], f"...({hidden} more)...", *steps[-_SHOWN_KEYS:]]
    return "".join(steps)
