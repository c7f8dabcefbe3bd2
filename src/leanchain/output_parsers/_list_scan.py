"""Resumable, linear-time readers of the items in a list reply, fed the text piece by piece.

Each reader gives exactly the items LangChain's list parsers find in the whole text, however
the text is cut into pieces: `feed` returns the items that a piece completes, `finish` the
ones that the end of the text completes. No regular expression here can backtrack (each one
is a single character class), so a reply costs its length, once, whatever it holds; LangChain's
patterns (``\\d+\\.\\s([^\\n]+)``, ``^\\s*[-*]\\s([^\\n]+)$``) are quadratic on long runs of digits
or whitespace.
"""

from __future__ import annotations

import re
from typing import Final, Protocol

__all__ = ["CommaItems", "ListItems", "MarkdownItems", "NumberedItems"]


class ListItems(Protocol):
    """A reader of one list reply."""

    def feed(self, text: str) -> list[str]:
        """Read the next piece of the reply; the items it completes."""
        ...

    def finish(self) -> list[str]:
        """The reply has ended; the items its end completes (an item still open)."""
        ...


_FIELD_END: Final = re.compile(r"[,\r\n]")
_NOT_BLANK: Final = re.compile(r"[^ ]")
_NEWLINES: Final = "\r\n"
# A quoted field's text up to a quote that is not doubled: the closing one, or one that the
# next piece may still double.
_QUOTED: Final = re.compile(r'(?:[^"]++|"")*+')

# csv.reader's states (CPython's _csv.c), for the one dialect CommaItems reads.
_START_RECORD, _START_FIELD, _IN_FIELD, _IN_QUOTED, _QUOTE_IN_QUOTED = range(5)


class CommaItems:
    """The fields of comma-separated text, as ``csv.reader(skipinitialspace=True)`` reads them.

    That is LangChain's reading: spaces after a comma are dropped, trailing ones kept; a field
    may be double-quoted (``""`` inside quotes is one quote), quoted fields may hold commas
    and newlines; each line is a row, an empty line no row, and the rows are flattened. Unlike
    ``csv``, a lone ``\\r`` ends a row (``csv`` raises) and fields have no size limit.
    """

    __slots__ = ("_field", "_state")

    def __init__(self) -> None:
        self._state = _START_RECORD
        self._field: list[str] = []

    def _take(self) -> str:
        value = "".join(self._field)
        self._field.clear()
        return value

    def feed(self, text: str) -> list[str]:
        """Read the next piece; the fields it completes."""
        items: list[str] = []
        field = self._field
        state = self._state
        i, n = 0, len(text)
        while i < n:
            if state == _START_RECORD:
                if text[i] in _NEWLINES:
                    i += 1  # an empty line: no row, no field
                    continue
                state = _START_FIELD
            if state == _START_FIELD:
                found = _NOT_BLANK.search(text, i)
                if found is None:
                    break
                i = found.start()
                char = text[i]
                if char == '"':
                    state = _IN_QUOTED
                    i += 1
                elif char == ",":
                    items.append("")
                    i += 1
                elif char in _NEWLINES:
                    items.append("")
                    state = _START_RECORD
                    i += 1
                else:
                    state = _IN_FIELD
            elif state == _IN_FIELD:
                found = _FIELD_END.search(text, i)
                if found is None:
                    field.append(text[i:])
                    break
                end = found.start()
                field.append(text[i:end])
                items.append(self._take())
                state = _START_FIELD if text[end] == "," else _START_RECORD
                i = end + 1
            elif state == _IN_QUOTED:
                quoted = _QUOTED.match(text, i)
                end = quoted.end() if quoted else i
                field.append(text[i:end].replace('""', '"'))
                if end == n:
                    break
                state = _QUOTE_IN_QUOTED
                i = end + 1
            else:  # _QUOTE_IN_QUOTED: the quote closed the field, or was the first of ""
                char = text[i]
                if char == '"':
                    field.append('"')
                    state = _IN_QUOTED
                    i += 1
                elif char == "," or char in _NEWLINES:
                    items.append(self._take())
                    state = _START_FIELD if char == "," else _START_RECORD
                    i += 1
                else:
                    state = _IN_FIELD  # csv keeps text after the closing quote
        self._state = state
        return items

    def finish(self) -> list[str]:
        """The field the end of the text completes: an open one, or the empty one after a
        trailing comma."""
        state, self._state = self._state, _START_RECORD
        if state == _START_RECORD:
            return []
        return [self._take()]


_DIGITS: Final = re.compile(r"\d+")
_SPACE: Final = re.compile(r"\s")  # the very class LangChain's patterns use


