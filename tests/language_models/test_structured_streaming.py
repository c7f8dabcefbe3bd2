"""Streaming with_structured_output: the exact partial values a forced tool call yields as its
arguments stream, sync and async, and the stream's end: the value invoke returns, or its error."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from leanchain.callbacks.manager import RunManager
from leanchain.errors import OutputParserException
from leanchain.language_models import (
    BaseChatModel,
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
    LanguageModelInput,
    ScriptedChatModel,
)
from leanchain.language_models._structured import ToolCallOutputParser
from leanchain.language_models._structured_stream import StructuredToolCallParser
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    message_chunk_to_message,
    tool_call_chunk,
)
from leanchain.runnables import Runnable
from leanchain.tools import ToolLike


class Person(BaseModel):
    """A person."""

    name: str
    age: int


class Movie(BaseModel):
    """A movie; only the title is required."""

    title: str
    year: int | None = None


class Short(BaseModel):
    """A name of at most three characters."""

    name: str = Field(max_length=3)


class PersonDict(TypedDict):
    """A person, as a dict."""

    name: str
    age: int


PERSON_SCHEMA: dict[str, Any] = {
    "title": "Person",
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}
ANN = {"name": "Ann Lee", "age": 30}


def cutter(cuts: Sequence[int]) -> Callable[[str], list[str]]:
    """Cut text at the given offsets (those past its end are ignored)."""

    def split(text: str) -> list[str]:
        bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
        return [text[a:b] for a, b in itertools.pairwise(bounds)]

    return split


def structured(
    schema: Any, reply: AIMessage, *, chunking: Any = "words", times: int = 2
) -> Runnable[LanguageModelInput, Any]:
    model = ScriptedChatModel([reply] * times, chunking=chunking)
    return model.with_structured_output(schema)


async def both(chain: Runnable[LanguageModelInput, Any]) -> tuple[list[Any], list[Any]]:
    """The values of ``stream`` and of ``astream`` (the model must have two replies)."""
    return list(chain.stream("q")), [value async for value in chain.astream("q")]


class ChunksChatModel(BaseChatModel):
    """Streams exactly the chunks it is given (the base class marks the last one)."""

    def __init__(self, chunks: list[AIMessageChunk]) -> None:
        super().__init__()
        self.chunks = chunks

    @property
    def _llm_type(self) -> str:
        return "chunks"

    def bind_tools(
        self, tools: Sequence[ToolLike], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self._bind_openai_tools(tools, tool_choice, kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        whole = message_chunk_to_message(self.chunks[0] + self.chunks[1:])
        assert isinstance(whole, AIMessage)
        return ChatResult(generations=[ChatGeneration(message=whole)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self.chunks:
            yield ChatGenerationChunk(message=chunk)


def piece(args: str, *, name: str | None = None, index: int = 0) -> AIMessageChunk:
    return AIMessageChunk("", tool_call_chunks=[tool_call_chunk(name=name, args=args, index=index)])


# -- exact sequences -------------------------------------------------------------------------


async def test_json_schema_streams_growing_dicts() -> None:
    # Cut at whitespace: '{"name":', ' ', '"Ann', ' ', 'Lee",', ' ', '"age":', ' ', '30}'.
    chain = structured(PERSON_SCHEMA, ScriptedChatModel.tool_call("Person", ANN), times=3)
    expected = [{}, {"name": "Ann"}, {"name": "Ann "}, {"name": "Ann Lee"}, ANN]
    assert await both(chain) == (expected, expected)
    assert chain.invoke("q") == ANN


async def test_json_schema_streams_nested_values_char_by_char() -> None:
    args = {"tags": ["a b", 1.5, True, None], "n": {"x": -2}}
    schema = {"title": "labels", "type": "object", "properties": {"tags": {"type": "array"}}}
    chain = structured(schema, ScriptedChatModel.tool_call("labels", args), chunking="chars")
    expected = [
        {},
        {"tags": []},
        {"tags": [""]},
        {"tags": ["a"]},
        {"tags": ["a "]},
        {"tags": ["a b"]},
        {"tags": ["a b", 1]},
        {"tags": ["a b", 1.5]},
        {"tags": ["a b", 1.5, True]},
        {"tags": ["a b", 1.5, True, None]},
        {"tags": ["a b", 1.5, True, None], "n": {}},
        args,
    ]
    assert await both(chain) == (expected, expected)


async def test_typed_dict_streams_raw_dicts_and_ends_validated() -> None:
    # '{"name": "B' | 'o", "age": "4' | '"}': the partial "4" is not validated; the end is.
    reply = ScriptedChatModel.tool_call("PersonDict", {"name": "Bo", "age": "4"})
    chain = structured(PersonDict, reply, chunking=cutter([11, 24]), times=3)
    expected = [{"name": "B"}, {"name": "Bo", "age": "4"}, {"name": "Bo", "age": 4}]
    assert await both(chain) == (expected, expected)
    assert chain.invoke("q") == {"name": "Bo", "age": 4}


async def test_pydantic_streams_instances_once_the_arguments_validate() -> None:
    # Person needs both fields: nothing is yielded until "age" has a value.
    chain = structured(Person, ScriptedChatModel.tool_call("Person", ANN), chunking="chars")
    expected = [Person(name="Ann Lee", age=3), Person(name="Ann Lee", age=30)]
    assert await both(chain) == (expected, expected)


async def test_pydantic_with_defaults_streams_growing_instances() -> None:
    reply = ScriptedChatModel.tool_call("Movie", {"title": "Up in the air", "year": 2009})
    chain = structured(Movie, reply, chunking=4)
    # '{"ti' 'tle"' ': "U' 'p in' ' the' ' air' '", "' 'year' '": 2' '009}'
    expected = [
        Movie(title="U"),
        Movie(title="Up in"),
        Movie(title="Up in the"),
        Movie(title="Up in the air"),
        Movie(title="Up in the air", year=2),
        Movie(title="Up in the air", year=2009),
    ]
    assert await both(chain) == (expected, expected)


async def test_only_the_schema_tools_first_call_streams() -> None:
    reply = ScriptedChatModel.tool_calls(
        ("Other", {"x": "ignored"}), ("Movie", {"title": "Heat"}), ("Movie", {"title": "Ran"})
    )
    chain = structured(Movie, reply)
    assert await both(chain) == ([Movie(title="Heat")], [Movie(title="Heat")])


async def test_text_before_the_call_is_not_a_value() -> None:
    reply = ScriptedChatModel.tool_call("Movie", {"title": "Heat"}, content="Here it is")
    chain = structured(Movie, reply, chunking=3)
    # '{"t' 'itl' 'e":' ' "H' 'eat' '"}'
    expected = [Movie(title="H"), Movie(title="Heat")]
    assert await both(chain) == (expected, expected)


async def test_interleaved_calls_stream_only_the_schema_tool() -> None:
    chunks = [
        piece('{"x": ', name="Other", index=0),
        piece('{"title": "Ju', name="Movie", index=1),
        piece('"abc"}', index=0),
        piece('ng", "year": 1', index=1),
        piece("969}", index=1),
    ]
    chain = ChunksChatModel(chunks).with_structured_output(Movie)
    expected = [Movie(title="Ju"), Movie(title="Jung", year=1), Movie(title="Jung", year=1969)]
    assert await both(chain) == (expected, expected)
    assert chain.invoke("q") == Movie(title="Jung", year=1969)


def test_include_raw_still_yields_once() -> None:
    reply = ScriptedChatModel.tool_call("Person", ANN, id="c1")
    chain = ScriptedChatModel([reply], chunking="chars").with_structured_output(
        Person, include_raw=True
    )
    [result] = list(chain.stream("q"))
    assert set(result) == {"raw", "parsed", "parsing_error"}
    assert result["parsed"] == Person(**ANN)
    assert result["parsing_error"] is None
    assert result["raw"].tool_calls == reply.tool_calls


def test_parser_events_keep_langchains_names() -> None:
    chain = structured(Movie, ScriptedChatModel.tool_call("Movie", {"title": "Heat"}), times=1)
    events = [
        (event["event"], event["name"], event["data"].get("chunk"))
        for event in chain.stream_events("q", version="v2")
        if event["event"].startswith("on_parser")
    ]
    assert events == [
        ("on_parser_start", "PydanticToolsParser", None),
        ("on_parser_stream", "PydanticToolsParser", Movie(title="Heat")),
        ("on_parser_end", "PydanticToolsParser", None),
    ]
    dict_chain = structured(PERSON_SCHEMA, ScriptedChatModel.tool_call("Person", ANN), times=1)
    names = {event["name"] for event in dict_chain.stream_events("q", version="v2")}
    assert "JsonOutputKeyToolsParser" in names


# -- the end of a stream: what invoke raises -------------------------------------------------


async def test_a_text_reply_raises_at_the_end_of_the_stream() -> None:
    chain = ScriptedChatModel(["I won't", "I won't"]).with_structured_output(Person)
    message = "Expected the model to call the tool 'Person', but it answered with text: \"I won't\""
    with pytest.raises(OutputParserException) as sync_error:
        list(chain.stream("q"))
    with pytest.raises(OutputParserException) as async_error:
        [value async for value in chain.astream("q")]
    assert str(sync_error.value) == str(async_error.value) == message
    assert sync_error.value.llm_output == async_error.value.llm_output == "I won't"


async def test_values_stream_before_an_error_at_the_end() -> None:
    # "Ann" fits max_length=3 while the name grows; the finished "Ann Lee" does not.
    chain = structured(Short, ScriptedChatModel.tool_call("Short", {"name": "Ann Lee"}), chunking=1)
    seen: list[Any] = []
    with pytest.raises(OutputParserException) as info:
        seen.extend(chain.stream("q"))
    assert seen == [Short(name=""), Short(name="A"), Short(name="An"), Short(name="Ann")]
    assert str(info.value).startswith(
        'Failed to parse Short from the arguments {"name": "Ann Lee"}: 1 validation error for Short'
    )
    seen.clear()
    with pytest.raises(OutputParserException, match=r"^Failed to parse Short from the argu"):
        await _drain(chain.astream("q"), seen)
    assert seen == [Short(name=""), Short(name="A"), Short(name="An"), Short(name="Ann")]


def test_a_typed_dict_that_does_not_validate_raises_after_its_partial_dicts() -> None:
    reply = ScriptedChatModel.tool_call("PersonDict", {"name": "Bo", "age": "old"})
    chain = structured(PersonDict, reply, times=1)
    seen: list[Any] = []
    with pytest.raises(OutputParserException) as info:
        seen.extend(chain.stream("q"))
    assert seen == [{}, {"name": "Bo"}]
    assert info.value.llm_output == '{"name": "Bo", "age": "old"}'


async def test_a_refusal_raises_at_the_end_of_the_stream() -> None:
    chunks = [
        AIMessageChunk("", additional_kwargs={"refusal": "I can"}),
        AIMessageChunk("", additional_kwargs={"refusal": "'t."}),
    ]
    chain = ChunksChatModel(chunks).with_structured_output(PersonDict)
    message = 'The model refused to answer with PersonDict: "I can\'t."'
    with pytest.raises(OutputParserException) as info:
        list(chain.stream("q"))
    assert (str(info.value), info.value.llm_output) == (message, "I can't.")
    with pytest.raises(OutputParserException, match=r"^The model refused to answer with Pers"):
        [value async for value in chain.astream("q")]


async def test_arguments_cut_off_raise_at_the_end_of_the_stream() -> None:
    chunks = [piece('{"title": "He', name="Movie"), piece("at")]
    chain = ChunksChatModel(chunks).with_structured_output(Movie)
    seen: list[Any] = []
    with pytest.raises(OutputParserException) as info:
        seen.extend(chain.stream("q"))
    assert seen == [Movie(title="He"), Movie(title="Heat")]
    assert str(info.value) == (
        "The model called 'Movie' with arguments that are not a JSON object: '{\"title\": \"Heat'"
    )
    # Chunks none of which is marked last are read as a finished reply once they end.
    reply = ToolCallOutputParser("Movie", Movie.model_validate)
    parser = StructuredToolCallParser(reply, partial_instances=True)
    seen.clear()
    with pytest.raises(OutputParserException, match=r"^The model called 'Movie' with arg"):
        await _drain(parser.atransform(_aiter(chunks)), seen)
    assert seen == [Movie(title="He"), Movie(title="Heat")]


async def _drain(values: AsyncIterator[Any], into: list[Any]) -> None:
    async for value in values:
        into.append(value)


async def _aiter(items: Sequence[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


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


class Loose(TypedDict, total=False):
    """One optional key of any value (other keys are dropped by validation)."""

    a: Any


ANY_SCHEMA: dict[str, Any] = {"title": "Anything", "type": "object"}


@given(args=ARGS, cuts=st.lists(st.integers(0, 60), max_size=8))
def test_any_arguments_any_chunking_end_where_invoke_does(
    args: dict[str, Any], cuts: list[int]
) -> None:
    expected_values = {
        "json schema": (ANY_SCHEMA, args),
        "pydantic": (Anything, Anything.model_validate(args)),
        "typed dict": (Loose, {"a": args["a"]} if "a" in args else {}),
    }
    for schema, expected in expected_values.values():
        name = "Loose" if schema is Loose else "Anything"
        reply = ScriptedChatModel.tool_call(name, args, id="c1")
        chain = structured(schema, reply, chunking=cutter(cuts), times=3)
        assert chain.invoke("q") == expected
        values = list(chain.stream("q"))
        assert values[-1] == expected
        assert all(a != b for a, b in itertools.pairwise(values))  # only changes are yielded
        assert asyncio.run(_collect(chain.astream("q"))) == values


async def _collect(values: AsyncIterator[Any]) -> list[Any]:
    return [value async for value in values]
