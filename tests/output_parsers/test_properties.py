"""Properties: parsers are total, and streaming any chunking ends where one-shot parsing does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from leanchain.errors import OutputParserException
from leanchain.messages import AIMessageChunk
from leanchain.output_parsers import JsonOutputParser, PydanticOutputParser, StrOutputParser

JSONISH = st.text(alphabet='{}[]",:0123456789.-+eE truefalsnul\\`\n\tjson\u00e9\ud83d', max_size=60)
ANY_TEXT = st.one_of(st.text(max_size=80), JSONISH)

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def json_texts(draw: st.DrawFn) -> tuple[Any, str]:
    value = draw(JSON_VALUES)
    text = json.dumps(
        value,
        indent=draw(st.sampled_from([None, 2])),
        ensure_ascii=draw(st.booleans()),
    )
    wrap = draw(
        st.sampled_from(
            ["{}", "```json\n{}\n```", "```\n{}\n```", "  {}\n", "Sure:\n```json\n{}\n```"]
        )
    )
    return value, wrap.format(text) if wrap != "{}" else text


class Model(BaseModel):
    a: int
    b: list[str] = []


def outcome(parse: Any, text: Any) -> tuple[str, Any]:
    try:
        return "value", canon(parse(text))
    except OutputParserException as exc:
        return "error", str(exc)


def canon(value: Any) -> Any:
    """JSON values compared as JSON text, so that ``NaN`` equals ``NaN``."""
    return value if isinstance(value, BaseModel) else json.dumps(value)


def last_streamed(parser: Any, pieces: list[Any]) -> tuple[str, Any]:
    last: Any = None
    try:
        for value in parser.transform(iter(pieces)):
            last = value
        last = canon(last)
    except OutputParserException as exc:
        return "error", str(exc)
    return "value", last


def splits(text: str) -> Iterator[list[str]]:
    for i in range(len(text) + 1):
        yield [text[:i], text[i:]]


@settings(max_examples=400, deadline=None)
@given(ANY_TEXT)
@example("NaN")
@example("[-Infinity, 1e999]")
def test_json_parser_is_total(text: str) -> None:
    kind, value = outcome(JsonOutputParser().invoke, text)
    assert kind in ("value", "error")
    partial = JsonOutputParser().parse_result([text], partial=True)  # type: ignore[list-item]
    if kind == "value":
        assert canon(partial) == value


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_pydantic_parser_is_total(text: str) -> None:
    kind, value = outcome(PydanticOutputParser(pydantic_object=Model).invoke, text)
    assert kind == "error" or isinstance(value, Model)


@settings(max_examples=200, deadline=None)
@given(ANY_TEXT, st.lists(st.integers(0, 80), max_size=6))
def test_any_text_streams_to_the_one_shot_outcome(text: str, cuts: list[int]) -> None:
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[i:j] for i, j in zip([0, *points], [*points, len(text)], strict=True)]
    # A stream of "null" yields nothing: its last value is None, as one-shot parsing says.
    assert last_streamed(JsonOutputParser(), pieces) == outcome(JsonOutputParser().invoke, text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_texts())
def test_a_json_text_split_at_every_position_streams_to_its_value(case: tuple[Any, str]) -> None:
    value, text = case
    parser = JsonOutputParser()
    assert parser.invoke(text) == value
    for pieces in splits(text):
        assert last_streamed(parser, pieces) == ("value", canon(value))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_texts(), st.data())
def test_a_json_text_in_message_chunks_streams_to_its_value(
    case: tuple[Any, str], data: st.DataObject
) -> None:
    value, text = case
    sizes = data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=40))
    pieces: list[Any] = []
    start = 0
    for size in sizes:
        pieces.append(AIMessageChunk(text[start : start + size]))
        start += size
    pieces.append(AIMessageChunk(text[start:]))
    assert last_streamed(JsonOutputParser(), pieces) == ("value", canon(value))


@settings(max_examples=100, deadline=None)
@given(st.integers(), st.lists(st.text(max_size=5), max_size=3), st.integers(1, 7))
def test_pydantic_streams_to_the_one_shot_instance(a: int, b: list[str], step: int) -> None:
    text = json.dumps({"a": a, "b": b})
    pieces = [text[i : i + step] for i in range(0, len(text), step)]
    assert last_streamed(PydanticOutputParser(pydantic_object=Model), pieces) == (
        "value",
        Model(a=a, b=b),
    )


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=10), max_size=8))
def test_str_parser_streams_every_chunk_unchanged(pieces: list[str]) -> None:
    assert list(StrOutputParser().transform(iter(pieces))) == pieces
    assert "".join(StrOutputParser().transform(iter(AIMessageChunk(p) for p in pieces))) == "".join(
        pieces
    )
