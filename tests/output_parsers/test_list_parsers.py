"""The list parsers: LangChain's items, exact streams of one-item lists, linear time."""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage, AIMessageChunk
from leanchain.output_parsers import (
    CommaSeparatedListOutputParser,
    ListOutputParser,
    MarkdownListOutputParser,
    NumberedListOutputParser,
)
from leanchain.prompts import ChatPromptTemplate

COMMA = CommaSeparatedListOutputParser()
NUMBERED = NumberedListOutputParser()
MARKDOWN = MarkdownListOutputParser()


def langchain_comma(text: str) -> list[str]:
    """LangChain's CommaSeparatedListOutputParser.parse, word for word."""
    reader = csv.reader(io.StringIO(text), quotechar='"', delimiter=",", skipinitialspace=True)
    return [item for sublist in reader for item in sublist]


def langchain_numbered(text: str) -> list[str]:
    """LangChain's NumberedListOutputParser.parse (quadratic: small texts only)."""
    return re.findall(r"\d+\.\s([^\n]+)", text)


def langchain_markdown(text: str) -> list[str]:
    """LangChain's MarkdownListOutputParser.parse (quadratic: small texts only)."""
    return re.findall(r"^\s*[-*]\s([^\n]+)$", text, re.MULTILINE)


def streamed(parser: ListOutputParser, pieces: list[Any]) -> list[list[str]]:
    return list(parser.transform(iter(pieces)))


def cut(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


# -- comma-separated values ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("red, green, blue", ["red", "green", "blue"]),
        ("red,green,blue", ["red", "green", "blue"]),
        ("", []),
        ("one", ["one"]),
        (" a , b ", ["a ", "b "]),
        ("a,", ["a", ""]),
        ("a,,b", ["a", "", "b"]),
        (",", ["", ""]),
        ("a, b\nc, d\n", ["a", "b", "c", "d"]),
        ("a,\nb", ["a", "", "b"]),
        ("a\n\nb", ["a", "b"]),
        ("  ", [""]),
        ('"1,5 kg", 2 kg', ["1,5 kg", "2 kg"]),
        ('"say ""hi""", x', ['say "hi"', "x"]),
        ('"ab"cd, e', ["abcd", "e"]),
        ('a"b", c', ['a"b"', "c"]),
        ('x, "y\n z", w', ["x", "y\n z", "w"]),
        ('"open', ["open"]),
        ('"', [""]),
        ("a\r\nb", ["a", "b"]),
        ("a\rb", ["a", "b"]),
        ('"a\rb", c', ["a\rb", "c"]),
        ("a\x00b, c", ["a\x00b", "c"]),
    ],
)
def test_comma_values_as_langchain_reads_them(text: str, items: list[str]) -> None:
    assert COMMA.parse(text) == items
    assert COMMA.invoke(text) == items
    assert streamed(COMMA, list(text)) == [[item] for item in items]
    if "\r" not in text or "\r\n" in text:
        assert langchain_comma(text) == items  # where csv (no newline="") does not raise


def test_comma_value_longer_than_csvs_limit() -> None:
    big = "x" * 200_000
    text = f'a, "{big}""q", b'
    assert COMMA.parse(text) == ["a", big + '"q', "b"]
    with pytest.raises(csv.Error, match="field larger than field limit"):
        langchain_comma(text)
    assert streamed(COMMA, cut(text, [5, 100_000, 200_004, 200_005])) == [
        ["a"],
        [big + '"q'],
        ["b"],
    ]


def test_comma_stream_yields_each_value_when_its_comma_arrives() -> None:
    seen: list[str] = []

    def pieces() -> Iterator[str]:
        for piece in ["re", "d, gr", "een", ", ", "blue"]:
            seen.append(piece)
            yield piece

    got = [(items, len(seen)) for items in COMMA.transform(pieces())]
    assert got == [(["red"], 2), (["green"], 4), (["blue"], 5)]


def test_comma_format_instructions() -> None:
    assert COMMA.get_format_instructions() == (
        "Reply with the items as comma-separated values and nothing else, for example: "
        '`red, green, blue`. Put an item that contains a comma in double quotes: `"1,5 kg", '
        "2 kg`."
    )


