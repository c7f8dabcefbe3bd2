"""The parser bases: inputs, `parse_result`, streaming modes, callbacks and types."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any
from uuid import UUID

import pytest

from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import OutputParserException
from leanchain.language_models import ChatGeneration
from leanchain.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from leanchain.output_parsers import (
    BaseCumulativeTransformOutputParser,
    BaseOutputParser,
    BaseTransformOutputParser,
    StrOutputParser,
    generation_message,
    generation_text,
)
from leanchain.runnables import RunnableGenerator


class Upper(BaseOutputParser[str]):
    """Upper-cases the text; refuses text that says so."""

    def parse(self, text: str) -> str:
        if text == "refuse":
            raise OutputParserException("refused", llm_output=text)
        return text.upper()


class UpperChunks(BaseTransformOutputParser[str]):
    def parse(self, text: str) -> str:
        return text.upper()


class Lengths(BaseCumulativeTransformOutputParser[int]):
    """The length of the output so far, counted in words; ``None`` until there is a word."""

    def parse_result(self, result: Sequence[Any], *, partial: bool = False) -> int:
        words = generation_text(result[0]).split()
        if not words:
            if partial:
                return None  # type: ignore[return-value]
            raise OutputParserException("no words")
        return len(words)

    def parse(self, text: str) -> int:
        return self.parse_result([text])


class MessageKind(BaseOutputParser[str]):
    """Reads the message, not just the text."""

    def parse_result(self, result: Sequence[Any], *, partial: bool = False) -> str:
        message = generation_message(result[0])
        return "text" if message is None else message.type

    def parse(self, text: str) -> str:
        return "text"


def chunks(*parts: Any) -> Iterator[Any]:
    yield from parts


async def achunks(*parts: Any) -> AsyncIterator[Any]:
    for part in parts:
        yield part


# -- inputs ----------------------------------------------------------------------------------


def test_invoke_with_text_and_messages() -> None:
    parser = Upper()
    assert parser.invoke("abc") == "ABC"
    assert parser.invoke(AIMessage("abc")) == "ABC"
    assert parser.invoke(AIMessageChunk("abc")) == "ABC"
    assert parser.invoke(AIMessage([{"type": "text", "text": "a"}, "b"])) == "AB"


def test_invoke_rejects_other_inputs() -> None:
    with pytest.raises(TypeError) as info:
        Upper().invoke({"text": "x"})  # type: ignore[arg-type]
    assert str(info.value) == "Upper expected a str or a message as input, got <class 'dict'>"


def test_parse_result_reads_the_first_output_of_any_shape() -> None:
    parser = Upper()
    assert parser.parse_result(["abc", "ignored"]) == "ABC"  # type: ignore[list-item]
    assert parser.parse_result([HumanMessage("abc")]) == "ABC"  # type: ignore[list-item]
    assert parser.parse_result([ChatGeneration(message=AIMessage("abc"))]) == "ABC"


def test_message_parsers_see_the_message() -> None:
    parser = MessageKind()
    assert parser.invoke(AIMessage("x")) == "ai"
    assert parser.invoke("x") == "text"
    assert parser.parse_result([ChatGeneration(message=HumanMessage("x"))]) == "human"


def test_generation_helpers() -> None:
    message = AIMessage("hi")
    assert generation_text("t") == "t"
    assert generation_text(message) == "hi"
    assert generation_text(ChatGeneration(message=message)) == "hi"
    assert generation_message(ChatGeneration(message=message)) is message
    assert generation_message(message) is message
    assert generation_message("t") is None
    with pytest.raises(TypeError) as info:
        generation_text(3)
    assert str(info.value) == "Expected a str, a message or a generation, got <class 'int'>"


def test_errors_propagate_unchanged() -> None:
    with pytest.raises(OutputParserException) as info:
        Upper().invoke("refuse")
    assert str(info.value) == "refused"
    assert info.value.llm_output == "refuse"


async def test_async_twins() -> None:
    parser = Upper()
    assert await parser.ainvoke("abc") == "ABC"
    assert await parser.ainvoke(AIMessage("abc")) == "ABC"
    assert await parser.aparse("abc") == "ABC"
    assert await parser.aparse_result(["abc"]) == "ABC"  # type: ignore[list-item]
    with pytest.raises(OutputParserException):
        await parser.ainvoke("refuse")


def test_parse_with_prompt_and_format_instructions() -> None:
    assert Upper().parse_with_prompt("abc", None) == "ABC"
    with pytest.raises(NotImplementedError):
        Upper().get_format_instructions()


# -- streaming modes -------------------------------------------------------------------------


def test_a_plain_parser_folds_its_input_then_parses_once() -> None:
    assert list(Upper().transform(chunks("ab", "c"))) == ["ABC"]
    assert list(Upper().transform(chunks(AIMessageChunk("ab"), AIMessageChunk("c")))) == ["ABC"]


def test_a_transform_parser_parses_each_chunk() -> None:
    assert list(UpperChunks().transform(chunks("ab", "c"))) == ["AB", "C"]
    assert list(UpperChunks().stream("abc")) == ["ABC"]


async def test_a_transform_parser_streams_asynchronously() -> None:
    assert [c async for c in UpperChunks().atransform(achunks("ab", "c"))] == ["AB", "C"]
    assert [c async for c in UpperChunks().astream("abc")] == ["ABC"]


def test_a_transform_parser_rejects_bad_chunks() -> None:
    with pytest.raises(TypeError, match=r"^UpperChunks expected a str or a message"):
        list(UpperChunks().transform(chunks("a", 3)))


def test_a_cumulative_parser_yields_each_new_value() -> None:
    parser = Lengths()
    assert list(parser.transform(chunks(" ", "one", " two", "", " three "))) == [1, 2, 3]
    assert list(parser.transform(chunks("a b", " c"))) == [2, 3]
    # "on" + "e" is still one word: nothing new to say
    assert list(parser.transform(chunks("on", "e", " x"))) == [1, 2]


def test_a_cumulative_parser_merges_message_chunks() -> None:
    parser = Lengths()
    assert list(parser.transform(chunks(AIMessageChunk("a"), AIMessageChunk(" b")))) == [1, 2]
    assert list(parser.transform(chunks("a", AIMessage(" b c")))) == [1, 3]


def test_a_cumulative_parser_ends_like_invoke_on_the_whole_output() -> None:
    with pytest.raises(OutputParserException, match=r"^no words$"):
        list(Lengths().transform(chunks(" ", "  ")))
    with pytest.raises(OutputParserException, match=r"^no words$"):
        Lengths().invoke("   ")
    assert list(Lengths().transform(chunks())) == []


async def test_a_cumulative_parser_streams_asynchronously() -> None:
    assert [v async for v in Lengths().atransform(achunks("a", " b", " c"))] == [1, 2, 3]
    with pytest.raises(OutputParserException):
        _ = [v async for v in Lengths().atransform(achunks(" "))]


def test_streaming_through_a_generator_step() -> None:
    def tokens(_: Iterator[Any]) -> Iterator[str]:
        yield from ["he", "llo", " world"]

    assert list((RunnableGenerator(tokens) | StrOutputParser()).stream(None)) == [
        "he",
        "llo",
        " world",
    ]
    assert (RunnableGenerator(tokens) | Lengths()).invoke(None) == 2


# -- callbacks and types ---------------------------------------------------------------------


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kw: Any) -> None:
        self.events.append(("start", (kw.get("name"), kw.get("run_type"), inputs)))

    def on_chain_stream(self, chunk: Any, *, run_id: UUID, **kw: Any) -> None:
        self.events.append(("stream", chunk))

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kw: Any) -> None:
        self.events.append(("end", outputs))

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kw: Any) -> None:
        self.events.append(("error", type(error).__name__))


def test_invoke_is_a_parser_run() -> None:
    recorder = Recorder()
    assert Upper().invoke("ab", {"callbacks": [recorder]}) == "AB"
    assert recorder.events == [("start", ("Upper", "parser", "ab")), ("end", "AB")]


def test_errors_are_reported_to_callbacks() -> None:
    recorder = Recorder()
    with pytest.raises(OutputParserException):
        Upper().invoke("refuse", {"callbacks": [recorder]})
    assert recorder.events == [
        ("start", ("Upper", "parser", "refuse")),
        ("error", "OutputParserException"),
    ]


def test_streams_are_parser_runs() -> None:
    recorder = Recorder()
    assert list(UpperChunks().transform(chunks("a", "b"), {"callbacks": [recorder]})) == ["A", "B"]
    assert recorder.events == [
        ("start", ("UpperChunks", "parser", "")),
        ("stream", "A"),
        ("stream", "B"),
        ("end", "AB"),
    ]


def test_output_types_come_from_the_generic_parameter() -> None:
    assert Upper().OutputType is str
    assert Lengths().OutputType is int
    assert StrOutputParser().OutputType is str
    assert Upper().InputType == str | BaseMessage


def test_repr() -> None:
    assert repr(Upper()) == "Upper()"
    assert repr(StrOutputParser()) == "StrOutputParser()"
