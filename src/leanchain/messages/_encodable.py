"""Values that text or JSON cannot carry: made into text that can be sent, or a typed error.

Three kinds of value break a conversion deep inside the standard library with an untyped
error that says neither where the value is nor what to do: a lone surrogate (text decoded
with ``surrogateescape``, a ``\\ud800`` escape), which UTF-8 cannot encode; an int longer than
Python converts to text (``sys.get_int_max_str_digits()``, 4,300 digits by default); and
nesting deeper than Python recurses (5,000 levels of lists). Conversions that make text for a
model (a tool's observation) use `content_text`, which never fails; conversions that must be
exact (a tool call's arguments as JSON) raise `ContentEncodingError` naming the place.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from leanchain.errors import ContentEncodingError

__all__ = ["content_text", "display_text", "json_text", "readable", "why_unencodable"]


def readable(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (a surrogate pair becomes the
    character it encodes): text that UTF-8, and so every provider, can carry."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def why_unencodable(error: BaseException) -> str | None:
    """What an encoding failure says about the value, in words; ``None`` for other errors."""
    if isinstance(error, RecursionError):
        return "it is nested deeper than Python's recursion limit allows"
    if isinstance(error, ValueError) and "Exceeds the limit" in str(error):
        limit = sys.get_int_max_str_digits()
        return f"it holds an int of more than {limit} digits, which Python will not write out"
    return None


def json_text(value: Any, where: str) -> str:
    """`value` as JSON (non-ASCII kept, lone surrogates replaced).

    Raises:
        ContentEncodingError: `value` holds an int too long to write, or nests too deep
            (`where` names it in the message).
        TypeError: `value` holds something JSON has no form for.
    """
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError) as exc:
        why = why_unencodable(exc)
        if why is None:
            raise
        raise ContentEncodingError(f"{where} cannot be written as JSON: {why}") from None
    return readable(text)


def content_text(value: Any) -> str:
    """`value` as text for a model; never fails on what text cannot carry.

    A string as it is, anything else as JSON (non-ASCII kept), else ``str()``; lone
    surrogates become U+FFFD. A value that neither can write (an int of 5,000 digits, a list
    nested 5,000 deep) becomes a sentence that says so, the observation a model gets.
    """
    if isinstance(value, str):
        return readable(value)
    try:
        return readable(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError) as exc:
        why = why_unencodable(exc)
        if why is None:
            # Not JSON (an object, a set, a circular list): its str(), as before.
            try:
                return readable(str(value))
            except (ValueError, RecursionError) as inner:
                why = why_unencodable(inner)
                if why is None:
                    raise
    return f"A value of type {type(value).__name__!r} cannot be shown as text: {why}."


def display_text(value: Any) -> str:
    """``str(value)``, for display and logs; a value it cannot write (an int of 5,000 digits,
    nesting 5,000 deep) is described instead, so that showing it never fails."""
    try:
        return str(value)
    except (ValueError, RecursionError):
        return content_text(value)