# -- numbered lists --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("1. red\n2. green\n3. blue", ["red", "green", "blue"]),
        ("Here you go:\n\n1. red\n\n2. green\n", ["red", "green"]),
        ("Step 1. mix\nStep 2. bake", ["mix", "bake"]),
        ("1.  two spaces", [" two spaces"]),
        ("10. ten\n11. eleven", ["ten", "eleven"]),
        ("1.\nnext line", ["next line"]),
        ("1. \n2. b", ["b"]),
        ("1. a 2. b", ["a 2. b"]),
        ("weighs 1.5 kg", []),
        ("1.2. x", ["x"]),
        ("1. crlf\r\n2. b", ["crlf\r", "b"]),
        ("\u0661. arabic-indic digit", ["arabic-indic digit"]),
        ("1.\u00a0nbsp", ["nbsp"]),
        ("", []),
        ("no list here", []),
    ],
)
def test_numbered_items_as_langchain_finds_them(text: str, items: list[str]) -> None:
    assert NUMBERED.parse(text) == items
    assert langchain_numbered(text) == items
    assert streamed(NUMBERED, list(text)) == [[item] for item in items]


def test_numbered_stream_yields_each_item_when_its_line_ends() -> None:
    seen: list[str] = []

    def pieces() -> Iterator[str]:
        for piece in ["1", ". re", "d\n2", ".", " green", "\n", "3. blue"]:
            seen.append(piece)
            yield piece

    got = [(items, len(seen)) for items in NUMBERED.transform(pieces())]
    assert got == [(["red"], 3), (["green"], 6), (["blue"], 7)]


def test_numbered_format_instructions() -> None:
    assert NUMBERED.get_format_instructions() == (
        "Reply with a numbered list and nothing else, one item per line, for example:\n\n"
        "1. red\n2. green\n3. blue"
    )


# -- markdown lists --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("- red\n- green\n* blue", ["red", "green", "blue"]),
        ("Colours:\n\n  - red\n\t* green\n", ["red", "green"]),
        ("-  two spaces", [" two spaces"]),
        ("-\nnext line", ["next line"]),
        ("-\n- nested", ["- nested"]),
        ("- \n- b", ["b"]),
        ("-\n\n- b", ["b"]),
        ("-a\n- b", ["b"]),
        ("text - not an item\n- item", ["item"]),
        ("+ plus is not a bullet", []),
        ("- crlf\r\n- b", ["crlf\r", "b"]),
        ("\u2028- after a line separator", ["after a line separator"]),
        ("", []),
    ],
)
def test_markdown_items_as_langchain_finds_them(text: str, items: list[str]) -> None:
    assert MARKDOWN.parse(text) == items
    assert langchain_markdown(text) == items
    assert streamed(MARKDOWN, list(text)) == [[item] for item in items]


def test_markdown_format_instructions() -> None:
    assert MARKDOWN.get_format_instructions() == (
        "Reply with a markdown bullet list and nothing else, one item per line, for example:\n\n"
        "- red\n- green\n- blue"
    )


# -- in pipelines ----------------------------------------------------------------------------

PROMPT = ChatPromptTemplate.from_messages([("human", "List three {things}.")])


def test_prompt_model_comma_parser_pipeline() -> None:
    model = ScriptedChatModel(["red, green, blue", "red, green, blue"])
    chain = PROMPT | model | CommaSeparatedListOutputParser()
    assert chain.invoke({"things": "colours"}) == ["red", "green", "blue"]
    assert list(chain.stream({"things": "colours"})) == [["red"], ["green"], ["blue"]]


async def test_async_pipelines_stream_items() -> None:
    model = ScriptedChatModel(["1. red\n2. green", "- a\n- b\n", "1. red\n2. green"])
    numbered = PROMPT | model | NumberedListOutputParser()
    assert [c async for c in numbered.astream({"things": "colours"})] == [["red"], ["green"]]
    markdown = PROMPT | model | MarkdownListOutputParser()
    assert [c async for c in markdown.astream({"things": "letters"})] == [["a"], ["b"]]
    assert await numbered.ainvoke({"things": "colours"}) == ["red", "green"]


def test_message_chunks_with_content_blocks() -> None:
    pieces = [
        AIMessageChunk(content=[{"type": "text", "text": "a, b", "index": 0}]),
        AIMessageChunk(content=[{"type": "text", "text": ", c", "index": 0}]),
    ]
    assert streamed(COMMA, pieces) == [["a"], ["b"], ["c"]]
    assert COMMA.invoke(AIMessage("x, y")) == ["x", "y"]


def test_a_non_text_chunk_is_a_type_error() -> None:
    with pytest.raises(TypeError) as caught:
        streamed(COMMA, ["a, ", 3])
    assert str(caught.value) == (
        "CommaSeparatedListOutputParser expected a str or a message as input, got <class 'int'>"
    )


class Stripped(CommaSeparatedListOutputParser):
    """A user's subclass that reads differently."""

    def parse(self, text: str) -> list[str]:
        return [item.strip().upper() for item in text.split(";")]


class Lines(ListOutputParser):
    """A user's list parser that implements only `parse`."""

    def parse(self, text: str) -> list[str]:
        return text.splitlines()


