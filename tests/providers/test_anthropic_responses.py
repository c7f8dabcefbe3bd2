"""ChatAnthropic replies: the exact AIMessage of an answer and the exact chunks of a stream."""

from __future__ import annotations

from typing import Any

import pytest
from providers_support import anthropic, last_body
from pydantic import BaseModel

from leanchain.messages import AIMessage, AIMessageChunk, invalid_tool_call, tool_call_chunk
from leanchain.providers import ChatAnthropic
from leanchain.testing import FakeProviderServer, ScriptedReply, ScriptedToolCall, ScriptedUsage

META = {"model_provider": "anthropic", "model_name": "claude-fake"}
USAGE = {
    "input_tokens": 10,
    "output_tokens": 5,
    "total_tokens": 15,
    "input_token_details": {"cache_read": 0, "cache_creation": 0},
}
PARIS = ScriptedToolCall("get_weather", {"city": "Paris"}, id="toolu_A")
TOKYO = ScriptedToolCall("get_weather", {"city": "Tokyo"}, id="toolu_B")


def stop(reason: str, finish: str, sequence: str | None = None) -> dict[str, Any]:
    return {**META, "finish_reason": finish, "stop_reason": reason, "stop_sequence": sequence}


def test_text_answer(server: FakeProviderServer, anthropic_model: ChatAnthropic) -> None:
    server.enqueue(ScriptedReply(text="Sunny, 21 C."))
    assert anthropic_model.invoke("Weather?") == AIMessage(
        "Sunny, 21 C.",
        response_metadata=stop("end_turn", "stop"),
        id="msg_fake1",
        usage_metadata=USAGE,
    )


