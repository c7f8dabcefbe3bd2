"""ChatOpenAI replies: the exact AIMessage of an answer and the exact chunks of a stream."""

from __future__ import annotations

from typing import Any

import pytest
from providers_support import last_body, openai
from pydantic import BaseModel

from leanchain.callbacks import BaseCallbackHandler
from leanchain.messages import AIMessage, AIMessageChunk, invalid_tool_call, tool_call_chunk
from leanchain.providers import ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply, ScriptedToolCall, ScriptedUsage

META = {
    "model_provider": "openai",
    "model_name": "gpt-fake",
    "system_fingerprint": "fp_fake",
}
USAGE = {
    "input_tokens": 10,
    "output_tokens": 5,
    "total_tokens": 15,
    "input_token_details": {"audio": 0, "cache_read": 0},
    "output_token_details": {"audio": 0, "reasoning": 0},
}
PARIS = ScriptedToolCall("get_weather", {"city": "Paris"}, id="call_A")
TOKYO = ScriptedToolCall("get_weather", {"city": "Tokyo"}, id="call_B")


def test_text_answer(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    server.enqueue(ScriptedReply(text="Sunny, 21 C."))
    assert openai_model.invoke("Weather?") == AIMessage(
        "Sunny, 21 C.",
        response_metadata={**META, "finish_reason": "stop", "service_tier": "default"},
        id="chatcmpl-fake1",
        usage_metadata=USAGE,
    )


def test_usage_details_cache_and_reasoning(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    usage = ScriptedUsage(
        100, 40, cache_read_tokens=60, cache_creation_tokens=10, reasoning_tokens=30
    )
    server.enqueue(ScriptedReply(text="x", usage=usage))
    assert openai_model.invoke("hi").usage_metadata == {
        "input_tokens": 100,
        "output_tokens": 40,
        "total_tokens": 140,
        "input_token_details": {"audio": 0, "cache_read": 60, "cache_creation": 10},
        "output_token_details": {"audio": 0, "reasoning": 30},
    }


@pytest.mark.parametrize("reason", ["length", "content_filter"])
def test_finish_reason(server: FakeProviderServer, openai_model: ChatOpenAI, reason: Any) -> None:
    server.enqueue(ScriptedReply(text="cut", finish_reason=reason))
    assert openai_model.invoke("hi").response_metadata["finish_reason"] == reason


def test_parallel_tool_calls_answer(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    server.enqueue(ScriptedReply(tool_calls=[PARIS, TOKYO]))
    message = openai_model.invoke("Weather in Paris and Tokyo?")
    assert message == AIMessage(
        "",
        response_metadata={**META, "finish_reason": "tool_calls", "service_tier": "default"},
        id="chatcmpl-fake1",
        tool_calls=[
            {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_A"},
            {"name": "get_weather", "args": {"city": "Tokyo"}, "id": "call_B"},
        ],
        usage_metadata=USAGE,
    )


def test_malformed_tool_json_becomes_an_invalid_tool_call(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(
        ScriptedReply(
            tool_calls=[
                PARIS,
                ScriptedToolCall("get_weather", '{"city": "Tok', id="call_B"),
                ScriptedToolCall("get_weather", "[1, 2]", id="call_C"),
            ]
        )
    )
    message = openai_model.invoke("hi")
    assert message.tool_calls == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_A", "type": "tool_call"}
    ]
    assert message.invalid_tool_calls == [
        invalid_tool_call(
            name="get_weather",
            args='{"city": "Tok',
            id="call_B",
            error="the arguments were cut off before their JSON was complete: "
            "Unterminated string starting at: line 1 column 10 (char 9)",
        ),
        invalid_tool_call(
            name="get_weather", args="[1, 2]", id="call_C", error="expected a JSON object, got list"
        ),
    ]


def test_text_stream_chunks(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    server.enqueue(ScriptedReply(text="Sunny, 21 C.", chunk_size=5))
    chunks = list(openai_model.stream("Weather?"))
    assert chunks == [
        AIMessageChunk("Sunny", id="chatcmpl-fake1"),
        AIMessageChunk(", 21 ", id="chatcmpl-fake1"),
        AIMessageChunk("C.", id="chatcmpl-fake1"),
        AIMessageChunk(
            "",
            response_metadata={**META, "finish_reason": "stop"},
            id="chatcmpl-fake1",
            usage_metadata=USAGE,
            chunk_position="last",
        ),
    ]


def test_tool_call_stream_chunks_by_index(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text="Hm", tool_calls=[PARIS, TOKYO], chunk_size=9))
    chunks = list(openai_model.stream("hi"))
    pieces = [chunk.tool_call_chunks for chunk in chunks]
    assert [chunk.content for chunk in chunks] == ["Hm", "", "", "", "", "", "", ""]
    assert pieces == [
        [],
        [tool_call_chunk(name="get_weather", args="", id="call_A", index=0)],
        [tool_call_chunk(args='{"city": ', index=0)],
        [tool_call_chunk(args='"Paris"}', index=0)],
        [tool_call_chunk(name="get_weather", args="", id="call_B", index=1)],
        [tool_call_chunk(args='{"city": ', index=1)],
        [tool_call_chunk(args='"Tokyo"}', index=1)],
        [],
    ]
    whole = chunks[0] + chunks[1:]
    assert whole.tool_calls == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_A", "type": "tool_call"},
        {"name": "get_weather", "args": {"city": "Tokyo"}, "id": "call_B", "type": "tool_call"},
    ]
    assert whole.response_metadata == {**META, "finish_reason": "tool_calls"}


def test_streamed_reply_adds_up_to_the_invoked_one(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    reply = ScriptedReply(text="Let me check.", tool_calls=[PARIS, TOKYO], chunk_size=3)
    server.enqueue(reply, reply)
    invoked = openai_model.invoke("hi")
    chunks = list(openai_model.stream("hi"))
    whole = chunks[0] + chunks[1:]
    assert whole.content == invoked.content
    assert whole.tool_calls == invoked.tool_calls
    assert whole.usage_metadata == invoked.usage_metadata
    # The fake server, like the API, names the service tier in whole answers only.
    expected = {k: v for k, v in invoked.response_metadata.items() if k != "service_tier"}
    assert whole.response_metadata == expected


def test_stream_without_usage_chunk(server: FakeProviderServer) -> None:
    model = openai(server, model="m", stream_usage=False)
    server.enqueue(ScriptedReply(text="ok"))
    assert list(model.stream("hi"))[-1] == AIMessageChunk(
        "",
        response_metadata={
            "model_provider": "openai",
            "model_name": "m",
            "finish_reason": "stop",
            "system_fingerprint": "fp_fake",
        },
        id="chatcmpl-fake1",
        chunk_position="last",
    )


async def test_async_invoke_and_stream(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text="one"), ScriptedReply(text="two words", chunk_size=4))
    assert (await openai_model.ainvoke("hi")).content == "one"
    chunks = [chunk async for chunk in openai_model.astream("hi")]
    assert [chunk.content for chunk in chunks] == ["two ", "word", "s", ""]
    assert chunks[-1].chunk_position == "last"
    assert chunks[-1].usage_metadata == USAGE


async def test_async_client_is_made_once_per_event_loop(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text="a"), ScriptedReply(text="b"))
    await openai_model.ainvoke("hi")
    client = openai_model._async_client()
    await openai_model.ainvoke("hi")
    assert openai_model._async_client() is client
    assert openai_model._pool.loop_count() == 1


def test_sync_client_is_made_once(server: FakeProviderServer, openai_model: ChatOpenAI) -> None:
    server.enqueue(ScriptedReply(text="a"), ScriptedReply(text="b"))
    openai_model.invoke("hi")
    client = openai_model._sync_client()
    openai_model.invoke("hi")
    assert openai_model._sync_client() is client


class Tokens(BaseCallbackHandler):
    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.ends = 0

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.tokens.append(token)

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.ends += 1


def test_callbacks_see_every_streamed_token(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    server.enqueue(ScriptedReply(text="abcdefgh", chunk_size=3))
    handler = Tokens()
    list(openai_model.stream("hi", config={"callbacks": [handler]}))
    assert handler.tokens == ["abc", "def", "gh", ""]
    assert handler.ends == 1


def test_with_structured_output_forces_the_tool(
    server: FakeProviderServer, openai_model: ChatOpenAI
) -> None:
    class Weather(BaseModel):
        """Weather report."""

        city: str
        celsius: int

    server.enqueue(
        ScriptedReply(tool_calls=[ScriptedToolCall("Weather", {"city": "Paris", "celsius": 21})])
    )
    result = openai_model.with_structured_output(Weather).invoke("Weather in Paris?")
    assert result == Weather(city="Paris", celsius=21)
    assert last_body(server)["tool_choice"] == {"type": "function", "function": {"name": "Weather"}}
    assert last_body(server)["parallel_tool_calls"] is False
    assert [tool["function"]["name"] for tool in last_body(server)["tools"]] == ["Weather"]
