"""`StrOutputParser` and `JsonOutputParser`: exact values, streams and errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, Field

from leanchain.errors import OutputParserException
from leanchain.language_models import FakeListChatModel
from leanchain.messages import AIMessage, AIMessageChunk
from leanchain.output_parsers import JsonOutputParser, StrOutputParser
from leanchain.prompts import ChatPromptTemplate


def chunks(*parts: Any) -> Iterator[Any]:
    yield from parts


# -- StrOutputParser -------------------------------------------------------------------------


def test_str_parser_returns_the_text() -> None:
    parser = StrOutputParser()
    assert parser.invoke("plain") == "plain"
    assert parser.invoke(AIMessage("from a message")) == "from a message"
    assert parser.invoke(AIMessage([{"type": "text", "text": "a"}, {"type": "image"}, "b"])) == (
        "ab"
    )
    assert parser.parse("x") == "x"


def test_str_parser_streams_chunk_texts() -> None:
    parser = StrOutputParser()
    assert list(parser.transform(chunks("a", "", "bc"))) == ["a", "", "bc"]
    assert list(parser.transform(chunks(AIMessageChunk("a"), AIMessageChunk("b")))) == ["a", "b"]


def test_str_parser_at_the_end_of_a_chain_streams_tokens() -> None:
    chain = (
        ChatPromptTemplate.from_messages([("human", "{q}")])
        | FakeListChatModel(responses=["ab"])
        | StrOutputParser()
    )
    assert list(chain.stream({"q": "x"})) == ["a", "b"]
    assert chain.invoke({"q": "x"}) == "ab"


async def test_str_parser_astream_through_a_chain() -> None:
    chain = FakeListChatModel(responses=["hey"]) | StrOutputParser()
    assert [c async for c in chain.astream("x")] == ["h", "e", "y"]


def test_str_parser_output_schema() -> None:
    assert StrOutputParser().get_output_jsonschema() == {
        "title": "StrOutputParserOutput",
        "type": "string",
    }


# -- JsonOutputParser ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "b": [true, null]}', {"a": 1, "b": [True, None]}),
        ('  {"a": 1}\n', {"a": 1}),
        ('```json\n{"a": "fenced"}\n```', {"a": "fenced"}),
        ('```\n{"a": "bare fence"}\n```', {"a": "bare fence"}),
        ('Here you go:\n```json\n{"a": 1}\n```\nAnything else?', {"a": 1}),
        ("[1, 2, 3]", [1, 2, 3]),
        ('"just a string"', "just a string"),
        ("42", 42),
        ("null", None),
        ('{"a": [1, 2', {"a": [1, 2]}),
        ('{"text": "line\nbreak"}', {"text": "line\nbreak"}),
        ('{"é": "ü"}', {"é": "ü"}),
    ],
)
def test_json_parser_values(text: str, expected: Any) -> None:
    assert JsonOutputParser().invoke(text) == expected
    assert JsonOutputParser().parse(text) == expected
    assert JsonOutputParser().invoke(AIMessage(text)) == expected


@pytest.mark.parametrize(
    "text", ["hello", "", "   ", "{bad json}", "[1 2]", '{"a": 1]', "```json\nnope\n```"]
)
def test_json_parser_rejects_text_without_json(text: str) -> None:
    with pytest.raises(OutputParserException) as info:
        JsonOutputParser().invoke(text)
    stripped = text.strip()
    assert str(info.value) == f"Invalid json output: {stripped}"
    assert info.value.llm_output == stripped
    assert info.value.send_to_llm is False
    assert isinstance(info.value, ValueError)


def test_json_parser_rejects_deep_nesting_as_a_parser_error() -> None:
    with pytest.raises(OutputParserException, match=r"^Invalid json output: \[\[\["):
        JsonOutputParser().invoke("[" * 100_000)


def test_json_parser_partial_parse_result() -> None:
    parser = JsonOutputParser()
    assert parser.parse_result(['{"a": "he'], partial=True) == {"a": "he"}  # type: ignore[list-item]
    assert parser.parse_result(["nothing"], partial=True) is None  # type: ignore[list-item]


def test_json_parser_streams_growing_objects() -> None:
    parser = JsonOutputParser()
    text = '{"name": "Ada", "langs": ["en", "fr"]}'
    assert list(parser.transform(chunks(*text))) == [
        {},
        {"name": ""},
        {"name": "A"},
        {"name": "Ad"},
        {"name": "Ada"},
        {"name": "Ada", "langs": []},
        {"name": "Ada", "langs": [""]},
        {"name": "Ada", "langs": ["e"]},
        {"name": "Ada", "langs": ["en"]},
        {"name": "Ada", "langs": ["en", ""]},
        {"name": "Ada", "langs": ["en", "f"]},
        {"name": "Ada", "langs": ["en", "fr"]},
    ]


def test_json_parser_streams_from_message_chunks_and_fences() -> None:
    parser = JsonOutputParser()
    pieces = ["```json\n", '{"a"', ": 1", "}\n", "```"]
    assert list(parser.transform(chunks(*(AIMessageChunk(p) for p in pieces)))) == [
        {},
        {"a": 1},
    ]


def test_json_parser_stream_of_invalid_output_raises_like_invoke() -> None:
    with pytest.raises(OutputParserException) as info:
        list(JsonOutputParser().transform(chunks("not ", "json")))
    assert str(info.value) == "Invalid json output: not json"


def test_json_parser_stream_ends_with_the_type_invoke_gives() -> None:
    streamed = list(JsonOutputParser().transform(chunks('{"p": 1', ".0}")))
    assert streamed == [{"p": 1}, {"p": 1.0}]
    assert [type(v["p"]) for v in streamed] == [int, float]
    assert list(JsonOutputParser().transform(chunks('{"p": 1', "}"))) == [{"p": 1}]


def test_json_parser_stream_of_null_yields_nothing() -> None:
    assert list(JsonOutputParser().transform(chunks("nu", "ll"))) == []


def test_json_parser_in_a_chain() -> None:
    chain = FakeListChatModel(responses=['{"a": [1, 22]}']) | JsonOutputParser()
    assert list(chain.stream("x")) == [
        {},
        {"a": []},
        {"a": [1]},
        {"a": [1, 2]},
        {"a": [1, 22]},
    ]
    assert chain.invoke("x") == {"a": [1, 22]}


async def test_json_parser_async() -> None:
    parser = JsonOutputParser()
    assert await parser.ainvoke('{"a": 1}') == {"a": 1}

    async def pieces() -> Any:
        for piece in ['{"a": ', "1}"]:
            yield piece

    assert [v async for v in parser.atransform(pieces())] == [{}, {"a": 1}]


class Person(BaseModel):
    """A person."""

    name: str = Field(description="their name")
    age: int


def test_json_format_instructions() -> None:
    assert JsonOutputParser().get_format_instructions() == "Return a JSON object."
    instructions = JsonOutputParser(pydantic_object=Person).get_format_instructions()
    assert instructions == (
        "Reply with a single JSON value that conforms to the JSON schema below, and nothing "
        "else: no comments, no explanation. You may wrap it in a ```json code fence.\n\n"
        "JSON schema:\n```json\n"
        '{"description": "A person.", "properties": {"name": {"description": "their name", '
        '"title": "Name", "type": "string"}, "age": {"title": "Age", "type": "integer"}}, '
        '"required": ["name", "age"]}\n```'
    )


def test_json_parser_with_a_model_still_returns_plain_json() -> None:
    parser = JsonOutputParser(pydantic_object=Person)
    assert parser.invoke('{"name": "x", "age": "not checked"}') == {
        "name": "x",
        "age": "not checked",
    }
    assert parser.OutputType is Person
    assert JsonOutputParser().OutputType is Any
    assert repr(parser) == "JsonOutputParser(pydantic_object=Person)"
    assert repr(JsonOutputParser()) == "JsonOutputParser()"