class _LineItems:
    """What the line-item scanners share: the open item's pieces, and ending the text."""

    __slots__ = ("_item", "_state")

    _START: int
    """The state at the start of a text."""
    _OPEN: int
    """The state while an item is being read."""

    def __init__(self) -> None:
        self._state = self._START
        self._item: list[str] = []

    def finish(self) -> list[str]:
        """The item the end of the text completes, if one is open."""
        state, self._state = self._state, self._START
        if state != self._OPEN:
            return []
        value = "".join(self._item)
        self._item.clear()
        return [value]


# NumberedItems' states: where a match of "\d+\.\s([^\n]+)" has got to.
_SEEK, _IN_NUMBER, _AFTER_NUMBER, _AFTER_DOT, _AFTER_SPACE, _IN_ITEM = range(6)


class NumberedItems(_LineItems):
    """The items of a numbered list, as ``re.findall(r"\\d+\\.\\s([^\\n]+)", text)`` finds them.

    A number, a dot and one whitespace character start an item anywhere in the text (the
    whitespace may be a newline, and then the item is the next line); the item is the rest of
    its line, spaces and ``\\r`` included.
    """

    __slots__ = ()

    _START = _SEEK
    _OPEN = _IN_ITEM

    def feed(self, text: str) -> list[str]:
        """Read the next piece; the items it completes."""
        items: list[str] = []
        item = self._item
        state = self._state
        i, n = 0, len(text)
        while i < n:
            if state in (_SEEK, _IN_NUMBER):
                # Every digit of a run leads to the same end of it: only that end matters.
                number = (_DIGITS.search if state == _SEEK else _DIGITS.match)(text, i)
                if number is None:
                    if state == _SEEK:
                        break
                    state = _AFTER_NUMBER
                    continue
                i = number.end()
                state = _IN_NUMBER if i == n else _AFTER_NUMBER
            elif state == _AFTER_NUMBER:
                if text[i] == ".":
                    state = _AFTER_DOT
                    i += 1
                else:
                    state = _SEEK
            elif state == _AFTER_DOT:
                if _SPACE.match(text, i):
                    state = _AFTER_SPACE
                    i += 1
                else:
                    state = _SEEK  # read this character again: it may start a number
            elif state == _AFTER_SPACE:
                state = _SEEK if text[i] == "\n" else _IN_ITEM
            else:
                end = text.find("\n", i)
                if end < 0:
                    item.append(text[i:])
                    break
                item.append(text[i:end])
                items.append("".join(item))
                item.clear()
                state = _SEEK
                i = end + 1
        self._state = state
        return items


_NOT_SPACE: Final = re.compile(r"\S")
_BULLETS: Final = "-*"

# MarkdownItems' states: where a match of "^\s*[-*]\s([^\n]+)$" (multiline) has got to.
_LINE_START, _AFTER_BULLET, _AFTER_BULLET_SPACE, _IN_BULLET_ITEM, _SKIP_LINE = range(5)


class MarkdownItems(_LineItems):
    """The items of a markdown list, as ``re.findall(r"^\\s*[-*]\\s([^\\n]+)$", text, re.M)``.

    A line whose first non-blank character is ``-`` or ``*`` followed by one whitespace
    character starts an item; blank lines before it count as its indent, and a bullet alone on
    its line takes the next line as its item. The item is the rest of the line.
    """

    __slots__ = ()

    _START = _LINE_START
    _OPEN = _IN_BULLET_ITEM

    def feed(self, text: str) -> list[str]:
        """Read the next piece; the items it completes."""
        items: list[str] = []
        item = self._item
        state = self._state
        i, n = 0, len(text)
        while i < n:
            if state == _LINE_START:
                found = _NOT_SPACE.search(text, i)
                if found is None:
                    break
                i = found.end()
                state = _AFTER_BULLET if text[found.start()] in _BULLETS else _SKIP_LINE
            elif state == _AFTER_BULLET:
                if _SPACE.match(text, i):
                    state = _AFTER_BULLET_SPACE
                    i += 1
                else:
                    state = _SKIP_LINE
            elif state == _AFTER_BULLET_SPACE:
                if text[i] == "\n":
                    state = _LINE_START  # no item here; the next line may start one
                    i += 1
                else:
                    state = _IN_BULLET_ITEM
            else:
                end = text.find("\n", i)
                if end < 0:
                    if state == _IN_BULLET_ITEM:
                        item.append(text[i:])
                    break
                if state == _IN_BULLET_ITEM:
                    item.append(text[i:end])
                    items.append("".join(item))
                    item.clear()
                state = _LINE_START
                i = end + 1
        self._state = state
        return items
