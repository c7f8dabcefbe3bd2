"""Read JSON that may be cut off anywhere: the value a stream of JSON text holds so far.

``parse_partial_json`` closes whatever the text left open (strings, arrays, objects) and drops
what cannot be completed yet (a key without its value, a trailing comma, a half-written
``true``), with no backtracking: the text is scanned once for its brackets, commas and
strings, and the elements of each open container are decoded by :mod:`json`'s C decoder.
A :class:`JsonPrefixScan` kept between calls makes a growing text cost only its new part.

Semantics (LangChain's ``parse_partial_json`` where it is sound, stricter where it is not):

- A complete JSON text gives exactly what ``json.loads(text, strict=False)`` gives.
- A prefix of a JSON text gives the value it holds so far: ``'{"a": 1, "b": "unfin'`` gives
  ``{"a": 1, "b": "unfin"}``, ``'[1, 2.'`` gives ``[1, 2]``, ``'{"a": tr'`` gives ``{}``.
  Numbers are kept as far as they are valid (``12`` may still become ``123``); a string cut
  inside an escape keeps its text before the escape, and a string cut right after the first
  half of a surrogate pair drops that half until the second arrives.
- Anything else raises :class:`json.JSONDecodeError` (a :class:`ValueError`): text that no
  continuation can make valid (``'[1 2'``, ``'{"a",'``, ``'[}'``), and text that holds no value
  yet (``''``, whitespace, a lone ``-`` or ``t``). leanchain never answers ``None`` for "not
  JSON" (LangChain does, for mismatched brackets), and never raises anything else, nesting
  beyond :data:`MAX_DEPTH` levels included.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final, TypeAlias

__all__ = [
    "JSON_STARTS",
    "MARKDOWN_STRIP",
    "MAX_DEPTH",
    "TOO_DEEP",
    "JsonPrefixScan",
    "parse_complete_json",
    "parse_json_markdown",
    "parse_partial_json",
]

MAX_DEPTH: Final = 1000
"""Deepest nesting accepted: deeper text raises ``JSONDecodeError`` rather than recursing."""

TOO_DEEP: Final = f"Nesting deeper than {MAX_DEPTH} levels"
"""The message (``msg``) of the ``JSONDecodeError`` for nesting deeper than `MAX_DEPTH`."""

_WS: Final = " \t\n\r"
_FRAGMENT_CHARS: Final = "0123456789+-.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_LITERAL_PREFIXES: Final = frozenset({"t", "tr", "tru", "f", "fa", "fal", "fals", "n", "nu", "nul"})
_OPENERS_AND_SEPARATORS: Final = "[{,:"
_NEXT_TOKEN: Final = re.compile(r'["\[\]{}]')
_STRING_BODY: Final = re.compile(r'[^"\\]*(?:\\[\s\S][^"\\]*)*')
_NUMBER_PREFIX: Final = re.compile(
    r"-|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+(?:[eE][+-]?[0-9]*)?|\.|[eE][+-]?[0-9]*)?"
)
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
MARKDOWN_STRIP: Final = " \n\r\t`"
"""What `parse_json_markdown` strips from both ends of a reply and of a fenced block."""
JSON_STARTS: Final = frozenset('{["-0123456789tfnNI')
"""The characters a JSON text can begin with (:mod:`json` also reads NaN and Infinity)."""
# json.loads builds a new decoder per call when given strict=; these are built once.
_DECODERS: Final[dict[bool, Callable[[str], Any]]] = {
    False: json.JSONDecoder(strict=False).decode,
    True: json.JSONDecoder().decode,
}

# The open containers, innermost first, as a linked list of (closer, opener position, position
# of the last comma directly inside it or -1, outer): pushing, popping and moving the comma
# never copy, so a scan can be resumed and shared.
_Stack: TypeAlias = "tuple[str, int, int, _Stack] | None"
_OPENER: Final = {"]": "[", "}": "{"}
_KEY_COLON: Final = re.compile(r'[ \t\n\r]*("[^"\\]*(?:\\[\s\S][^"\\]*)*")[ \t\n\r]*:[ \t\n\r]*')


class JsonPrefixScan:
    """Where a left-to-right scan of a JSON prefix stopped; resumable and safe to share.

    Streaming callers keep the scan of the text so far and resume it when more text arrives,
    so a text fed in many pieces is scanned once overall, not once per piece. A scan also
    remembers the elements of each open container that :meth:`parse` has already read, and
    the text so far of a string still open, so the next parse decodes only what is new (the
    containers still open are rebuilt each time: a parse costs their number of elements).
    """

    __slots__ = ("depth", "in_string", "memo", "pos", "stack", "string_end", "string_start")

    def __init__(
        self,
        pos: int,
        stack: _Stack,
        depth: int,
        in_string: bool,
        string_start: int,
        string_end: int,
        memo: dict[int, tuple[int, Any]] | None = None,
    ) -> None:
        self.pos = pos
        self.stack = stack
        self.depth = depth
        self.in_string = in_string
        self.string_start = string_start
        self.string_end = string_end
        # Opener position -> (comma position, elements before that comma). An entry depends
        # only on the text before its comma, so it stays true for every longer text.
        self.memo: dict[int, tuple[int, Any]] = {} if memo is None else memo

    @classmethod
    def of(cls, text: str, resume: JsonPrefixScan | None = None) -> JsonPrefixScan:
        """Scan ``text``, continuing ``resume`` (the scan of a prefix of ``text``) if given.

        Raises:
            json.JSONDecodeError: a closing bracket that closes nothing or the wrong thing, or
                nesting deeper than ``MAX_DEPTH``; no continuation can repair either.
        """
        if resume is None:
            pos, stack, depth, in_string, start, end = 0, None, 0, False, -1, -1
        else:
            pos, stack, depth = resume.pos, resume.stack, resume.depth
            in_string, start, end = resume.in_string, resume.string_start, resume.string_end
        n = len(text)
        next_token = _NEXT_TOKEN.search
        string_body = _STRING_BODY.match
        while True:
            if in_string:
                # The body match stops at the closing quote, at the end, or before a lone
                # trailing backslash: always at a point where scanning can resume.
                pos = string_body(text, pos).end()  # type: ignore[union-attr]
                if pos < n and text[pos] == '"':
                    pos += 1
                    in_string = False
                    end = pos
                    continue
                break
            m = next_token(text, pos)
            i = n if m is None else m.start()
            if stack is not None and i > pos:
                # Between tokens there are no strings or brackets: a comma there belongs to
                # the innermost open container.
                comma = text.rfind(",", pos, i)
                if comma >= 0:
                    stack = (stack[0], stack[1], comma, stack[3])
            if m is None:
                pos = n
                break
            char = text[i]
            pos = i + 1
            if char == '"':
                in_string = True
                start = i
            elif char == "[" or char == "{":
                depth += 1
                if depth > MAX_DEPTH:
                    raise json.JSONDecodeError(TOO_DEEP, text, i)
                stack = ("]" if char == "[" else "}", i, -1, stack)
            elif stack is not None and stack[0] == char:
                stack = stack[3]
                depth -= 1
            elif stack is None:
                raise json.JSONDecodeError(f"Unexpected {char!r}: nothing is open", text, i)
            else:
                raise json.JSONDecodeError(f"Unexpected {char!r}: expected {stack[0]!r}", text, i)
        memo: dict[int, tuple[int, Any]] = {}
        if resume is not None and resume.memo:
            link = stack
            while link is not None:
                entry = resume.memo.get(link[1])
                if entry is not None:
                    memo[link[1]] = entry
                link = link[3]
            if in_string:
                entry = resume.memo.get(start)
                if entry is not None:
                    memo[start] = entry
        return cls(pos, stack, depth, in_string, start, end, memo)

    def parse(self, text: str, *, strict: bool = False) -> Any:
        """The value ``text`` holds so far; ``text`` must be the text this scan covered.

        Raises:
            json.JSONDecodeError: ``text`` is not a prefix of JSON or holds no value yet.
        """
        stack = self.stack
        if stack is None and not self.in_string:
            try:
                return _DECODERS[strict](text)
            except json.JSONDecodeError:
                pass
            except RecursionError:
                raise _too_deep(text) from None
            except ValueError as exc:
                raise _unreadable(exc, text) from None
        cut, suffix = _cut(text, self, strict)
        # A string value still being written is read through `_open_string`, which decodes
        # only what the last parse did not; any doubt, and the whole-text path below decides.
        open_string = self.in_string and suffix == '"'
        if stack is None:
            if open_string and _prev(text, self.string_start) < 0:
                try:
                    return self._open_string(text, cut, strict)
                except ValueError:
                    pass
            return _loads(text[:cut] + suffix, text, 0, strict)
        frames = []
        while stack is not None:
            frames.append(stack)
            stack = stack[3]
        if _prev(text, frames[-1][1]) >= 0:
            raise json.JSONDecodeError("Extra data", text, 0)
        closer, start, comma, _ = frames[0]
        tail_start = max(start, comma) + 1
        value = self._elements(text, closer, start, comma, strict)
        part = (
            self._with_open_string(text, closer, tail_start, cut, strict) if open_string else None
        )
        if part is None:
            tail = text[tail_start:cut] + suffix if cut >= tail_start else ""
            if tail.strip(_WS):
                part = _loads(_OPENER[closer] + tail + closer, text, tail_start - 1, strict)
        if part is not None:
            if closer == "]":
                value.extend(part)
            else:
                value.update(part)
        for closer, outer_start, comma, _ in frames[1:]:
            tail_start = max(outer_start, comma) + 1
            outer = self._elements(text, closer, outer_start, comma, strict)
            between = text[tail_start:start]
            if closer == "]":
                if between.strip(_WS):
                    raise json.JSONDecodeError("Expecting ',' delimiter", text, tail_start)
                outer.append(value)
            else:
                key = _KEY_COLON.fullmatch(between)
                if key is None:
                    raise json.JSONDecodeError("Expecting property name", text, tail_start)
                outer[_loads(key.group(1), text, tail_start, strict)] = value
            value, start = outer, outer_start
        return value

    def _open_string(self, text: str, end: int, strict: bool) -> str:
        """The open string's text up to ``end``, decoding only what is new since last time.

        ``end`` is where `_string_body_end` cut the body: never inside an escape, so
        decoding the body piece by piece at such points gives what decoding it whole gives,
        except across a surrogate pair written as two escapes: a piece that ends with a
        first half is decoded again with the next one rather than remembered.

        Raises:
            ValueError: the new piece is not valid string content.
        """
        start = self.string_start
        entry: tuple[int, str] = self.memo.get(start, (start + 1, ""))
        done, decoded = entry
        if done > end:
            done, decoded = start + 1, ""
        if done < end:
            piece = _DECODERS[strict]('"' + text[done:end] + '"')
            decoded += piece
            if not "\ud800" <= piece[-1:] <= "\udbff":
                self.memo[start] = (end, decoded)
        return decoded

    def _with_open_string(
        self, text: str, closer: str, tail_start: int, end: int, strict: bool
    ) -> Any:
        """The innermost container's last element, an open string value; None if in doubt."""
        try:
            head = text[tail_start : self.string_start]
            part = _DECODERS[strict](_OPENER[closer] + head + '""' + closer)
            if len(part) != 1:
                return None
            string = self._open_string(text, end, strict)
        except (ValueError, RecursionError):
            return None
        if closer == "]":
            part[0] = string
        else:
            part[next(iter(part))] = string
        return part

    def _elements(self, text: str, closer: str, start: int, comma: int, strict: bool) -> Any:
        """A new list (or dict) of the container's elements before its last comma."""
        if comma < 0:
            return [] if closer == "]" else {}
        done, elements = self.memo.get(start, (start, [] if closer == "]" else {}))
        if done < comma:
            segment = text[done + 1 : comma]
            if not segment.strip(_WS):
                raise json.JSONDecodeError("Expecting value", text, done + 1)
            more = _loads(_OPENER[closer] + segment + closer, text, done, strict)
            elements = elements + more if closer == "]" else {**elements, **more}
            self.memo[start] = (comma, elements)
        return list(elements) if closer == "]" else dict(elements)


