"""List parsers: a model's reply as a list of strings (comma-separated, numbered, markdown).

They find the items LangChain's list parsers find, in linear time (pitfalls §2A: ReDoS), and
stream each item as a one-item list as soon as the text after it shows it is complete: a
comma or the end of its row for comma-separated values, the end of its line for the others.
A stream yields exactly the items `parse` returns for the whole reply, however it is cut.
"""

from __future__ import annotations

import csv
import io
import re
from abc import abstractmethod
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any, Final

from leanchain.output_parsers._base import BaseTransformOutputParser, _check_input, generation_text
from leanchain.output_parsers._list_scan import CommaItems, ListItems, MarkdownItems, NumberedItems

__all__ = [
    "CommaSeparatedListOutputParser",
    "ListOutputParser",
    "MarkdownListOutputParser",
    "NumberedListOutputParser",
]


class ListOutputParser(BaseTransformOutputParser[list[str]]):
    """A list of strings from a model's reply; streams each complete item as ``[item]``.

    Subclasses implement `parse`. One that only does is streamed by parsing the whole reply
    once it has ended; the built-in parsers read the reply as it arrives.
    """

    __slots__ = ()

    @abstractmethod
    def parse(self, text: str) -> list[str]:
        """The items in `text`."""

    def _items(self) -> ListItems | None:
        """A reader of one reply's items, or ``None`` to `parse` the whole reply at its end."""
        return None

    def _stream_items(self, reader: ListItems | None, texts: Iterable[str]) -> Iterator[str]:
        if reader is None:
            yield from self.parse("".join(texts))
            return
        for text in texts:
            yield from reader.feed(text)
        yield from reader.finish()

    def _transform(self, input: Iterator[Any]) -> Iterator[list[str]]:
        texts = (generation_text(_check_input(self, chunk)) for chunk in input)
        for item in self._stream_items(self._items(), texts):
            yield [item]

    async def _atransform(self, input: AsyncIterator[Any]) -> AsyncIterator[list[str]]:
        reader = self._items()
        if reader is None:
            texts = [generation_text(_check_input(self, chunk)) async for chunk in input]
            for item in self.parse("".join(texts)):
                yield [item]
            return
        async for chunk in input:
            for item in reader.feed(generation_text(_check_input(self, chunk))):
                yield [item]
        for item in reader.finish():
            yield [item]


_COMMA_INSTRUCTIONS: Final = (
    "Reply with the items as comma-separated values and nothing else, for example: "
    '`red, green, blue`. Put an item that contains a comma in double quotes: `"1,5 kg", 2 kg`.'
)
_NUMBERED_INSTRUCTIONS: Final = (
    "Reply with a numbered list and nothing else, one item per line, for example:\n\n"
    "1. red\n2. green\n3. blue"
)
_MARKDOWN_INSTRUCTIONS: Final = (
    "Reply with a markdown bullet list and nothing else, one item per line, for example:\n\n"
    "- red\n- green\n- blue"
)


class CommaSeparatedListOutputParser(ListOutputParser):
    """The comma-separated values in a reply: ``"a, b, c"`` → ``["a", "b", "c"]``.

    Read as LangChain reads them, with ``csv`` (``skipinitialspace=True``): spaces after a
    comma are dropped, trailing spaces kept; ``"quoted, values"`` may hold commas, and ``""``
    inside quotes is a quote; each line is a row of values, and the rows are flattened, so
    ``"a,\\nb"`` → ``["a", "", "b"]`` and an empty reply gives ``[]``. A lone ``\\r`` ends a
    row (``csv`` raises), and a value has no size limit (``csv``'s is 128 KiB).
    """

    __slots__ = ()

    def parse(self, text: str) -> list[str]:
        """The values in `text`."""
        try:
            # newline="": csv sees "\r" (inside quotes too) as it is, and a lone one ends a row.
            rows = csv.reader(io.StringIO(text, newline=""), skipinitialspace=True)
            return [value for row in rows for value in row]
        except csv.Error:
            pass  # a value over csv's size limit: read it without the limit below
        reader = CommaItems()
        return reader.feed(text) + reader.finish()

    def _items(self) -> ListItems | None:
        if type(self).parse is not CommaSeparatedListOutputParser.parse:
            return None  # a subclass reads differently: stream through its parse
        return CommaItems()

    def get_format_instructions(self) -> str:
        """Instructions to reply with comma-separated values (leanchain's wording)."""
        return _COMMA_INSTRUCTIONS


# LangChain's patterns (r"\d+\.\s([^\n]+)", r"^\s*[-*]\s([^\n]+)$" multiline) find the same
# items, but retry a digit or whitespace run from each of its positions: quadratic. These try
# a run once (a lookbehind or a line start) and never give back what they matched (++, *+).
_NUMBERED: Final = re.compile(r"(?<!\d)\d++\.\s([^\n]++)")
_MARKDOWN: Final = re.compile(r"^[^\S\n]*+[-*]\s([^\n]++)", re.MULTILINE)


class NumberedListOutputParser(ListOutputParser):
    """The items of a numbered list: ``"1. a\\n2. b"`` → ``["a", "b"]``.

    As LangChain: a number, a dot and one whitespace character start an item anywhere in the
    text (``"Step 1. mix"`` → ``["mix"]``); the item is the rest of its line, as it is
    (``"1.  a"`` → ``[" a"]``); when that whitespace is a line break, the next line.
    """

    __slots__ = ()

    def parse(self, text: str) -> list[str]:
        """The items in `text`."""
        return _NUMBERED.findall(text)

    def _items(self) -> ListItems | None:
        if type(self).parse is not NumberedListOutputParser.parse:
            return None
        return NumberedItems()

    def get_format_instructions(self) -> str:
        """Instructions to reply with a numbered list (leanchain's wording)."""
        return _NUMBERED_INSTRUCTIONS


class MarkdownListOutputParser(ListOutputParser):
    """The items of a markdown bullet list: ``"- a\\n* b"`` → ``["a", "b"]``.

    As LangChain: a line whose first non-blank character is ``-`` or ``*``, followed by one
    whitespace character, holds an item: the rest of the line, as it is; a bullet alone on
    its line takes the next line as its item. Other lines are ignored.
    """

    __slots__ = ()

    def parse(self, text: str) -> list[str]:
        """The items in `text`."""
        return _MARKDOWN.findall(text)

    def _items(self) -> ListItems | None:
        if type(self).parse is not MarkdownListOutputParser.parse:
            return None
        return MarkdownItems()

    def get_format_instructions(self) -> str:
        """Instructions to reply with a markdown list (leanchain's wording)."""
        return _MARKDOWN_INSTRUCTIONS
