"""Complete JSON text read with one exception type: the decoders and their error mapping.

:mod:`json` fails in three ways (``JSONDecodeError``, ``RecursionError`` for deep nesting, a
bare ``ValueError`` for an over-long integer); every reader here turns all three into a
:class:`json.JSONDecodeError`, so callers catch one exception.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

__all__ = [
    "DECODERS",
    "MAX_DEPTH",
    "SCAN_LENIENT",
    "TOO_DEEP",
    "loads_piece",
    "parse_complete_json",
    "too_deep",
    "unreadable",
]

MAX_DEPTH: Final = 1000
"""Deepest nesting accepted: deeper text raises ``JSONDecodeError`` rather than recursing."""

TOO_DEEP: Final = f"Nesting deeper than {MAX_DEPTH} levels"
"""The message (``msg``) of the ``JSONDecodeError`` for nesting deeper than `MAX_DEPTH`."""


def _reader(decoder: json.JSONDecoder) -> Callable[[str], Any]:
    """``decoder.decode``, in one step for a text that is exactly one JSON value.

    ``decode`` skips leading whitespace, has the scanner read one value, skips trailing
    whitespace and refuses anything after it, in two Python calls and two regex matches. A
    text that starts with the value and ends with it (a stripped fence's, a tool call's
    arguments) needs only the scanner: what it reads at 0 up to the end is what ``decode``
    returns. Any other text, or one the scanner refuses, is decoded as before (outside the
    ``except``, so its error is ``decode``'s own, with no other chained to it).
    """
    scan: Callable[[str, int], tuple[Any, int]] = decoder.scan_once  # type: ignore[attr-defined]
    decode = decoder.decode

    def read(text: str) -> Any:
        try:
            value, end = scan(text, 0)
        except Exception:  # decode says what is wrong (or reads leading whitespace)
            end = -1
        if end == len(text):
            return value
        return decode(text)

    return read


_LENIENT: Final = json.JSONDecoder(strict=False)

SCAN_LENIENT: Final[Callable[[str, int], tuple[Any, int]]] = _LENIENT.scan_once  # type: ignore[attr-defined]
"""The scanner behind ``DECODERS[False]``: ``(value, end)`` of the JSON value at an index, for a
caller that knows where a value starts and checks what follows it (it raises ``StopIteration``,
``JSONDecodeError``, ``RecursionError`` or ``ValueError`` on text that is not one)."""

# json.loads builds a new decoder per call when given strict=; these are built once.
DECODERS: Final[dict[bool, Callable[[str], Any]]] = {
    False: _reader(_LENIENT),
    True: _reader(json.JSONDecoder()),
}
"""``strict`` -> the decoder's ``decode`` (`_reader`): ``json.loads(text, strict=strict)``
without its per-call set-up."""


def parse_complete_json(s: str, *, strict: bool = False) -> Any:
    """Parse a complete JSON text, and nothing less: the reading of a finished stream.

    ``json.loads(s, strict=strict)``, except that every failure is a
    :class:`json.JSONDecodeError` (nesting beyond :data:`MAX_DEPTH` and over-long integers
    included), so callers catch one exception.

    Raises:
        json.JSONDecodeError: ``s`` is not one complete JSON text.
    """
    try:
        return DECODERS[strict](s)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise too_deep(s) from None
    except ValueError as exc:
        raise unreadable(exc, s) from None


def too_deep(text: str) -> json.JSONDecodeError:
    """The error for `text` nested deeper than the decoder can recurse."""
    return json.JSONDecodeError(TOO_DEEP, text, 0)


def unreadable(exc: ValueError, text: str) -> json.JSONDecodeError:
    """The error for `text` the decoder refused with a bare ``ValueError``."""
    # The decoder raises a bare ValueError for an integer longer than
    # sys.get_int_max_str_digits() (4300 by default): still "not JSON we can read".
    return json.JSONDecodeError(str(exc), text, 0)


def loads_piece(candidate: str, text: str, offset: int, strict: bool) -> Any:
    """``json.loads`` of a repaired piece of ``text``, errors pointing into ``text``.

    Args:
        candidate: the piece, completed (closed) so that it is JSON on its own.
        text: the whole text the piece was taken from.
        offset: where position 0 of `candidate` falls in `text`.
        strict: reject raw control characters inside strings.

    Raises:
        json.JSONDecodeError: the piece is not JSON; ``pos`` is a position in `text`.
    """
    try:
        return DECODERS[strict](candidate)
    except json.JSONDecodeError as exc:
        raise json.JSONDecodeError(exc.msg, text, min(offset + exc.pos, len(text))) from None
    except RecursionError:
        raise too_deep(text) from None
    except ValueError as exc:
        raise unreadable(exc, text) from None