def parse_partial_json(s: str, *, strict: bool = False) -> Any:
    """Parse JSON text that may be cut off anywhere; see the module docstring for the rules.

    Args:
        s: a JSON text or a prefix of one.
        strict: reject raw control characters inside strings, as ``json.loads`` does by
            default (LangChain's default, kept here, is to allow them).

    Returns:
        The value the text holds so far.

    Raises:
        json.JSONDecodeError: ``s`` is not a prefix of JSON text or holds no value yet.
    """
    try:
        return _DECODERS[strict](s)
    except json.JSONDecodeError:
        pass
    except RecursionError:
        raise _too_deep(s) from None
    except ValueError as exc:
        raise _unreadable(exc, s) from None
    return JsonPrefixScan.of(s).parse(s, strict=strict)


def parse_complete_json(s: str, *, strict: bool = False) -> Any:
    """Parse a complete JSON text, and nothing less: the reading of a finished stream.

    ``json.loads(s, strict=strict)``, except that every failure is a
    :class:`json.JSONDecodeError` (nesting beyond :data:`MAX_DEPTH` and over-long integers
    included), so callers catch one exception.

    Raises:
        json.JSONDecodeError: ``s`` is not one complete JSON text.
    """
    try:
        return _DECODERS[strict](s)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise _too_deep(s) from None
    except ValueError as exc:
        raise _unreadable(exc, s) from None


