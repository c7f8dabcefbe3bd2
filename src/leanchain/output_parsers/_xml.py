"""`XMLOutputParser`: a model's XML answer as nested dicts and lists (LangChain's shape).

Safe by construction: the text is read by a small tag scanner, not an XML library. There is
no DTD processing at all: a ``<!DOCTYPE ...>`` (and with it any entity declaration or
external entity) is refused with `OutputParserException`, and only the five predefined
entities (``&amp;`` ``&lt;`` ``&gt;`` ``&quot;`` ``&apos;``) and numeric character references
are decoded, so nothing can expand (CVE-2024-1455, "billion laughs") and nothing is fetched.
The scan is linear in the text and its depth is capped.

The shape is LangChain's: an element with text is ``{tag: text}``; otherwise ``{tag: [child,
...]}``, each child in the same shape (an empty leaf is ``{tag: None}``). Streaming yields,
for each leaf as it closes, its path from the root (``{"movies": [{"movie": [{"title":
"Up"}]}]}``); the chunks add up with ``+``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from leanchain.errors import OutputParserException
from leanchain.output_parsers._base import BaseTransformOutputParser, generation_text
from leanchain.runnables.utils import AddableDict

__all__ = ["XMLOutputParser"]

MAX_DEPTH = 100
"""How deeply elements may nest."""

FORMAT_INSTRUCTIONS = """The output should be formatted as a XML file.
1. Output should conform to the tags below.
2. If tags are not given, make them on your own.
3. Remember to always open and close all the tags.

As an example, for the tags ["foo", "bar", "baz"]:
1. String "<foo>
   <bar>
      <baz></baz>
   </bar>
</foo>" is a well-formatted instance of the schema.
2. String "<foo>
   <bar>
   </foo>" is a badly-formatted instance.
3. String "<foo>
   <tag>
   </tag>
</foo>" is a badly-formatted instance.

Here are the output tags:
```
{tags}
```"""

_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_REFERENCE = re.compile(r"&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z_][\w.-]*);")
_NAME = re.compile(r"[A-Za-z_][\w.:-]*")
_FENCE = re.compile(r"```(xml)?(.*)```", re.DOTALL)
_DECLARATION = re.compile(r"<([^>]*encoding[^>]*)>\n(.*)", re.MULTILINE | re.DOTALL)


class _Malformed(ValueError):
    """The text is not XML this parser reads."""


def _decode(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        ref = match.group(1)
        if ref.startswith("#"):
            try:
                code = int(ref[2:], 16) if ref[1] in "xX" else int(ref[1:])
                return chr(code)
            except (ValueError, OverflowError) as exc:
                raise _Malformed(f"bad character reference &{ref};") from exc
        if ref in _ENTITIES:
            return _ENTITIES[ref]
        raise _Malformed(f"undefined entity &{ref}; (entities are never expanded)")

    return _REFERENCE.sub(one, text) if "&" in text else text


class _Element:
    __slots__ = ("children", "parts", "tag")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.parts: list[str] = []
        self.children: list[_Element] = []


class _Scanner:
    """Reads XML a piece at a time; `feed` returns the leaves that closed (with their paths)."""

    def __init__(self) -> None:
        self.buffer = ""
        self.stack: list[_Element] = []
        self.root: _Element | None = None
        self.started = False

    def feed(self, text: str) -> list[tuple[list[str], _Element]]:
        self.buffer += text
        closed: list[tuple[list[str], _Element]] = []
        while self.buffer:
            if not self.started:
                start = self.buffer.find("<")
                if start < 0:
                    self.buffer = ""
                    break
                self.buffer = self.buffer[start:]
            lt = self.buffer.find("<")
            if lt != 0:
                text_end = len(self.buffer) if lt < 0 else lt
                if lt < 0 and "&" in self.buffer[max(0, len(self.buffer) - 12) :]:
                    break  # a reference may be cut; wait for more
                self._text(self.buffer[:text_end])
                self.buffer = self.buffer[text_end:]
                continue
            if not self._markup(closed):
                break
        return closed

    def _text(self, text: str) -> None:
        if not self.stack:
            if text.strip():
                raise _Malformed("text outside the root element")
            return
        self.stack[-1].parts.append(_decode(text))

    def _markup(self, closed: list[tuple[list[str], _Element]]) -> bool:
        """Consume one piece of markup at the buffer's start; False when it is not all here."""
        buffer = self.buffer
        for opener, closer in (("<?", "?>"), ("<!--", "-->")):
            if buffer.startswith(opener):
                end = buffer.find(closer)
                if end < 0:
                    return False
                self.buffer = buffer[end + len(closer) :]
                return True
        if len(buffer) < 9 and "<![CDATA[".startswith(buffer):
            return False
        if buffer.startswith("<![CDATA["):
            end = buffer.find("]]>")
            if end < 0:
                return False
            if not self.stack:
                raise _Malformed("text outside the root element")
            self.stack[-1].parts.append(buffer[9:end])
            self.buffer = buffer[end + 3 :]
            return True
        if buffer.startswith("<!"):
            if len(buffer) < 9 and "<!DOCTYPE".startswith(buffer):
                return False
            raise _Malformed(
                "a document type declaration (<!DOCTYPE ...>) is refused: DTDs and entities "
                "are never processed"
            )
        end = buffer.find(">")
        if end < 0:
            return False
        self.buffer = buffer[end + 1 :]
        self._tag(buffer[1:end], closed)
        return True

    def _tag(self, body: str, closed: list[tuple[list[str], _Element]]) -> None:
        if body.startswith("/"):
            name = body[1:].strip()
            if not self.stack or self.stack[-1].tag != name:
                expected = self.stack[-1].tag if self.stack else "nothing"
                raise _Malformed(f"mismatched tag </{name}>, expected </{expected}>")
            self._close(closed)
            return
        empty = body.endswith("/")
        match = _NAME.match(body)
        if match is None:
            raise _Malformed(f"not a tag: <{body}>")
        if self.root is not None and not self.stack:
            raise _Malformed("junk after the root element")
        if len(self.stack) >= MAX_DEPTH:
            raise _Malformed(f"elements nest deeper than {MAX_DEPTH}")
        element = _Element(match.group(0))
        if self.stack:
            self.stack[-1].children.append(element)
        else:
            self.root = element
        self.started = True
        self.stack.append(element)
        if empty:
            self._close(closed)

    def _close(self, closed: list[tuple[list[str], _Element]]) -> None:
        element = self.stack.pop()
        if not element.children:
            closed.append(([e.tag for e in self.stack], element))


