"""The incremental reply reader answers what re-reading the whole reply answers, chunk by chunk.

The reference is the one-shot reading, ``parse_json_markdown(text.strip())`` (what
``parse_json_output(text, partial=True)`` does), on every prefix the stream has reached; and
the parsers stream exactly the values they streamed when they re-read the whole reply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from leanchain._partial_json import MAX_DEPTH, parse_json_markdown
from leanchain.errors import OutputParserException
from leanchain.messages import AIMessageChunk
from leanchain.output_parsers import (
    BaseCumulativeTransformOutputParser,
    JsonOutputParser,
    PydanticOutputParser,
)
from leanchain.output_parsers._json_stream import NO_VALUE, JsonReplyReader

# Pieces of replies: fences whole and in parts, the "json" tag, prose, JSON tokens, escapes
# and surrogates, and whitespace that str.strip() removes but JSON does not accept.
FRAGMENTS = [
    "```",
    "```json",
    "``",
    "`",
    "json",
    "js",
    "on",
    "\n",
    " ",
    "\t",
    "\x0c",
    "\xa0",
    "\u2003",
    "{",
    "}",
    "[",
    "]",
    '"',
    ":",
    ",",
    "1",
    "0",
    ".5",
    "e",
    "-",
    "tr",
    "true",
    "nul",
    "null",
    "NaN",
    "\\",
    "\\u",
    "d83d",
    "\\ud83d",
    "\\ude00",
    "\U0001f600",
    "a",
    "é",
    "Sure: ",
    '"k": ',
    '{"a": ',
    '"x"',
]

REPLY_BITS = st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join)

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def replies(draw: st.DrawFn) -> str:
    """A JSON document, bare or fenced, with prose around it, or loose reply fragments."""
    if draw(st.booleans()):
        return draw(REPLY_BITS)
    text = json.dumps(
        draw(JSON_VALUES),
        indent=draw(st.sampled_from([None, 2])),
        ensure_ascii=draw(st.booleans()),
    )
    before = draw(st.sampled_from(["", " ", "```json\n", "```\n", "Sure:\n```json\n", "`"]))
    after = draw(st.sampled_from(["", "\n", "\n```", "\n```\nAnything else?", "`", " \x0c"]))
    return before + text + after


def one_shot(text: str) -> Any:
    """The reference: what re-reading the whole reply gives (`NO_VALUE` for no value)."""
    try:
        return parse_json_markdown(text.strip())
    except (ValueError, RecursionError):
        return NO_VALUE


def canon(value: Any) -> str:
    """A value as JSON text: ``NaN`` equals ``NaN``, ``1`` differs from ``1.0``."""
    return "NO_VALUE" if value is NO_VALUE else json.dumps(value)


def cut(text: str, points: list[int]) -> list[str]:
    """`text` in pieces, cut at `points` (clamped, sorted, deduplicated)."""
    edges = sorted({min(p, len(text)) for p in points})
    return [text[i:j] for i, j in zip([0, *edges], [*edges, len(text)], strict=True)]


def read_along(pieces: list[str], *, appended: bool) -> Iterator[tuple[str, str]]:
    """(what the reader says, what the reference says) after each piece."""
    reader = JsonReplyReader()
    text = ""
    for piece in pieces:
        text += piece
        yield canon(reader.read(text, appended=appended)), canon(one_shot(text))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies(), st.lists(st.integers(0, 200), max_size=12), st.booleans())
@example('```json\n{"a": 1}\n```', [1, 2, 5, 6, 7, 14, 16], True)
@example("` \x0c{", [1, 3], True)
@example('```js{"a": 1}', [4, 5], False)
def test_every_prefix_reached_reads_as_the_whole_text_does(
    text: str, points: list[int], appended: bool
) -> None:
    for streamed, reference in read_along(cut(text, points), appended=appended):
        assert streamed == reference


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies())
def test_one_character_at_a_time_reads_every_prefix_right(text: str) -> None:
    for streamed, reference in read_along(list(text), appended=True):
        assert streamed == reference


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"a": [1, 2], "b": "x"}\n```\nAnything else?',
        'Here:\n```\n{"a": "``"}\n```',
        '{"a": "```"}',
        '```{"a": 1}```',
        "```json\n```\n{}",
        "```jsonx\n[1]",
        "``` \x0c{}```",
        '  `{"a": "x`y"}`  ',
        '{"a": 1}\n```json\n{"b": 2}\n```',
        '{"a": [1, 2}',
        "\\ud83d [1]",
    ],
)
def test_tricky_replies_read_right_at_every_prefix(text: str) -> None:
    for streamed, reference in read_along(list(text), appended=True):
        assert streamed == reference


def nesting(value: Any) -> int:
    """How deep ``[[[...]]]`` goes (-1 for `NO_VALUE`), without recursing."""
    depth = -1 if value is NO_VALUE else 0
    while isinstance(value, list):
        depth += 1
        value = value[0] if value else None
    return depth


def test_nesting_deeper_than_the_scan_goes_is_left_to_json_itself() -> None:
    # Near MAX_DEPTH the one-shot reading may give up early (json recurses into the open
    # brackets first, within what is left of the interpreter's stack); past it, both agree.
    text = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    reader = JsonReplyReader()
    for end in range(1, len(text) + 1):
        streamed = nesting(reader.read(text[:end], appended=True))
        if end <= MAX_DEPTH // 2:
            assert streamed == end
        elif end > MAX_DEPTH:
            assert streamed == nesting(one_shot(text[:end]))
    assert streamed in (-1, MAX_DEPTH + 1)  # json's own limit decides


def test_a_text_that_does_not_extend_the_last_one_starts_the_reading_over() -> None:
    reader = JsonReplyReader()
    assert reader.read('["a", "b') == ["a", "b"]
    assert reader.read('{"c": 1') == {"c": 1}
    assert reader.read('{"c": 12') == {"c": 12}
    assert reader.read("```json\n[") == []
    assert reader.read("nothing") is NO_VALUE
    assert reader.read("") is NO_VALUE


def test_an_unchanged_reply_gives_the_very_same_value() -> None:
    reader = JsonReplyReader()
    first = reader.read('{"a": [1, 2]', appended=True)
    assert first == {"a": [1, 2]}
    assert reader.read('{"a": [1, 2]\n  ', appended=True) is first
    assert reader.read('{"a": [1, 2]\n  ```', appended=True) is first
    assert reader.read('{"a": [1, 2]\n  ```,', appended=True) is not first


def test_json_null_is_a_value_and_no_json_is_not() -> None:
    assert JsonReplyReader().read("null") is None
    assert JsonReplyReader().read("nul") is NO_VALUE
    assert JsonReplyReader().read("```json\nnull\n```") is None
    assert repr(NO_VALUE) == "NO_VALUE"


# -- the parsers stream what they streamed when they re-read the whole reply ----------------


class RereadingJsonParser(JsonOutputParser):
    """`JsonOutputParser` as it was: every chunk re-reads the whole reply."""

    def _stream_reader(self) -> Callable[[Any], Any]:
        return BaseCumulativeTransformOutputParser._stream_reader(self)


class Reply(BaseModel):
    a: int
    b: list[str] = []


class RereadingPydanticParser(PydanticOutputParser[Reply]):
    """`PydanticOutputParser` as it was: every chunk re-reads the whole reply."""

    def _stream_reader(self) -> Callable[[Any], Any]:
        return BaseCumulativeTransformOutputParser._stream_reader(self)


def stream(parser: Any, pieces: list[Any]) -> list[Any]:
    """Every value streamed, as JSON text, then the error that ended the stream if any."""
    values: list[Any] = []
    try:
        for value in parser.transform(iter(pieces)):
            values.append(value.model_dump() if isinstance(value, BaseModel) else canon(value))
    except OutputParserException as exc:
        values.append(("error", str(exc)))
    return values


async def astream(parser: Any, pieces: list[Any]) -> list[Any]:
    """`stream` through `atransform`."""

    async def chunks() -> Any:
        for piece in pieces:
            yield piece

    values: list[Any] = []
    try:
        async for value in parser.atransform(chunks()):
            values.append(value.model_dump() if isinstance(value, BaseModel) else canon(value))
    except OutputParserException as exc:
        values.append(("error", str(exc)))
    return values


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies(), st.lists(st.integers(0, 200), max_size=12), st.booleans())
def test_json_parser_streams_the_values_it_streamed_when_rereading(
    text: str, points: list[int], as_messages: bool
) -> None:
    pieces: list[Any] = cut(text, points)
    if as_messages:
        pieces = [AIMessageChunk(p) for p in pieces]
    assert stream(JsonOutputParser(), pieces) == stream(RereadingJsonParser(), pieces)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(-5, 5),
    st.lists(st.text(max_size=4), max_size=3),
    st.sampled_from(["{}", "```json\n{}\n```", 'x```{}```, "a": 1', "null"]),
    st.lists(st.integers(0, 60), max_size=10),
)
def test_pydantic_parser_streams_the_instances_it_streamed_when_rereading(
    a: int, b: list[str], wrap: str, points: list[int]
) -> None:
    text = wrap.replace("{}", json.dumps({"a": a, "b": b}))
    pieces = cut(text, points)
    parser = PydanticOutputParser(pydantic_object=Reply)
    reference = RereadingPydanticParser(pydantic_object=Reply)
    assert stream(parser, pieces) == stream(reference, pieces)


async def test_the_async_twins_stream_the_same_values() -> None:
    text = 'Sure:\n```json\n{"a": 1, "b": ["x", "yz"]}\n```'
    pieces = cut(text, list(range(0, len(text), 3)))
    assert await astream(JsonOutputParser(), pieces) == stream(RereadingJsonParser(), pieces)
    parser = PydanticOutputParser(pydantic_object=Reply)
    reference = RereadingPydanticParser(pydantic_object=Reply)
    assert await astream(parser, pieces) == stream(reference, pieces)
    assert stream(reference, pieces) == [
        {"a": 1, "b": []},
        {"a": 1, "b": [""]},
        {"a": 1, "b": ["x"]},
        {"a": 1, "b": ["x", "y"]},
        {"a": 1, "b": ["x", "yz"]},
    ]


def test_message_chunks_whose_text_is_not_appended_are_read_right() -> None:
    # Content blocks with the same index join up: the text grows in the middle.
    pieces = [
        AIMessageChunk([{"type": "text", "text": '{"a": ', "index": 0}]),
        AIMessageChunk([{"type": "text", "text": "]", "index": 1}]),
        AIMessageChunk([{"type": "text", "text": "[1", "index": 0}]),
        AIMessageChunk([{"type": "text", "text": "}", "index": 1}]),
    ]
    assert stream(JsonOutputParser(), pieces) == [canon({}), canon({"a": [1]})]
    assert stream(JsonOutputParser(), pieces) == stream(RereadingJsonParser(), pieces)


class Shouting(JsonOutputParser):
    """A subclass that reads replies its own way is streamed through its own parse_result."""

    def parse_result(self, result: Any, *, partial: bool = False) -> Any:
        value = super().parse_result(result, partial=partial)
        return {k.upper(): v for k, v in value.items()} if isinstance(value, dict) else value


class Doubling(PydanticOutputParser[Reply]):
    def _validate(self, obj: Any) -> Reply:
        reply = super()._validate(obj)
        return Reply(a=reply.a * 2, b=reply.b)


def test_subclasses_that_read_their_own_way_are_streamed_their_way() -> None:
    pieces = ['{"a"', ": 1", ', "b": []}']
    assert stream(Shouting(), pieces) == [canon({}), canon({"A": 1}), canon({"A": 1, "B": []})]
    assert stream(Doubling(pydantic_object=Reply), pieces) == [{"a": 2, "b": []}]