def parse_json_markdown(text: str, *, parser: Callable[[str], Any] = parse_partial_json) -> Any:
    """Parse JSON that a model may have wrapped in a markdown code fence.

    The whole text, stripped of whitespace and backticks, is tried first; if that is not
    JSON, the content of the first ```` ``` ```` (or ```` ```json ````) fence is, up to the
    closing fence or, while a reply is still streaming, the end of the text. When the text
    has a fence and its first character cannot begin a JSON text (prose, ``json`` after the
    backticks), the whole-text attempt is skipped: it could only fail, at the cost of a scan.

    Args:
        text: the model's reply.
        parser: parses the JSON text; the default closes truncated JSON.

    Raises:
        json.JSONDecodeError: neither the text nor its first fenced block is JSON.
    """
    whole = text.strip(MARKDOWN_STRIP)
    fence = text.find("```")
    if fence < 0 or whole[:1] in JSON_STARTS:
        try:
            return parser(whole)
        except json.JSONDecodeError:
            if fence < 0:
                raise
    start = fence + 3
    if text.startswith("json", start):
        start += 4
    end = text.find("```", start)
    return parser((text[start:end] if end >= 0 else text[start:]).strip(MARKDOWN_STRIP))


def _too_deep(text: str) -> json.JSONDecodeError:
    return json.JSONDecodeError(TOO_DEEP, text, 0)


