"""Where a JSON prefix is cut back to a text that can be completed by closing what is open.

A prefix may end in the middle of something that closing brackets cannot finish: a key
without its value, a trailing comma, half of ``true``, a number's ``1.``, an escape or a
surrogate pair cut in two. :func:`cut_point` finds the longest text before that point, looking
back only a few characters from the end (growing windows, never a copy of the whole text), so
a parse of a growing text costs its new part.
"""

from __future__ import annotations

import json
import re
from typing import Final, Protocol, TypeAlias

from ._decode import DECODERS

__all__ = ["WS", "ScanState", "Stack", "cut_point", "prev_char"]

WS: Final = " \t\n\r"
"""JSON's whitespace."""

# The open containers, innermost first, as a linked list of (closer, opener position, position
# of the last comma directly inside it or -1, outer): pushing, popping and moving the comma
# never copy, so a scan can be resumed and shared.
Stack: TypeAlias = "tuple[str, int, int, Stack] | None"

_FRAGMENT_CHARS: Final = "0123456789+-.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_LITERAL_PREFIXES: Final = frozenset({"t", "tr", "tru", "f", "fa", "fal", "fals", "n", "nu", "nul"})
_OPENERS_AND_SEPARATORS: Final = "[{,:"
_NUMBER_PREFIX: Final = re.compile(
    r"-|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+(?:[eE][+-]?[0-9]*)?|\.|[eE][+-]?[0-9]*)?"
)
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


class ScanState(Protocol):
    """What the cut needs to know of a scan of the text (see ``JsonPrefixScan``)."""

    stack: Stack
    in_string: bool
    string_start: int
    string_end: int


def cut_point(text: str, scan: ScanState, strict: bool) -> tuple[int, str]:
    """``text[:cut] + suffix`` is the text cut back to what can be completed, unclosed."""
    if not scan.in_string:
        return _cut_tail(text, scan, strict), ""
    start = scan.string_start
    end = _string_body_end(text, start + 1, len(text))
    if _is_key(text, start, scan.stack):
        return _drop_key(text, start, text[start:end] + '"', strict), ""
    return end, '"'


def prev_char(text: str, i: int) -> int:
    """Index of the last non-whitespace character before ``i``, or -1."""
    if i > 0 and text[i - 1] not in WS:
        return i - 1
    # Look back through growing windows: copying all of text[:i] to strip a few spaces would
    # make every parse of a growing text cost its whole length.
    size = 64
    while i > 0:
        lo = max(0, i - size)
        kept = len(text[lo:i].rstrip(WS))
        if kept:
            return lo + kept - 1
        i = lo
        size *= 2
    return -1


def _is_key(text: str, start: int, stack: Stack) -> bool:
    """Whether the string starting at ``start`` sits where an object expects a key."""
    if stack is None or stack[0] != "}":
        return False
    p = prev_char(text, start)
    return p >= 0 and text[p] in "{,"


def _drop_key(text: str, start: int, key: str, strict: bool) -> int:
    """Where to cut to drop the key at ``start`` (and its comma); ``len(text)`` if invalid."""
    try:
        DECODERS[strict](key)
    except json.JSONDecodeError:
        return len(text)
    p = prev_char(text, start)
    if text[p] == "{":
        return start
    return _drop_comma(text, p)


def _drop_comma(text: str, comma: int) -> int:
    """Where to cut to drop the comma at ``comma``; ``len(text)`` if no value precedes it."""
    q = prev_char(text, comma)
    if q < 0 or text[q] in _OPENERS_AND_SEPARATORS:
        return len(text)
    return comma


def _run_start(text: str, lo: int, end: int, chars: str) -> int:
    """Where the run of ``chars`` that ends ``text[lo:end]`` starts (``end`` if none)."""
    if end <= lo or text[end - 1] not in chars:
        return end
    # Growing windows, as in `prev_char`: runs are short, the text before them may be long,
    # and stripping all of it would copy it.
    i, size = end, 16
    while i > lo:
        start = max(lo, i - size)
        kept = len(text[start:i].rstrip(chars))
        if kept:
            return start + kept
        i = start
        size *= 2
    return lo


def _backslash_run(text: str, lo: int, end: int) -> int:
    """How many backslashes end ``text[lo:end]``."""
    return end - _run_start(text, lo, end, "\\")


def _string_body_end(text: str, lo: int, end: int) -> int:
    """End of the usable part of an unterminated string body ``text[lo:end]``."""
    if _backslash_run(text, lo, end) % 2:
        return end - 1  # a lone backslash: the escape has not arrived yet
    j = text.rfind("\\", max(lo, end - 5), end)
    if (
        j >= 0
        and text.startswith("u", j + 1)
        and _backslash_run(text, lo, j + 1) % 2
        and all(c in _HEX for c in text[j + 2 : end])
    ):
        end = j  # a \u escape still missing some of its four hex digits
    if (
        end - lo >= 6
        and text[end - 6 : end - 4] == "\\u"
        and _backslash_run(text, lo, end - 5) % 2
        and all(c in _HEX for c in text[end - 4 : end])
        and 0xD800 <= int(text[end - 4 : end], 16) <= 0xDBFF
    ):
        end -= 6  # the first half of a surrogate pair: wait for the second
    return end


def _cut_tail(text: str, scan: ScanState, strict: bool) -> int:
    """Where to cut a text that does not end inside a string."""
    end = prev_char(text, len(text)) + 1
    if end == 0:
        return 0
    char = text[end - 1]
    if char == '"':
        start = scan.string_start
        if scan.string_end == end and _is_key(text, start, scan.stack):
            return _drop_key(text, start, text[start:end], strict)
        return end
    if char == ":":
        return _drop_colon(text, end - 1, scan, strict)
    if char == ",":
        return _drop_comma(text, end - 1) if scan.stack is not None else end
    if char in _FRAGMENT_CHARS and end == len(text):
        # Only a scalar at the very end may still grow; one followed by space must be whole.
        f = _run_start(text, 0, end, _FRAGMENT_CHARS)
        fragment = text[f:end]
        if _NUMBER_PREFIX.fullmatch(fragment):
            number = _NUMBER.match(fragment)
            if number is not None:
                return f + number.end()
            return _drop_value(text, f, scan, strict)
        if fragment in _LITERAL_PREFIXES:
            return _drop_value(text, f, scan, strict)
    return end


def _drop_value(text: str, start: int, scan: ScanState, strict: bool) -> int:
    """Where to cut to drop an unfinished scalar at ``start`` (and its key or comma)."""
    p = prev_char(text, start)
    if p < 0:
        return 0
    char = text[p]
    if char == "[":
        return p + 1
    if char == "," and scan.stack is not None and scan.stack[0] == "]":
        return _drop_comma(text, p)
    if char == ":":
        return _drop_colon(text, p, scan, strict)
    return len(text)


def _drop_colon(text: str, colon: int, scan: ScanState, strict: bool) -> int:
    """Where to cut to drop a key whose value has not started; ``len(text)`` if invalid."""
    q = prev_char(text, colon)
    start = scan.string_start
    if q >= 0 and text[q] == '"' and scan.string_end == q + 1 and _is_key(text, start, scan.stack):
        return _drop_key(text, start, text[start : q + 1], strict)
    return len(text)
