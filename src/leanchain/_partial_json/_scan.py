"""The partial parser: one resumable scan of a JSON prefix, and the value assembled from it.

See the package docstring for what a prefix reads as. A scan finds the text's brackets,
commas and strings in one left-to-right pass that a longer text resumes; the value is then
assembled from the open containers, their elements decoded by :mod:`json`'s C decoder.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from ._cut import WS, Stack, cut_point, prev_char
from ._decode import DECODERS, MAX_DEPTH, TOO_DEEP, loads_piece, too_deep, unreadable

__all__ = ["JsonPrefixScan", "parse_partial_json"]

_NEXT_TOKEN: Final = re.compile(r'["\[\]{}]')
_STRING_BODY: Final = re.compile(r'[^"\\]*(?:\\[\s\S][^"\\]*)*')
_OPENER: Final = {"]": "[", "}": "{"}
_KEY_COLON: Final = re.compile(r'[ \t\n\r]*("[^"\\]*(?:\\[\s\S][^"\\]*)*")[ \t\n\r]*:[ \t\n\r]*')


class JsonPrefixScan:
    """Where a left-to-right scan of a JSON prefix stopped; resumable and safe to share.

    Streaming callers keep the scan of the text so far and resume it when more text arrives,
    so a text fed in many pieces is scanned once overall, not once per piece. A scan also
    remembers the elements of each open container that :meth:`parse` has already read, and
    the text so far of a string still open, so the next parse decodes only what is new.

    A parse returns a new list or dict for each container still open (one copy of each: its
    elements so far) and shares the finished values inside them with earlier and later
    parses; no value it has returned ever changes afterwards. The elements remembered for an
    open container move to the scan that resumes this one, which extends them in place; were
    this scan parsed again, or resumed a second time, it would read them from the text anew.
    """

    __slots__ = ("depth", "in_string", "memo", "pos", "stack", "string_end", "string_start")

    def __init__(
        self,
        pos: int,
        stack: Stack,
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
        # Opener position -> (comma position, elements before that comma), and string start ->
        # (end, text decoded up to end). An entry depends only on the text before its comma
        # (or end), so it stays true for every longer text. A container's elements are this
        # scan's own, never handed out: parse copies them, and extends them in place.
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
            known = resume.memo
            link = stack
            while link is not None:
                # Taken, not shared: the new scan extends these elements in place, and `pop`
                # gives them to one scan only, however many resume this one at once.
                entry = known.pop(link[1], None)
                if entry is not None:
                    memo[link[1]] = entry
                link = link[3]
            if in_string:
                entry = known.get(start)  # a str: shared as it is
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
                return DECODERS[strict](text)
            except json.JSONDecodeError:
                pass
            except RecursionError:
                raise too_deep(text) from None
            except ValueError as exc:
                raise unreadable(exc, text) from None
        cut, suffix = cut_point(text, self, strict)
        # A string value still being written is read through `_open_string`, which decodes
        # only what the last parse did not; any doubt, and the whole-text path below decides.
        open_string = self.in_string and suffix == '"'
        if stack is None:
            if open_string and prev_char(text, self.string_start) < 0:
                try:
                    return self._open_string(text, cut, strict)
                except ValueError:
                    pass
            return loads_piece(text[:cut] + suffix, text, 0, strict)
        frames = []
        while stack is not None:
            frames.append(stack)
            stack = stack[3]
        if prev_char(text, frames[-1][1]) >= 0:
            raise json.JSONDecodeError("Extra data", text, 0)
        closer, start, comma, _ = frames[0]
        tail_start = max(start, comma) + 1
        value = self._elements(text, closer, start, comma, strict)
        part = (
            self._with_open_string(text, closer, tail_start, cut, strict) if open_string else None
        )
        if part is None:
            tail = text[tail_start:cut] + suffix if cut >= tail_start else ""
            if tail.strip(WS):
                part = loads_piece(_OPENER[closer] + tail + closer, text, tail_start - 1, strict)
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
                if between.strip(WS):
                    raise json.JSONDecodeError("Expecting ',' delimiter", text, tail_start)
                outer.append(value)
            else:
                key = _KEY_COLON.fullmatch(between)
                if key is None:
                    raise json.JSONDecodeError("Expecting property name", text, tail_start)
                outer[loads_piece(key.group(1), text, tail_start, strict)] = value
            value, start = outer, outer_start
        return value

    def _open_string(self, text: str, end: int, strict: bool) -> str:
        """The open string's text up to ``end``, decoding only what is new since last time.

        ``end`` is where `cut_point` ended the body: never inside an escape, so
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
            piece = DECODERS[strict]('"' + text[done:end] + '"')
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
            part = DECODERS[strict](_OPENER[closer] + head + '""' + closer)
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
        """A new list (or dict) of the container's elements before its last comma.

        Only the elements after the remembered comma are decoded; they extend the remembered
        ones in place (a dict update keeps a repeated key where it first came, with its last
        value, as the decoder does), so a parse copies each open container once, not twice.
        """
        if comma < 0:
            return [] if closer == "]" else {}
        # Held apart while in use: a parse of this scan in another thread meanwhile finds no
        # entry and reads the elements from the text, never a half-extended collection.
        entry = self.memo.pop(start, None)
        done: int = start
        elements: Any = None
        if entry is not None and entry[0] <= comma:
            done, elements = entry
        if done < comma:
            segment = text[done + 1 : comma]
            if not segment.strip(WS):
                raise json.JSONDecodeError("Expecting value", text, done + 1)
            more = loads_piece(_OPENER[closer] + segment + closer, text, done, strict)
            if elements is None:
                elements = more
            elif closer == "]":
                elements.extend(more)
            else:
                elements.update(more)
        value = elements.copy()
        self.memo[start] = (comma, elements)
        return value


def parse_partial_json(s: str, *, strict: bool = False) -> Any:
    """Parse JSON text that may be cut off anywhere; see the package docstring for the rules.

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
        return DECODERS[strict](s)
    except json.JSONDecodeError:
        pass
    except RecursionError:
        raise too_deep(s) from None
    except ValueError as exc:
        raise unreadable(exc, s) from None
    return JsonPrefixScan.of(s).parse(s, strict=strict)