def _unreadable(exc: ValueError, text: str) -> json.JSONDecodeError:
    # The decoder raises a bare ValueError for an integer longer than
    # sys.get_int_max_str_digits() (4300 by default): still "not JSON we can read".
    return json.JSONDecodeError(str(exc), text, 0)


def _loads(candidate: str, text: str, offset: int, strict: bool) -> Any:
    """``json.loads`` of a repaired piece of ``text``, errors pointing into ``text``."""
    try:
        return _DECODERS[strict](candidate)
    except json.JSONDecodeError as exc:
        raise json.JSONDecodeError(exc.msg, text, min(offset + exc.pos, len(text))) from None
    except RecursionError:
        raise _too_deep(text) from None
    except ValueError as exc:
        raise _unreadable(exc, text) from None


def _cut(text: str, scan: JsonPrefixScan, strict: bool) -> tuple[int, str]:
    """``text[:cut] + suffix`` is the text cut back to what can be completed, unclosed."""
    if not scan.in_string:
        return _cut_tail(text, scan, strict), ""
    start = scan.string_start
    end = _string_body_end(text, start + 1, len(text))
    if _is_key(text, start, scan.stack):
        return _drop_key(text, start, text[start:end] + '"', strict), ""
    return end, '"'


def _prev(text: str, i: int) -> int:
    """Index of the last non-whitespace character before ``i``, or -1."""
    if i > 0 and text[i - 1] not in _WS:
        return i - 1
    # Look back through growing windows: copying all of text[:i] to strip a few spaces would
    # make every parse of a growing text cost its whole length.
    size = 64
    while i > 0:
        lo = max(0, i - size)
        kept = len(text[lo:i].rstrip(_WS))
        if kept:
            return lo + kept - 1
        i = lo
        size *= 2
    return -1


