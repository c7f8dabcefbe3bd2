"""`parse_result` receives generations, as in LangChain: a `ChatGeneration` for a message, a
`Generation` for text, and their chunks for a cumulative parser's output so far."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import Field

import leanchain.outputs as outputs
from leanchain.errors import OutputParserException
from leanchain.language_models import ChatGeneration as ModelsChatGeneration
from leanchain.messages import AIMessage, AIMessageChunk, tool_call
from leanchain.output_parsers import (
    BaseCumulativeTransformOutputParser,
    BaseTransformOutputParser,
    JsonOutputParser,
)
from leanchain.outputs import (
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
    Generation,
    GenerationChunk,
    LLMResult,
)


class Recording(BaseTransformOutputParser[str]):
    """Upper-cases the text and records what parse_result was given."""

    seen: list[list[Generation]] = Field(default_factory=list)

    def parse(self, text: str) -> str:
        return text.upper()

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> str:
        self.seen.append(result)
        return super().parse_result(result, partial=partial)


def test_a_streamed_message_is_parsed_chunk_by_chunk_as_chat_generations() -> None:
    parser = Recording()
    chunks = [AIMessageChunk("ab"), AIMessageChunk("c")]
    assert list(parser.transform(iter(chunks))) == ["AB", "C"]
    assert parser.seen == [
        [ChatGeneration(message=AIMessageChunk("ab"))],
        [ChatGeneration(message=AIMessageChunk("c"))],
    ]
    assert [type(result[0]) for result in parser.seen] == [ChatGeneration, ChatGeneration]


def test_streamed_text_is_parsed_as_generations() -> None:
    parser = Recording()
    assert list(parser.transform(iter(["ab", "c"]))) == ["AB", "C"]
    assert parser.seen == [[Generation(text="ab")], [Generation(text="c")]]


def test_invoke_gives_a_generation_too() -> None:
    parser = Recording()
    assert parser.invoke(AIMessage("x")) == "X"
    assert parser.invoke("y") == "Y"
    assert parser.seen == [[ChatGeneration(message=AIMessage("x"))], [Generation(text="y")]]


def test_the_async_paths_give_generations() -> None:
    parser = Recording()

    async def pieces() -> AsyncIterator[AIMessageChunk]:
        yield AIMessageChunk("a")
        yield AIMessageChunk("b")

    async def run() -> tuple[list[str], str]:
        streamed = [value async for value in parser.atransform(pieces())]
        return streamed, await parser.ainvoke("z")

    assert asyncio.run(run()) == (["A", "B"], "Z")
    assert parser.seen == [
        [ChatGeneration(message=AIMessageChunk("a"))],
        [ChatGeneration(message=AIMessageChunk("b"))],
        [Generation(text="z")],
    ]


class LastToolCall(BaseCumulativeTransformOutputParser[Any]):
    """LangChain-style: reads the message of a ChatGeneration, refuses anything else."""

    def parse(self, text: str) -> Any:
        raise OutputParserException("needs a message")

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        generation = result[0]
        if not isinstance(generation, ChatGeneration):
            raise OutputParserException(f"needs a ChatGeneration, got {generation.type}")
        message = generation.message
        assert isinstance(message, AIMessage)
        calls = message.tool_calls
        return calls[-1]["args"] if calls else None


def test_a_cumulative_parser_gets_the_output_so_far_as_a_chat_generation_chunk() -> None:
    seen: list[Any] = []

    class Seeing(LastToolCall):
        def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
            seen.append((type(result[0]).__name__, result[0].text, partial))
            return super().parse_result(result, partial=partial)

    call = tool_call(name="f", args={"a": 1}, id="c1")
    chunks = [AIMessageChunk("he"), AIMessageChunk("llo", tool_calls=[call])]
    assert list(Seeing().transform(iter(chunks))) == [{"a": 1}]
    assert seen == [("ChatGenerationChunk", "he", True), ("ChatGenerationChunk", "hello", True)]
    with pytest.raises(
        OutputParserException, match=r"^needs a ChatGeneration, got GenerationChunk$"
    ):
        list(LastToolCall().transform(iter(["text"])))
    with pytest.raises(OutputParserException, match=r"^needs a ChatGeneration, got Generation$"):
        LastToolCall().invoke("text")


def test_a_json_parser_subclass_reads_generations() -> None:
    seen: list[str] = []

    class Spying(JsonOutputParser):
        def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
            seen.append(type(result[0]).__name__)
            return super().parse_result(result, partial=partial)

    assert list(Spying().transform(iter(['{"a": ', "1}"]))) == [{}, {"a": 1}]
    assert Spying().invoke(AIMessage('{"b": 2}')) == {"b": 2}
    assert seen == ["GenerationChunk", "GenerationChunk", "ChatGeneration"]


# -- the generation types ---------------------------------------------------------------------


def test_generations_and_their_chunks() -> None:
    reply = ChatGeneration(message=AIMessage("hi"), generation_info={"finish_reason": "stop"})
    assert (reply.text, reply.type, reply.generation_info) == (
        "hi",
        "ChatGeneration",
        {"finish_reason": "stop"},
    )
    assert isinstance(reply, Generation)
    assert ChatGeneration(AIMessage("hi")) == ChatGeneration(message=AIMessage("hi"))
    summed = ChatGenerationChunk(AIMessageChunk("a"), {"x": 1}) + ChatGenerationChunk(
        AIMessageChunk("b"), {"y": 2}
    )
    assert summed == ChatGenerationChunk(AIMessageChunk("ab"), {"x": 1, "y": 2})
    assert summed.text == "ab"
    pieces = [GenerationChunk("b"), GenerationChunk("c", {"k": 1})]
    assert GenerationChunk("a") + pieces == (GenerationChunk("abc", {"k": 1}))
    assert (Generation("t").type, GenerationChunk("t").type) == ("Generation", "GenerationChunk")
    with pytest.raises(
        TypeError, match=r'^unsupported operand type\(s\) for \+: "GenerationChunk"'
    ):
        GenerationChunk("a") + Generation("b")  # type: ignore[operator]


def test_the_chat_model_classes_are_the_same_objects() -> None:
    assert ModelsChatGeneration is ChatGeneration
    import leanchain.language_models as models

    assert (models.ChatResult, models.LLMResult, models.ChatGenerationChunk) == (
        ChatResult,
        LLMResult,
        ChatGenerationChunk,
    )


def test_outputs_all_is_exactly_the_public_names() -> None:
    public = {n for n in vars(outputs) if not n.startswith("_")} - {"annotations"}
    assert set(outputs.__all__) == public
    assert outputs.__all__ == sorted(outputs.__all__)
