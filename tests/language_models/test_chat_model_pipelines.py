"""Chat models inside pipelines: tokens stream through `prompt | model | parser`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from chat_model_support import EchoModel

from leanchain.callbacks.manager import RunManager
from leanchain.language_models import (
    ChatGenerationChunk,
    FakeListChatModel,
    ScriptedChatModel,
)
from leanchain.messages import AIMessageChunk, BaseMessage, HumanMessage, SystemMessage
from leanchain.output_parsers import StrOutputParser
from leanchain.prompts import ChatPromptTemplate, PromptTemplate


def test_prompt_model_parser_streams_tokens() -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "be brief"), ("human", "{question}")])
    chain = prompt | FakeListChatModel(["ab"]) | StrOutputParser()
    assert list(chain.stream({"question": "hi"})) == ["a", "b"]


def test_prompt_scripted_model_parser_streams_words_and_records_messages() -> None:
    model = ScriptedChatModel(["Paris is sunny."])
    prompt = ChatPromptTemplate.from_messages([("system", "be brief"), ("human", "{question}")])
    chain = prompt | model | StrOutputParser()
    assert list(chain.stream({"question": "weather?"})) == ["Paris", " ", "is", " ", "sunny."]
    assert model.requests[0].messages == [SystemMessage("be brief"), HumanMessage("weather?")]


async def test_prompt_model_parser_astreams_tokens() -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "{question}")])
    chain = prompt | ScriptedChatModel(["a b"]) | StrOutputParser()
    assert [c async for c in chain.astream({"question": "q"})] == ["a", " ", "b"]


def test_string_prompt_feeds_a_chat_model() -> None:
    model = EchoModel()
    chain = PromptTemplate.from_template("Say {word}") | model | StrOutputParser()
    assert chain.invoke({"word": "hi"}) == "Say hi"
    assert model.calls[0][0] == [HumanMessage("Say hi")]


class ProgressModel(EchoModel):
    """Streams three chunks, noting how many it has produced."""

    __slots__ = ("produced",)

    def __init__(self) -> None:
        super().__init__()
        self.produced = 0

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for text in ("x", "y", "z"):
            self.produced += 1
            position = "last" if text == "z" else None
            yield ChatGenerationChunk(message=AIMessageChunk(content=text, chunk_position=position))


def test_tokens_reach_the_caller_while_the_model_is_still_answering() -> None:
    model = ProgressModel()
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    seen: list[tuple[str, int]] = []
    for text in (prompt | model | StrOutputParser()).stream({"q": "go"}):
        seen.append((text, model.produced))
    assert seen == [("x", 1), ("y", 2), ("z", 3)]