async def test_a_subclass_that_only_parses_streams_its_own_items_at_the_end() -> None:
    assert streamed(Stripped(), ["a; b", ", c"]) == [["A"], ["B, C"]]
    assert streamed(Lines(), ["x\ny", "\nz"]) == [["x"], ["y"], ["z"]]

    async def pieces() -> AsyncIterator[str]:
        for piece in ["x\ny", "\nz"]:
            yield piece

    assert [c async for c in Lines().atransform(pieces())] == [["x"], ["y"], ["z"]]


# -- linear time (pitfalls §2A, CVE-2024-58340) ----------------------------------------------

MIB = 1 << 20


@pytest.mark.parametrize(
    ("parser", "text", "count"),
    [
        (NUMBERED, "1" * MIB, 0),
        (NUMBERED, "1." * (MIB // 2), 0),
        (NUMBERED, "1.\n" * (MIB // 3), MIB // 3 // 2),
        (MARKDOWN, "\n" * MIB, 0),
        (MARKDOWN, " \t\n" * (MIB // 3), 0),
        (MARKDOWN, "- \n" * (MIB // 3), 0),
        (COMMA, '"' * MIB, 1),
        (COMMA, " " * MIB, 1),
    ],
    ids=["digits", "1.", "1.newline", "newlines", "blank-lines", "empty-bullets", "quotes", "sp"],
)
def test_adversarial_megabyte_inputs_parse_and_stream(
    parser: ListOutputParser, text: str, count: int
) -> None:
    # LangChain's patterns take minutes on the first ones; the suite's timeout is the guard.
    items = parser.parse(text)
    assert len(items) == count
    assert [item for [item] in streamed(parser, cut(text, [1000, MIB // 2]))] == items


# -- properties ------------------------------------------------------------------------------

PLAIN_ITEMS = st.lists(
    st.text(st.characters(blacklist_characters=',"\r\n '), min_size=1, max_size=8),
    max_size=8,
)
LINE_ITEMS = st.lists(
    st.text(st.characters(blacklist_characters="\n\r"), max_size=8).map(lambda s: s + "x"),
    max_size=8,
)
CUTS = st.lists(st.integers(0, 200), max_size=6)


@given(items=PLAIN_ITEMS, cuts=CUTS, separator=st.sampled_from([", ", ",", ",\t", "\n"]))
def test_comma_any_items_any_chunking(items: list[str], cuts: list[int], separator: str) -> None:
    text = separator.join(items)
    pieces = cut(text, [c for c in cuts if c <= len(text)])
    # skipinitialspace drops spaces only: a tab after the comma stays with the item.
    expected = items[:1] + ["\t" + item for item in items[1:]] if separator == ",\t" else items
    assert COMMA.parse(text) == expected
    assert streamed(COMMA, pieces) == [[item] for item in expected]


@given(items=LINE_ITEMS, cuts=CUTS, style=st.sampled_from(["numbered", "markdown"]))
def test_line_lists_any_items_any_chunking(items: list[str], cuts: list[int], style: str) -> None:
    if style == "numbered":
        parser: ListOutputParser = NUMBERED
        text = "".join(f"{n}. {item}\n" for n, item in enumerate(items, start=1))
        expected = langchain_numbered(text)
    else:
        parser = MARKDOWN
        text = "Items:\n" + "".join(f"- {item}\n" for item in items)
        expected = langchain_markdown(text)
    pieces = cut(text, [c for c in cuts if c <= len(text)])
    assert parser.parse(text) == expected
    assert streamed(parser, pieces) == [[item] for item in expected]


LISTISH = st.text(
    st.sampled_from(list('0123456789.-* ,"\n\r\tab\u0661\u00a0\u2028\x1c')), max_size=40
)


@given(text=st.one_of(LISTISH, st.text(max_size=40)), cuts=CUTS)
@example(text='"a""', cuts=[3])
@example(text="1.\n- x", cuts=[2])
def test_any_text_parses_as_langchain_and_streams_the_same(text: str, cuts: list[int]) -> None:
    pieces = cut(text, [c for c in cuts if c <= len(text)])
    for parser, langchain in [
        (NUMBERED, langchain_numbered),
        (MARKDOWN, langchain_markdown),
        (COMMA, langchain_comma),
    ]:
        expected: list[str] | None
        try:
            expected = langchain(text)
        except csv.Error:  # a lone "\r": csv raises, leanchain ends the row there
            expected = langchain(text.replace("\r", "\n")) if '"' not in text else None
        items = parser.parse(text)
        if expected is not None:
            assert items == expected
        assert streamed(parser, pieces) == [[item] for item in items]