def test_usage_counts_cache_tokens_as_input(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    usage = ScriptedUsage(100, 40, cache_read_tokens=60, cache_creation_tokens=10)
    server.enqueue(ScriptedReply(text="x", usage=usage), ScriptedReply(text="x", usage=usage))
    expected = {
        "input_tokens": 100,
        "output_tokens": 40,
        "total_tokens": 140,
        "input_token_details": {"cache_read": 60, "cache_creation": 10},
    }
    assert anthropic_model.invoke("hi").usage_metadata == expected
    assert list(anthropic_model.stream("hi"))[-1].usage_metadata == expected


@pytest.mark.parametrize(
    ("reply", "metadata"),
    [
        (ScriptedReply(text="a", stop_sequence="END"), stop("stop_sequence", "stop", "END")),
        (ScriptedReply(text="a", finish_reason="length"), stop("max_tokens", "length")),
        (
            ScriptedReply(text="a", finish_reason="content_filter"),
            stop("refusal", "content_filter"),
        ),
        (ScriptedReply(tool_calls=[PARIS]), stop("tool_use", "tool_calls")),
    ],
)
def test_stop_reason_mapped(
    server: FakeProviderServer,
    anthropic_model: ChatAnthropic,
    reply: ScriptedReply,
    metadata: dict[str, Any],
) -> None:
    server.enqueue(reply, reply)
    assert anthropic_model.invoke("hi").response_metadata == metadata
    assert list(anthropic_model.stream("hi"))[-1].response_metadata == metadata


def test_text_and_parallel_tool_use_answer(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    server.enqueue(ScriptedReply(text="Let me check both cities.", tool_calls=[PARIS, TOKYO]))
    assert anthropic_model.invoke("hi") == AIMessage(
        "Let me check both cities.",
        response_metadata=stop("tool_use", "tool_calls"),
        id="msg_fake1",
        tool_calls=[
            {"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_A"},
            {"name": "get_weather", "args": {"city": "Tokyo"}, "id": "toolu_B"},
        ],
        usage_metadata=USAGE,
    )


def test_malformed_tool_input_becomes_an_invalid_tool_call(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    bad = ScriptedToolCall("get_weather", '{"city": Tokyo}', id="toolu_B")
    server.enqueue(ScriptedReply(tool_calls=[PARIS, bad]), ScriptedReply(tool_calls=[PARIS, bad]))
    message = anthropic_model.invoke("hi")
    broken = invalid_tool_call(
        name="get_weather",
        args='{"city": Tokyo}',
        id="toolu_B",
        error="Expecting value: line 1 column 10 (char 9)",
    )
    assert message.invalid_tool_calls == [broken]
    chunks = list(anthropic_model.stream("hi"))
    whole = chunks[0] + chunks[1:]
    assert whole.tool_calls == message.tool_calls
    assert whole.invalid_tool_calls == [broken]  # the sum of a stream is a finished reply


def test_text_stream_chunks(server: FakeProviderServer, anthropic_model: ChatAnthropic) -> None:
    server.enqueue(ScriptedReply(text="Sunny, 21 C.", chunk_size=5))
    assert list(anthropic_model.stream("Weather?")) == [
        AIMessageChunk("Sunny", id="msg_fake1"),
        AIMessageChunk(", 21 ", id="msg_fake1"),
        AIMessageChunk("C.", id="msg_fake1"),
        AIMessageChunk(
            "",
            response_metadata=stop("end_turn", "stop"),
            id="msg_fake1",
            usage_metadata=USAGE,
            chunk_position="last",
        ),
    ]


def test_tool_use_stream_chunks_numbered_by_call_not_block(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    server.enqueue(ScriptedReply(text="Hm", tool_calls=[PARIS, TOKYO], chunk_size=9))
    chunks = list(anthropic_model.stream("hi"))
    assert [chunk.content for chunk in chunks] == ["Hm", "", "", "", "", "", "", ""]
    assert [chunk.tool_call_chunks for chunk in chunks] == [
        [],
        [tool_call_chunk(name="get_weather", args="", id="toolu_A", index=0)],
        [tool_call_chunk(args='{"city": ', index=0)],
        [tool_call_chunk(args='"Paris"}', index=0)],
        [tool_call_chunk(name="get_weather", args="", id="toolu_B", index=1)],
        [tool_call_chunk(args='{"city": ', index=1)],
        [tool_call_chunk(args='"Tokyo"}', index=1)],
        [],
    ]
    whole = chunks[0] + chunks[1:]
    assert whole.tool_calls == [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_A", "type": "tool_call"},
        {"name": "get_weather", "args": {"city": "Tokyo"}, "id": "toolu_B", "type": "tool_call"},
    ]


def test_streamed_reply_adds_up_to_the_invoked_one(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    reply = ScriptedReply(text="Let me check.", tool_calls=[PARIS, TOKYO], chunk_size=3)
    server.enqueue(reply, reply)
    invoked = anthropic_model.invoke("hi")
    chunks = list(anthropic_model.stream("hi"))
    whole = chunks[0] + chunks[1:]
    assert (whole.content, whole.tool_calls, whole.usage_metadata, whole.response_metadata) == (
        invoked.content,
        invoked.tool_calls,
        invoked.usage_metadata,
        invoked.response_metadata,
    )


def test_stream_without_ping() -> None:
    with FakeProviderServer(anthropic_ping=False) as quiet:
        model = anthropic(quiet)
        quiet.enqueue(ScriptedReply(text="ok"))
        assert [chunk.content for chunk in model.stream("hi")] == ["ok", ""]
        model.close()


async def test_async_invoke_and_stream(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    server.enqueue(ScriptedReply(text="one"), ScriptedReply(text="two words", chunk_size=4))
    assert (await anthropic_model.ainvoke("hi")).content == "one"
    chunks = [chunk async for chunk in anthropic_model.astream("hi")]
    assert [chunk.content for chunk in chunks] == ["two ", "word", "s", ""]
    assert chunks[-1].usage_metadata == USAGE
    assert last_body(server)["stream"] is True


def test_with_structured_output_forces_the_tool(
    server: FakeProviderServer, anthropic_model: ChatAnthropic
) -> None:
    class Weather(BaseModel):
        """Weather report."""

        city: str
        celsius: int

    args = {"city": "Paris", "celsius": 21}
    server.enqueue(ScriptedReply(tool_calls=[ScriptedToolCall("Weather", args)]))
    result = anthropic_model.with_structured_output(Weather).invoke("Weather in Paris?")
    assert result == Weather(city="Paris", celsius=21)
    assert last_body(server)["tool_choice"] == {"type": "any"}
    assert [tool["name"] for tool in last_body(server)["tools"]] == ["Weather"]
