"""The value of a streamed JSON reply so far, reading only the text each chunk adds.

`JsonReplyReader` answers, for a growing reply, exactly what
``parse_json_output(text, partial=True)`` answers for the whole text: the reply stripped of
whitespace and backticks, or else its first ```` ``` ```` / ```` ```json ```` fenced block, read
as partial JSON. It remembers, per stream, where the stripped ends and the fences are and a
resumable `JsonPrefixScan` of each candidate JSON text, so a reply fed in many chunks is
scanned once overall instead of once per chunk (LangChain re-reads the whole reply each time).

The finished parts of successive values are shared, not rebuilt: a value yielded earlier in a
stream may be part of a later one, so consumers must copy a streamed value before changing it.
Each value is a new object, as is every container in it that is still open; none of them
changes once returned.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from leanchain._partial_json import (
    JSON_STARTS,
    MARKDOWN_STRIP,
    TOO_DEEP,
    JsonPrefixScan,
    parse_complete_json,
    parse_partial_json,
)
from leanchain.output_parsers._base import generation_text

__all__ = ["NO_VALUE", "JsonReplyReader", "json_reply_reader"]


class _NoValue:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE: Final[Any] = _NoValue()
"""What a reader answers while the reply holds no JSON value (``None`` is JSON's ``null``)."""

_FENCE: Final = "```"
_TAG: Final = "json"
_CLOSERS: Final = "]}"


class _Candidate:
    """A JSON text with a fixed start that only grows at its end, scanned once overall."""

    __slots__ = ("dead", "deep", "end", "outcome", "scan", "start")

    def __init__(self, start: int) -> None:
        self.start = start
        self.end = start
        self.scan: JsonPrefixScan | None = None
        self.dead = False
        """A bracket closed the wrong thing: no continuation is JSON."""
        self.deep = False
        """Nested deeper than the scan goes: only a complete text can still be read."""
        self.outcome: Any = NO_VALUE

    def read(self, text: str, end: int) -> Any:
        """``parse_partial_json(text[start:end])``, or `NO_VALUE` where that raises.

        `end` never decreases during a stream; an unchanged `end` means an unchanged text,
        so the last answer (the very same object) is given again.
        """
        if end <= self.end:
            return self.outcome
        self.end = end
        body = text if self.start == 0 and end == len(text) else text[self.start : end]
        self.outcome = self._parse(body)
        return self.outcome

    def _parse(self, body: str) -> Any:
        if self.deep:
            # Deeper than MAX_DEPTH, only json itself may still read the text (a newer
            # Python recurses further), and only once it is complete: ending in a bracket.
            return _complete(body) if body[-1] in _CLOSERS else NO_VALUE
        if self.dead:
            return NO_VALUE
        try:
            self.scan = JsonPrefixScan.of(body, self.scan)
        except json.JSONDecodeError as exc:
            self.scan = None
            if exc.msg == TOO_DEEP:
                self.deep = True
                return self._parse(body)
            self.dead = True
            return NO_VALUE
        try:
            return self.scan.parse(body)
        except (ValueError, RecursionError):
            return NO_VALUE


def _complete(text: str) -> Any:
    try:
        return parse_complete_json(text)
    except (ValueError, RecursionError):
        return NO_VALUE


def _partial(text: str) -> Any:
    try:
        return parse_partial_json(text)
    except (ValueError, RecursionError):
        return NO_VALUE


class JsonReplyReader:
    """Reads one streamed reply: give it the reply so far after each chunk.

    Each call costs about the length of the text added since the last call (plus one copy of
    each container still open), where re-parsing costs the length of the whole reply. A text
    that does not extend the previous one starts the reading over.
    """

    __slots__ = (
        "_close",
        "_close_end",
        "_close_from",
        "_content",
        "_content_from",
        "_content_lead",
        "_end",
        "_fence",
        "_fence_from",
        "_fenced",
        "_kept",
        "_lead",
        "_past_space",
        "_text",
        "_whole",
    )

    def __init__(self) -> None:
        self._start_over()

    def _start_over(self) -> None:
        self._text = ""
        # The reply as parse_json_output sees it: text.strip().strip(MARKDOWN_STRIP), i.e.
        # text[_lead:_end] (-1: not known yet). _kept is the end of text.rstrip(MARKDOWN_STRIP).
        self._lead = -1
        self._past_space = False
        self._end = 0
        self._kept = 0
        # The first fence, where its block starts (after "json"), the first non-markdown
        # character of the block, the closing fence and the end of the block stripped; each
        # -1 until seen, and each search resumes at its _from position.
        self._fence = -1
        self._fence_from = 0
        self._content = -1
        self._content_from = 0
        self._content_lead = -1
        self._close = -1
        self._close_end = -1
        self._close_from = 0
        self._whole: _Candidate | None = None
        self._fenced: _Candidate | None = None

    def read(self, text: str, *, appended: bool = False) -> Any:
        """The JSON value the reply `text` holds so far, or `NO_VALUE`.

        Args:
            text: the whole reply so far; normally the previous one plus a chunk.
            appended: the caller knows that `text` extends the previous text (as string
                concatenation does), which spares comparing the two.
        """
        seen = self._text
        if not appended and not text.startswith(seen):
            self._start_over()
            seen = ""
        self._text = text
        if len(text) > len(seen):
            self._advance(text, len(seen))
        return self._value(text)

    def _advance(self, text: str, old: int) -> None:
        """Move the ends and fences over ``text[old:]``, looking at that part only."""
        piece = text[old:]
        kept = piece.rstrip()
        if kept:
            # The new end of text.strip() is in the piece; the markdown strip may go back
            # over backticks before it, to the last character kept so far.
            inner = kept.rstrip(MARKDOWN_STRIP)
            self._end = old + len(inner) if inner else self._kept
        inner = piece.rstrip(MARKDOWN_STRIP)
        if inner:
            self._kept = old + len(inner)
        if self._lead < 0:
            rest = piece
            if not self._past_space:
                rest = piece.lstrip()
                self._past_space = bool(rest)
            rest = rest.lstrip(MARKDOWN_STRIP)
            if rest:
                self._lead = len(text) - len(rest)
        if self._fence < 0:
            self._fence = text.find(_FENCE, self._fence_from)
            self._fence_from = max(0, len(text) - 2)
        if self._fence >= 0:
            self._advance_block(text)

    def _advance_block(self, text: str) -> None:
        """Find where the fenced block starts, its first character and its closing fence."""
        if self._content < 0:
            after = self._fence + len(_FENCE)
            tag = text[after : after + len(_TAG)]
            if tag == _TAG:
                self._content = after + len(_TAG)
            elif not _TAG.startswith(tag):
                self._content = after
            else:
                return  # "```js": the block starts after "json" or right after the fence
            self._content_from = self._close_from = self._content
        if self._content_lead < 0:
            rest = text[self._content_from :].lstrip(MARKDOWN_STRIP)
            if rest:
                self._content_lead = len(text) - len(rest)
            self._content_from = len(text)
        if self._close < 0:
            close = self._close = text.find(_FENCE, self._close_from)
            self._close_from = max(self._content, len(text) - 2)
            start = self._content_lead
            if 0 <= start < close:
                self._close_end = start + len(text[start:close].rstrip(MARKDOWN_STRIP))

    def _value(self, text: str) -> Any:
        lead, end, fence = self._lead, self._end, self._fence
        first = text[lead] if 0 <= lead < end else ""
        if fence < 0 or first in JSON_STARTS:
            value = NO_VALUE
            if lead >= 0:
                if self._whole is None:
                    self._whole = _Candidate(lead)
                value = self._whole.read(text, end)
            if value is not NO_VALUE or fence < 0:
                return value
        if self._content < 0:
            # At most three characters after the fence, a prefix of "json": read as is.
            return _partial(text[fence + len(_FENCE) :].strip().strip(MARKDOWN_STRIP))
        start = self._content_lead
        if self._close >= 0:
            end = self._close_end  # -1 when the block is empty
        if start < 0 or end <= start:
            return NO_VALUE
        if self._fenced is None:
            self._fenced = _Candidate(start)
        return self._fenced.read(text, end)


def json_reply_reader() -> Callable[[Any], Any]:
    """A reader for one stream of a model's output: the output so far → value or `NO_VALUE`.

    The output is a string or a message, as a cumulative parser accumulates it; a string
    grew by concatenation, so only a message's text is checked to extend the last one.
    """
    reader = JsonReplyReader()

    def read(output: Any) -> Any:
        return reader.read(generation_text(output), appended=isinstance(output, str))

    return read
