"""The tool-call parsers: exact values, exact streams, exact errors, in pipelines too."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Callable
from typing import Any, assert_type

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, ValidationError

from leanchain.errors import OutputParserException
from leanchain.language_models import ChatGeneration, ScriptedChatModel
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    ToolCall,
    tool_call,
    tool_call_chunk,
)
from leanchain.output_parsers import (
    JsonOutputKeyToolsParser,
    JsonOutputToolsParser,
    PydanticToolsParser,
)
from leanchain.prompts import ChatPromptTemplate
from leanchain.runnables import Runnable


class Search(BaseModel):
    """Search the web."""

    query: str
    limit: int = 10


class Weather(BaseModel):
    """The weather in a city."""

    city: str


class Titled(BaseModel):
    """A model offered under its title."""

    model_config = ConfigDict(title="lookup")
    key: str


SEARCH = tool_call(name="Search", args={"query": "hot tea", "limit": 3}, id="call_1")
WEATHER = tool_call(name="Weather", args={"city": "Oslo"}, id="call_2")
TWO_CALLS = AIMessage("", tool_calls=[SEARCH, WEATHER])


def script(*replies: Any, chunking: Any = "words") -> ScriptedChatModel:
    return ScriptedChatModel(list(replies), chunking=chunking)


def two_calls() -> AIMessage:
    return ScriptedChatModel.tool_calls(
        ("Search", {"query": "hot tea", "limit": 3}), ("Weather", {"city": "Oslo"})
    )


# -- JsonOutputToolsParser -------------------------------------------------------------------


def test_json_tools_parser_returns_each_call_as_type_and_args() -> None:
    assert JsonOutputToolsParser().invoke(TWO_CALLS) == [
        {"args": {"query": "hot tea", "limit": 3}, "type": "Search"},
        {"args": {"city": "Oslo"}, "type": "Weather"},
    ]
    with_ids = JsonOutputToolsParser(return_id=True).invoke(TWO_CALLS)
    assert with_ids == [
        {"args": {"query": "hot tea", "limit": 3}, "id": "call_1", "type": "Search"},
        {"args": {"city": "Oslo"}, "id": "call_2", "type": "Weather"},
    ]
    assert [list(call) for call in with_ids] == [["args", "id", "type"]] * 2  # LangChain's order
    assert JsonOutputToolsParser(first_tool_only=True).invoke(TWO_CALLS) == {
        "args": {"query": "hot tea", "limit": 3},
        "type": "Search",
    }


def test_json_tools_parser_without_calls() -> None:
    text = AIMessage("Just text.")
    assert JsonOutputToolsParser().invoke(text) == []
    assert JsonOutputToolsParser(first_tool_only=True).invoke(text) is None
    assert JsonOutputToolsParser().invoke(HumanMessage("a human calls no tools")) == []


def test_openai_style_raw_calls_are_read_by_the_message() -> None:
    raw = {"id": "c7", "type": "function", "function": {"name": "Weather", "arguments": "{}"}}
    message = AIMessage("", additional_kwargs={"tool_calls": [raw]})
    assert JsonOutputToolsParser(return_id=True).invoke(message) == [
        {"args": {}, "id": "c7", "type": "Weather"}
    ]


def test_a_generation_is_read_through_its_message() -> None:
    parser = JsonOutputToolsParser(first_tool_only=True)
    assert parser.parse_result([ChatGeneration(message=TWO_CALLS)]) == {
        "args": {"query": "hot tea", "limit": 3},
        "type": "Search",
    }


def test_strict_is_accepted_and_changes_nothing() -> None:
    assert JsonOutputToolsParser(strict=True).invoke(TWO_CALLS) == JsonOutputToolsParser().invoke(
        TWO_CALLS
    )


NOT_A_MESSAGE = (
    "JsonOutputToolsParser reads the tool calls of a chat model's message (an AIMessage), got "
    "str: use it after a chat model that supports tool calling"
)


def test_text_is_not_a_message() -> None:
    parser = JsonOutputToolsParser()
    for attempt in (
        lambda: parser.invoke("some text"),
        lambda: parser.parse("some text"),
        lambda: list(parser.stream("some text")),
    ):
        with pytest.raises(OutputParserException) as caught:
            attempt()
        assert str(caught.value) == NOT_A_MESSAGE
        assert caught.value.llm_output == "some text"


def test_text_model_before_a_tools_parser_fails_clearly() -> None:
    chain = script("plain answer") | (lambda message: message.text) | PydanticToolsParser([Search])
    with pytest.raises(OutputParserException) as caught:
        chain.invoke("x")
    assert str(caught.value) == NOT_A_MESSAGE.replace(
        "JsonOutputToolsParser", "PydanticToolsParser"
    )


# -- invalid calls ---------------------------------------------------------------------------

CUT_ARGS = '{"query": "te'
CUT_ERROR = (
    "Tool call 'Search' (id 'c9'): expected its arguments to be a JSON object, got "
    '\'{"query": "te\' (the arguments were cut off before their JSON was complete: '
    "Unterminated string starting at: line 1 column 11 (char 10))"
)


def test_invalid_calls_raise_naming_each_call() -> None:
    message = AIMessage(
        "",
        tool_calls=[WEATHER],
        invalid_tool_calls=[
            {"name": "Search", "args": "[1, 2]", "id": "c8", "error": "not an object"},
            {"name": None, "args": None, "id": None, "error": None},
        ],
    )
    for parser in (
        JsonOutputToolsParser(),
        JsonOutputKeyToolsParser(key_name="Weather"),
        PydanticToolsParser(tools=[Weather]),
    ):
        with pytest.raises(OutputParserException) as caught:
            parser.invoke(message)
        assert str(caught.value) == (
            "Tool call 'Search' (id 'c8'): expected its arguments to be a JSON object, got "
            "'[1, 2]' (not an object)\n"
            "Tool call None (id None): expected its arguments to be a JSON object, got None"
        )
        assert caught.value.llm_output == "[1, 2]\n"


def test_long_arguments_are_cut_short_in_errors() -> None:
    broken = '{"text": "' + "x" * 5000
    message = AIMessage("", invalid_tool_calls=[{"name": "f", "args": broken, "id": "c"}])
    with pytest.raises(OutputParserException) as caught:
        JsonOutputToolsParser().invoke(message)
    assert str(caught.value) == (
        "Tool call 'f' (id 'c'): expected its arguments to be a JSON object, got "
        f"{broken[:1000]!r}... (5010 characters)"
    )
    assert caught.value.llm_output == broken
    long_args = {"query": 7, "padding": "y" * 2000}
    message = AIMessage("", tool_calls=[tool_call(name="Search", args=long_args, id="c")])
    with pytest.raises(OutputParserException) as caught:
        PydanticToolsParser([Search]).invoke(message)
    arguments = json.dumps(long_args)
    assert str(caught.value).startswith(
        f"Failed to parse Search from tool call 'Search' with arguments {arguments[:1000]!r}... "
        f"({len(arguments)} characters). Got: 1 validation error for Search"
    )
    assert caught.value.llm_output == arguments


def test_a_chunk_invoked_is_read_as_a_finished_reply() -> None:
    chunk = AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(name="Search", args=CUT_ARGS, id="c9", index=0)]
    )
    assert chunk.tool_calls[0]["args"] == {"query": "te"}  # what a stream reads so far
    with pytest.raises(OutputParserException) as caught:
        JsonOutputToolsParser().invoke(chunk)
    assert str(caught.value) == CUT_ERROR
    assert JsonOutputToolsParser().parse_result([chunk], partial=True) == [  # type: ignore[list-item]
        {"args": {"query": "te"}, "type": "Search"}
    ]


def test_a_stream_cut_inside_the_arguments_raises_at_its_end() -> None:
    pieces = [
        AIMessageChunk("", tool_call_chunks=[tool_call_chunk(name="Search", id="c9", index=0)]),
        AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args='{"query": ', index=0)]),
        AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args='"te', index=0)]),
        AIMessageChunk("", chunk_position="last"),
    ]
    got: list[Any] = []
    with pytest.raises(OutputParserException) as caught:
        got.extend(JsonOutputToolsParser().transform(iter(pieces)))
    assert got == [[{"args": {}, "type": "Search"}], [{"args": {"query": "te"}, "type": "Search"}]]
    assert str(caught.value) == CUT_ERROR  # raised by the last chunk, as invoke raises it


# -- JsonOutputKeyToolsParser ----------------------------------------------------------------


def test_key_parser_returns_the_arguments_of_that_tools_calls() -> None:
    message = AIMessage(
        "",
        tool_calls=[
            SEARCH,
            WEATHER,
            tool_call(name="Search", args={"query": "green tea"}, id="call_3"),
        ],
    )
    assert JsonOutputKeyToolsParser(key_name="Search").invoke(message) == [
        {"query": "hot tea", "limit": 3},
        {"query": "green tea"},
    ]
    assert JsonOutputKeyToolsParser("Search", return_id=True).invoke(message) == [
        {"args": {"query": "hot tea", "limit": 3}, "id": "call_1", "type": "Search"},
        {"args": {"query": "green tea"}, "id": "call_3", "type": "Search"},
    ]
    assert JsonOutputKeyToolsParser("Weather", first_tool_only=True).invoke(message) == {
        "city": "Oslo"
    }
    first_search = JsonOutputKeyToolsParser("Search", first_tool_only=True, return_id=True)
    assert first_search.invoke(message) == {
        "args": {"query": "hot tea", "limit": 3},
        "id": "call_1",
        "type": "Search",
    }
    assert JsonOutputKeyToolsParser("Other").invoke(message) == []
    assert JsonOutputKeyToolsParser("Other", first_tool_only=True).invoke(message) is None


def test_key_parser_streams_the_growing_arguments() -> None:
    chain = script(two_calls()).bind_tools([Search, Weather]) | JsonOutputKeyToolsParser(
        key_name="Search", first_tool_only=True
    )
    assert list(chain.stream("tea?")) == [
        {},
        {"query": "hot"},
        {"query": "hot "},
        {"query": "hot tea"},
        {"query": "hot tea", "limit": 3},
    ]


def test_key_name_must_be_a_string() -> None:
    with pytest.raises(TypeError) as caught:
        JsonOutputKeyToolsParser(key_name=Search)  # type: ignore[arg-type]
    assert str(caught.value) == (f"key_name must be a tool name (a str), got {Search!r}")


# -- PydanticToolsParser ---------------------------------------------------------------------


def test_pydantic_parser_validates_each_call() -> None:
    assert PydanticToolsParser(tools=[Search, Weather]).invoke(TWO_CALLS) == [
        Search(query="hot tea", limit=3),
        Weather(city="Oslo"),
    ]
    first = PydanticToolsParser(tools=[Search, Weather], first_tool_only=True)
    assert first.invoke(TWO_CALLS) == Search(query="hot tea", limit=3)
    assert first.invoke(AIMessage("no call")) is None
    assert PydanticToolsParser(tools=[Search]).invoke(AIMessage("no call")) == []


def test_a_model_is_named_by_its_title() -> None:
    message = AIMessage("", tool_calls=[tool_call(name="lookup", args={"key": "k"}, id="c")])
    assert PydanticToolsParser(tools=[Titled]).invoke(message) == [Titled(key="k")]


def test_unknown_tool() -> None:
    with pytest.raises(OutputParserException) as caught:
        PydanticToolsParser(tools=[Search, Titled]).invoke(TWO_CALLS)
    assert str(caught.value) == "Unknown tool type: 'Weather'. Available tools: Search, lookup"
    with pytest.raises(OutputParserException) as caught:
        PydanticToolsParser(tools=[]).invoke(TWO_CALLS)
    assert str(caught.value) == "Unknown tool type: 'Search'. Available tools: <no tools>"


def test_arguments_that_do_not_validate() -> None:
    message = AIMessage("", tool_calls=[tool_call(name="Search", args={"limit": "many"}, id="c")])
    with pytest.raises(ValidationError) as pydantic_error:
        Search.model_validate({"limit": "many"})
    with pytest.raises(OutputParserException) as caught:
        PydanticToolsParser(tools=[Search]).invoke(message)
    assert str(caught.value) == (
        "Failed to parse Search from tool call 'Search' with arguments "
        f'{{"limit": "many"}}. Got: {pydantic_error.value}'
    )
    assert caught.value.llm_output == '{"limit": "many"}'
    assert isinstance(caught.value.__cause__, ValidationError)
    assert isinstance(caught.value, ValueError)  # LangChain raised pydantic's (a ValueError)


def test_tools_must_be_pydantic_models() -> None:
    with pytest.raises(TypeError) as caught:
        PydanticToolsParser(tools=[Search, dict])  # type: ignore[list-item]
    assert str(caught.value) == (
        f"tools must be pydantic BaseModel subclasses, got <class 'dict'> in [{Search!r}, "
        "<class 'dict'>]"
    )
    with pytest.raises(TypeError) as caught:
        PydanticToolsParser(tools=Search)  # type: ignore[arg-type]
    assert str(caught.value) == f"tools must be a list of pydantic model classes, got {Search!r}"


def test_reprs() -> None:
    assert repr(JsonOutputToolsParser()) == "JsonOutputToolsParser()"
    assert repr(JsonOutputToolsParser(return_id=True)) == "JsonOutputToolsParser(return_id=True)"
    assert repr(JsonOutputKeyToolsParser("a", first_tool_only=True)) == (
        "JsonOutputKeyToolsParser(key_name='a', first_tool_only=True)"
    )
    assert repr(PydanticToolsParser(tools=[Search, Weather], strict=True)) == (
        "PydanticToolsParser(tools=[Search, Weather], strict=True)"
    )


# -- pipelines: model.bind_tools([...]) | parser ---------------------------------------------

PROMPT = ChatPromptTemplate.from_messages([("human", "{question}")])
STREAMED = [
    [],
    [Search(query="hot")],
    [Search(query="hot ")],
    [Search(query="hot tea")],
    [Search(query="hot tea", limit=3)],
    [Search(query="hot tea", limit=3), Weather(city="Oslo")],
]


def tools_chain(*replies: Any) -> Runnable[dict[str, Any], Any]:
    model = script(*replies)
    return (
        PROMPT | model.bind_tools([Search, Weather]) | PydanticToolsParser(tools=[Search, Weather])
    )


def test_pipeline_invoke_and_stream() -> None:
    chain = tools_chain(two_calls(), two_calls())
    assert chain.invoke({"question": "tea?"}) == STREAMED[-1]
    assert list(chain.stream({"question": "tea?"})) == STREAMED


async def test_pipeline_ainvoke_and_astream() -> None:
    chain = tools_chain(two_calls(), two_calls())
    assert await chain.ainvoke({"question": "tea?"}) == STREAMED[-1]
    assert [value async for value in chain.astream({"question": "tea?"})] == STREAMED


async def test_pipeline_stream_of_first_tool_only_and_of_a_text_reply() -> None:
    model = script(two_calls(), "No tools needed.", "No tools needed.")
    first = model.bind_tools([Search]) | PydanticToolsParser([Search], first_tool_only=True)
    assert [v async for v in first.astream("tea?")] == [
        Search(query="hot"),
        Search(query="hot "),
        Search(query="hot tea"),
        Search(query="hot tea", limit=3),
    ]
    assert list(first.stream("hi")) == []  # None is never streamed
    assert first.invoke("hi") is None


def test_pipeline_stream_with_ids() -> None:
    chain = script(two_calls(), chunking=12) | JsonOutputToolsParser(return_id=True)
    search = {"args": {"query": "hot tea", "limit": 3}, "id": "call_1", "type": "Search"}
    assert list(chain.stream("tea?")) == [  # pieces '{"query": "h', 'ot tea", "li', ...
        [{"args": {"query": "h"}, "id": "call_1", "type": "Search"}],
        [{"args": {"query": "hot tea"}, "id": "call_1", "type": "Search"}],
        [search],
        [search, {"args": {"city": "Os"}, "id": "call_2", "type": "Weather"}],
        [search, {"args": {"city": "Oslo"}, "id": "call_2", "type": "Weather"}],
    ]


def test_pipeline_stream_raises_what_invoke_raises() -> None:
    chain = script(
        ScriptedChatModel.tool_call("Search", {"limit": "many"}),
        ScriptedChatModel.tool_call("Search", {"limit": "many"}),
    ) | PydanticToolsParser([Search])
    with pytest.raises(OutputParserException) as invoked:
        chain.invoke("x")
    got: list[Any] = []
    with pytest.raises(OutputParserException) as streamed:
        got.extend(chain.stream("x"))
    assert got == [[]]
    assert str(streamed.value) == str(invoked.value)
    assert str(invoked.value).startswith(
        'Failed to parse Search from tool call \'Search\' with arguments {"limit": "many"}. Got: '
    )


def test_pipeline_types() -> None:
    chain = PROMPT | script().bind_tools([Search]) | PydanticToolsParser(tools=[Search])
    assert_type(chain, Runnable[dict[str, Any], Any])


# -- properties ------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)
ARGS = st.dictionaries(st.text(max_size=5), JSON_VALUES, max_size=4)


class Anything(BaseModel):
    """Any arguments, kept as extra fields."""

    model_config = ConfigDict(extra="allow")


def cutter(cuts: list[int]) -> Callable[[str], list[str]]:
    def split(text: str) -> list[str]:
        bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
        return [text[a:b] for a, b in itertools.pairwise(bounds)]

    return split


def assert_streams_end_where_invoke_does(parser: Any, reply: AIMessage, cuts: list[int]) -> None:
    model = ScriptedChatModel([reply, reply], chunking=cutter(cuts))
    chain = model | parser
    invoked = chain.invoke("x")
    values = list(chain.stream("x"))
    assert values[-1] == invoked
    assert all(a != b for a, b in itertools.pairwise(values))  # only changes are yielded


@given(args=ARGS, cuts=st.lists(st.integers(0, 60), max_size=8))
def test_any_arguments_any_chunking_json(args: dict[str, Any], cuts: list[int]) -> None:
    reply = ScriptedChatModel.tool_call("f", args, id="c1")
    assert_streams_end_where_invoke_does(JsonOutputToolsParser(return_id=True), reply, cuts)
    assert_streams_end_where_invoke_does(JsonOutputKeyToolsParser("f"), reply, cuts)
    assert JsonOutputKeyToolsParser("f", first_tool_only=True).invoke(reply) == args


@given(args=ARGS, cuts=st.lists(st.integers(0, 60), max_size=8))
def test_any_arguments_any_chunking_pydantic(args: dict[str, Any], cuts: list[int]) -> None:
    reply = ScriptedChatModel.tool_calls(("Anything", args), ("Anything", {"n": 1}))
    parser = PydanticToolsParser(tools=[Anything])
    assert_streams_end_where_invoke_does(parser, reply, cuts)
    assert parser.invoke(reply) == [Anything(**args), Anything(n=1)]


@given(
    first=ARGS,
    second=ARGS,
    order=st.lists(st.booleans(), max_size=40),
    cuts=st.lists(st.integers(0, 60), max_size=6),
)
def test_interleaved_calls_stream_to_the_summed_reply(
    first: dict[str, Any], second: dict[str, Any], order: list[bool], cuts: list[int]
) -> None:
    queues = [
        [
            tool_call_chunk(
                name=None if i else name, args=piece, id=None if i else name, index=index
            )
            for i, piece in enumerate(cutter(cuts)(json.dumps(args)))
        ]
        for index, (name, args) in enumerate([("a", first), ("b", second)])
    ]
    pieces: list[AIMessageChunk] = []
    for pick in itertools.chain(order, itertools.cycle([False, True])):
        if not any(queues):
            break
        queue = queues[pick] if queues[pick] else queues[not pick]
        pieces.append(AIMessageChunk("", tool_call_chunks=[queue.pop(0)]))
    pieces.append(AIMessageChunk("", chunk_position="last"))
    parser = JsonOutputToolsParser(return_id=True)
    values = list(parser.transform(iter(pieces)))
    whole = AIMessageChunk("") + pieces[0]
    for piece in pieces[1:]:
        whole = whole + piece
    expected: list[ToolCall] = [
        tool_call(name="a", args=first, id="a"),
        tool_call(name="b", args=second, id="b"),
    ]
    if order and order[0]:
        expected.reverse()  # calls are listed in the order their first pieces came
    assert (
        values[-1]
        == parser.invoke(whole)
        == [{"args": call["args"], "id": call["id"], "type": call["name"]} for call in expected]
    )


async def test_astream_of_chunks_matches_stream() -> None:
    pieces = [
        AIMessageChunk(
            "", tool_call_chunks=[tool_call_chunk(name="Weather", args='{"ci', index=0)]
        ),
        AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args='ty": "Os', index=0)]),
        AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args='lo"}', index=0)]),
        AIMessageChunk("", chunk_position="last"),
    ]

    async def agen() -> AsyncIterator[AIMessageChunk]:
        for piece in pieces:
            yield piece

    parser = PydanticToolsParser(tools=[Weather])
    expected = [[], [Weather(city="Os")], [Weather(city="Oslo")]]
    assert list(parser.transform(iter(pieces))) == expected
    assert [value async for value in parser.atransform(agen())] == expected