def _text_of(element: _Element) -> str | None:
    return "".join(element.parts) if element.parts else None


def _to_dict(element: _Element) -> dict[str, Any]:
    text = _text_of(element)
    if text is not None and text.strip():
        return {element.tag: text}
    children: list[Any] = []
    for child in element.children:
        children.append({child.tag: _text_of(child)} if not child.children else _to_dict(child))
    return {element.tag: children}


def _nested(path: list[str], element: _Element) -> AddableDict:
    value: AddableDict = AddableDict({element.tag: _text_of(element)})
    for tag in reversed(path):
        value = AddableDict({tag: [value]})
    return value


def _clean(text: str) -> str:
    match = _FENCE.search(text)
    if match:
        text = match.group(2)
    declaration = _DECLARATION.search(text)
    if declaration:
        text = declaration.group(2)
    return text.strip()


class XMLOutputParser(BaseTransformOutputParser[dict[str, Any]]):
    """Parses an XML answer into dicts and lists; streams each leaf as it closes.

    Args:
        tags: the tags the format instructions ask for (``None``: the model chooses).

    Raises (from `parse` and the streams):
        OutputParserException: the text is not well-formed XML, or it declares a DTD.
    """

    __slots__ = ("tags",)

    def __init__(self, tags: list[str] | None = None) -> None:
        self.tags = tags

    @property
    def _type(self) -> str:
        return "xml"

    def get_format_instructions(self) -> str:
        """Instructions for the model, listing the expected tags."""
        return FORMAT_INSTRUCTIONS.replace("{tags}", str(self.tags))

    def parse(self, text: str) -> dict[str, Any]:
        """The XML in `text` (a markdown ``xml`` fence and an XML declaration are skipped)."""
        text = _clean(text)
        scanner = _Scanner()
        try:
            scanner.feed(text)
            if scanner.root is None:
                raise _Malformed("no element found")
            if scanner.stack:
                raise _Malformed(f"unclosed tag <{scanner.stack[-1].tag}>")
            if scanner.buffer.strip():
                raise _Malformed("unfinished markup at the end")
        except _Malformed as exc:
            raise OutputParserException(
                f"Failed to parse XML format from completion {text}. Got: {exc}",
                llm_output=text,
            ) from exc
        return _to_dict(scanner.root)

    def _transform(self, input: Iterator[Any]) -> Iterator[dict[str, Any]]:
        scanner = _Scanner()
        seen = ""
        for chunk in input:
            text = generation_text(chunk)
            seen += text
            try:
                closed = scanner.feed(text)
            except _Malformed as exc:
                raise OutputParserException(
                    f"Failed to parse XML format from completion {seen}. Got: {exc}",
                    llm_output=seen,
                ) from exc
            for path, element in closed:
                yield _nested(path, element)

    async def _atransform(self, input: AsyncIterator[Any]) -> AsyncIterator[dict[str, Any]]:
        scanner = _Scanner()
        seen = ""
        async for chunk in input:
            text = generation_text(chunk)
            seen += text
            try:
                closed = scanner.feed(text)
            except _Malformed as exc:
                raise OutputParserException(
                    f"Failed to parse XML format from completion {seen}. Got: {exc}",
                    llm_output=seen,
                ) from exc
            for path, element in closed:
                yield _nested(path, element)

    def __repr__(self) -> str:
        return f"XMLOutputParser(tags={self.tags!r})"