def _is_key(text: str, start: int, stack: _Stack) -> bool:
    """Whether the string starting at ``start`` sits where an object expects a key."""
    if stack is None or stack[0] != "}":
        return False
    p = _prev(text, start)
    return p >= 0 and text[p] in "{,"


def _drop_key(text: str, start: int, key: str, strict: bool) -> int:
    """Where to cut to drop the key at ``start`` (and its comma); ``len(text)`` if invalid."""
    try:
        _DECODERS[strict](key)
    except json.JSONDecodeError:
        return len(text)
    p = _prev(text, start)
    if text[p] == "{":
        return start
    return _drop_comma(text, p)


def _drop_comma(text: str, comma: int) -> int:
    """Where to cut to drop the comma at ``comma``; ``len(text)`` if no value precedes it."""
    q = _prev(text, comma)
    if q < 0 or text[q] in _OPENERS_AND_SEPARATORS:
        return len(text)
    return comma


def _backslash_run(text: str, lo: int, end: int) -> int:
    """How many backslashes end ``text[lo:end]``."""
    if end <= lo or text[end - 1] != "\\":
        return 0
    # Growing windows, as in `_prev`: runs are short, the text before them may be long.
    i, size = end, 16
    while i > lo:
        start = max(lo, i - size)
        kept = len(text[start:i].rstrip("\\"))
        if kept:
            return end - start - kept
        i = start
        size *= 2
    return end - lo


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


def _cut_tail(text: str, scan: JsonPrefixScan, strict: bool) -> int:
    """Where to cut a text that does not end inside a string."""
    end = _prev(text, len(text)) + 1
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
        f = len(text[:end].rstrip(_FRAGMENT_CHARS))
        fragment = text[f:end]
        if _NUMBER_PREFIX.fullmatch(fragment):
            number = _NUMBER.match(fragment)
            if number is not None:
                return f + number.end()
            return _drop_value(text, f, scan, strict)
        if fragment in _LITERAL_PREFIXES:
            return _drop_value(text, f, scan, strict)
    return end


def _drop_value(text: str, start: int, scan: JsonPrefixScan, strict: bool) -> int:
    """Where to cut to drop an unfinished scalar at ``start`` (and its key or comma)."""
    p = _prev(text, start)
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


def _drop_colon(text: str, colon: int, scan: JsonPrefixScan, strict: bool) -> int:
    """Where to cut to drop a key whose value has not started; ``len(text)`` if invalid."""
    q = _prev(text, colon)
    start = scan.string_start
    if q >= 0 and text[q] == '"' and scan.string_end == q + 1 and _is_key(text, start, scan.stack):
        return _drop_key(text, start, text[start : q + 1], strict)
    return len(text)
