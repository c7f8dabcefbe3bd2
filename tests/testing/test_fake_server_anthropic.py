"""The real anthropic SDK against FakeProviderServer: answers, named events, retries and faults."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any, cast

import anthropic
import httpx2
import pytest
from anthropic.types import (
    InputJSONDelta,
    Message,
    MessageParam,
    RawContentBlockDeltaEvent,
    RawContentBlockStartEvent,
    RawMessageDeltaEvent,
    RawMessageStartEvent,
    RawMessageStreamEvent,
    TextDelta,
    ToolUseBlock,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanchain.testing import (
    BrokenStream,
    FakeProviderServer,
    MidStreamError,
    ScriptedError,
    ScriptedReply,
    ScriptedToolCall,
    ScriptedUsage,
    StalledStream,
)

API_KEY = "sk-ant-test-secret-0123456789"
USER: list[MessageParam] = [{"role": "user", "content": "What is the weather?"}]
PARIS = ScriptedToolCall("get_weather", {"city": "Paris", "unit": "c"}, id="toolu_01AAA")
TOKYO = ScriptedToolCall("get_weather", {"city": "Tokyo"})


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as server:
        yield server


@pytest.fixture
def client(server: FakeProviderServer) -> Iterator[anthropic.Anthropic]:
    with anthropic.Anthropic(
        base_url=server.anthropic_base_url, api_key=API_KEY, max_retries=0
    ) as client:
        yield client


def create(client: anthropic.Anthropic) -> Message:
    return client.messages.create(model="claude-fake", max_tokens=64, messages=USER)


def events(client: anthropic.Anthropic) -> list[RawMessageStreamEvent]:
    with client.messages.create(
        model="claude-fake", max_tokens=64, messages=USER, stream=True
    ) as stream:
        return list(stream)


def text_of(received: list[RawMessageStreamEvent]) -> str:
    """The concatenated text_delta pieces of a stream."""
    return "".join(
        e.delta.text
        for e in received
        if isinstance(e, RawContentBlockDeltaEvent) and isinstance(e.delta, TextDelta)
    )


def json_fragments(received: list[RawMessageStreamEvent]) -> list[str]:
    """The input_json_delta fragments of a stream, in order."""
    return [
        e.delta.partial_json
        for e in received
        if isinstance(e, RawContentBlockDeltaEvent) and isinstance(e.delta, InputJSONDelta)
    ]


def test_text_and_tool_use_answer(server: FakeProviderServer, client: anthropic.Anthropic) -> None:
    server.enqueue(ScriptedReply(text="Let me check both cities.", tool_calls=[PARIS, TOKYO]))
    message = create(client)
    assert message.model_dump(exclude_none=True) == {
        "id": "msg_fake1",
        "type": "message",
        "role": "assistant",
        "model": "claude-fake",
        "content": [
            {"type": "text", "text": "Let me check both cities."},
            {
                "type": "tool_use",
                "id": "toolu_01AAA",
                "name": "get_weather",
                "input": {"city": "Paris", "unit": "c"},
            },
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {"city": "Tokyo"},
            },
        ],
        "stop_reason": "tool_use",
        "usage": {
            "input_tokens": 10,
            "output_tokens": 5,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": "standard",
        },
    }
    [recorded] = server.requests_for("anthropic")
    assert recorded.headers["authorization"] == "Bearer [REDACTED]"
    assert recorded.headers["anthropic-version"] == "2026-10-21"
    assert recorded.body == {"model": "claude-fake", "max_tokens": 64, "messages": USER}
    assert API_KEY not in repr(server.requests)


def test_stop_reasons_and_cache_usage(
    server: FakeProviderServer, client: anthropic.Anthropic
) -> None:
    usage = ScriptedUsage(100, 20, cache_read_tokens=30, cache_creation_tokens=10)
    server.enqueue(
        ScriptedReply(text="done END", stop_sequence="END", usage=usage),
        ScriptedReply(text="cut", finish_reason="length"),
        ScriptedReply(finish_reason="content_filter"),
        ScriptedReply(text="plain"),
    )
    first = create(client)
    assert (first.stop_reason, first.stop_sequence) == ("stop_sequence", "END")
    assert (
        first.usage.input_tokens,
        first.usage.cache_read_input_tokens,
        first.usage.cache_creation_input_tokens,
        first.usage.output_tokens,
    ) == (60, 30, 10, 20)
    assert [create(client).stop_reason for _ in range(3)] == ["max_tokens", "refusal", "end_turn"]


def test_malformed_arguments(server: FakeProviderServer, client: anthropic.Anthropic) -> None:
    broken = ScriptedToolCall("f", '{"city": "Par', id="toolu_X")
    server.enqueue(
        ScriptedReply(tool_calls=[broken]),
        ScriptedReply(tool_calls=[ScriptedToolCall("f", '{"ok": true}')]),
        ScriptedReply(tool_calls=[broken], chunk_size=6),
    )
    first, second = create(client).content[0], create(client).content[0]
    assert isinstance(first, ToolUseBlock)
    assert isinstance(second, ToolUseBlock)
    # The SDK passes a non-object input through unvalidated, although its type says dict.
    assert cast(object, first.input) == '{"city": "Par'
    assert second.input == {"ok": True}
    assert json_fragments(events(client)) == ["", '{"city', '": "Pa', "r"]


def test_stream_event_sequence(server: FakeProviderServer, client: anthropic.Anthropic) -> None:
    server.enqueue(
        ScriptedReply(
            text="Checking.", tool_calls=[PARIS], usage=ScriptedUsage(25, 61), chunk_size=5
        )
    )
    received = events(client)
    assert [e.type for e in received] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]  # the ping is dropped by the SDK
    start, tool_start, message_delta = received[0], received[5], received[-2]
    assert isinstance(start, RawMessageStartEvent)
    assert (start.message.usage.input_tokens, start.message.usage.output_tokens) == (25, 1)
    assert [e.delta.model_dump() for e in received if isinstance(e, RawContentBlockDeltaEvent)][
        :3
    ] == [
        {"type": "text_delta", "text": "Check"},
        {"type": "text_delta", "text": "ing."},
        {"type": "input_json_delta", "partial_json": ""},
    ]
    assert "".join(json_fragments(received)) == '{"city": "Paris", "unit": "c"}'
    assert isinstance(tool_start, RawContentBlockStartEvent)
    assert tool_start.content_block.model_dump(exclude_none=True) == {
        "type": "tool_use",
        "id": "toolu_01AAA",
        "name": "get_weather",
        "input": {},
    }
    assert [e.index for e in received if e.type == "content_block_stop"] == [0, 1]
    assert isinstance(message_delta, RawMessageDeltaEvent)
    assert (message_delta.delta.stop_reason, message_delta.usage.output_tokens) == ("tool_use", 61)


def test_stream_helper_builds_the_final_message(
    server: FakeProviderServer, client: anthropic.Anthropic
) -> None:
    server.enqueue(ScriptedReply(text="Both:", tool_calls=[PARIS, TOKYO], chunk_size=3))
    with client.messages.stream(model="claude-fake", max_tokens=64, messages=USER) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "Both:"
    assert [block.model_dump(exclude_none=True) for block in final.content] == [
        {"type": "text", "text": "Both:"},
        {
            "type": "tool_use",
            "id": "toolu_01AAA",
            "name": "get_weather",
            "input": {"city": "Paris", "unit": "c"},
        },
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Tokyo"}},
    ]
    assert (final.stop_reason, final.usage.output_tokens) == ("tool_use", 5)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.text(max_size=40),
    args=st.dictionaries(st.text(max_size=5), st.integers()),
    size=st.integers(1, 9),
)
def test_streamed_pieces_reassemble_exactly(
    client: anthropic.Anthropic,
    server: FakeProviderServer,
    text: str,
    args: dict[str, int],
    size: int,
) -> None:
    server.enqueue(
        ScriptedReply(text=text, tool_calls=[ScriptedToolCall("f", args)], chunk_size=size)
    )
    received = events(client)
    assert text_of(received) == text
    assert json.loads("".join(json_fragments(received))) == args


def test_429_then_529_are_retried(server: FakeProviderServer, client: anthropic.Anthropic) -> None:
    server.enqueue(
        ScriptedError(429, retry_after_ms=1),
        ScriptedError(529, retry_after=0.01),
        ScriptedReply(text="finally"),
    )
    message = create(client.with_options(max_retries=2))
    assert message.content[0].model_dump() == {"type": "text", "text": "finally", "citations": None}
    assert [r.retry_count for r in server.requests] == [0, 1, 2]


@pytest.mark.parametrize(
    ("error", "exc_type", "body_error"),
    [
        (
            ScriptedError(400, "max_tokens: Field required"),
            anthropic.BadRequestError,
            {"type": "invalid_request_error", "message": "max_tokens: Field required"},
        ),
        (
            ScriptedError(401),
            anthropic.AuthenticationError,
            {"type": "authentication_error", "message": "Invalid API key"},
        ),
        (
            ScriptedError(429),
            anthropic.RateLimitError,
            {"type": "rate_limit_error", "message": "Rate limit exceeded"},
        ),
        (
            ScriptedError(500),
            anthropic.InternalServerError,
            {"type": "api_error", "message": "Internal server error"},
        ),
        (
            ScriptedError(503),
            anthropic.ServiceUnavailableError,
            {"type": "api_error", "message": "Service unavailable"},
        ),
        (
            ScriptedError(529),
            anthropic.OverloadedError,
            {"type": "overloaded_error", "message": "Overloaded"},
        ),
        (
            ScriptedError(429, "Spend limit", code="enforced_spend_limit_reached"),
            anthropic.EnforcedSpendLimitReachedError,
            {
                "type": "rate_limit_error",
                "message": "Spend limit",
                "details": {"error_code": "enforced_spend_limit_reached"},
            },
        ),
    ],
)
def test_error_statuses_raise_the_sdk_classes(
    server: FakeProviderServer,
    client: anthropic.Anthropic,
    error: ScriptedError,
    exc_type: type[anthropic.APIStatusError],
    body_error: dict[str, Any],
) -> None:
    server.enqueue(error)
    with pytest.raises(exc_type) as info:
        create(client)
    assert type(info.value) is exc_type
    assert info.value.status_code == error.status
    assert info.value.body == {"type": "error", "error": body_error}
    assert info.value.request_id == "req_fake1"


def test_529_exhausts_the_retries(server: FakeProviderServer, client: anthropic.Anthropic) -> None:
    server.enqueue(*[ScriptedError(529, retry_after_ms=1)] * 2)
    with pytest.raises(anthropic.OverloadedError):
        create(client.with_options(max_retries=1))
    assert len(server.requests) == 2


def test_400_and_should_retry_false_are_not_retried(
    server: FakeProviderServer, client: anthropic.Anthropic
) -> None:
    server.enqueue(ScriptedError(400), ScriptedError(503, should_retry=False))
    retrying = client.with_options(max_retries=2)
    with pytest.raises(anthropic.BadRequestError):
        create(retrying)
    with pytest.raises(anthropic.ServiceUnavailableError):
        create(retrying)
    assert len(server.requests) == 2


def test_slow_answer_times_out(server: FakeProviderServer, client: anthropic.Anthropic) -> None:
    server.enqueue(ScriptedReply(text="too late", delay=30))
    with pytest.raises(anthropic.APITimeoutError):
        create(client.with_options(timeout=0.2))


def test_error_event_mid_stream(server: FakeProviderServer, client: anthropic.Anthropic) -> None:
    server.enqueue(MidStreamError(ScriptedReply(text="abcdefgh"), after_events=4))
    received: list[str] = []
    with (
        pytest.raises(anthropic.APIStatusError) as info,
        client.messages.create(
            model="claude-fake",
            max_tokens=64,
            messages=USER,
            stream=True,
        ) as stream,
    ):
        received.extend(event.type for event in stream)
    assert type(info.value) is anthropic.APIStatusError
    assert (info.value.status_code, info.value.type) == (200, "overloaded_error")
    assert info.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    assert received == ["message_start", "content_block_start", "content_block_delta"]


def transport_error(exc: BaseException) -> BaseException:
    """The raw httpx2 error under what the SDK raised mid-stream: anthropic < 2.17 lets it
    escape as it is, 2.17 and later wrap it (APIConnectionError, APITimeoutError) from it."""
    if isinstance(exc, anthropic.APIConnectionError):  # APITimeoutError is one too
        assert exc.__cause__ is not None
        return exc.__cause__
    return exc


def test_broken_stream_raises_while_iterating(
    server: FakeProviderServer, client: anthropic.Anthropic
) -> None:
    server.enqueue(BrokenStream(ScriptedReply(text="abcdefgh"), after_events=4))
    received: list[str] = []
    with (
        pytest.raises((httpx2.RemoteProtocolError, anthropic.APIConnectionError)) as info,
        client.messages.create(
            model="claude-fake",
            max_tokens=64,
            messages=USER,
            stream=True,
        ) as stream,
    ):
        received.extend(event.type for event in stream)
    assert type(transport_error(info.value)) is httpx2.RemoteProtocolError
    assert received == ["message_start", "content_block_start", "content_block_delta"]


def test_stalled_stream_ends_in_a_read_timeout(
    server: FakeProviderServer, client: anthropic.Anthropic
) -> None:
    server.enqueue(StalledStream(ScriptedReply(text="abcdefgh"), after_events=1))
    with pytest.raises((httpx2.ReadTimeout, anthropic.APITimeoutError)) as info:
        events(client.with_options(timeout=0.3))
    assert type(transport_error(info.value)) is httpx2.ReadTimeout


async def test_async_client_streams(server: FakeProviderServer) -> None:
    server.enqueue(ScriptedReply(text="async hello", tool_calls=[TOKYO]))
    async with anthropic.AsyncAnthropic(
        base_url=server.anthropic_base_url, api_key=API_KEY, max_retries=0
    ) as client:
        stream = await client.messages.create(
            model="claude-fake", max_tokens=64, messages=USER, stream=True
        )
        async with stream:
            received = [event async for event in stream]
    assert text_of(received) == "async hello"
    assert "".join(json_fragments(received)) == '{"city": "Tokyo"}'


def test_a_mid_stream_error_code_is_sent_in_its_details(
    server: FakeProviderServer, client: anthropic.Anthropic
) -> None:
    fault = MidStreamError(
        ScriptedReply(text="abcdefgh"), after_events=4, error_type="throttling_error", code="429"
    )
    server.enqueue(fault)
    with (
        pytest.raises(anthropic.APIStatusError) as info,
        client.messages.create(
            model="claude-fake", max_tokens=64, messages=USER, stream=True
        ) as stream,
    ):
        list(stream)
    assert info.value.body == {
        "type": "error",
        "error": {
            "type": "throttling_error",
            "message": "Overloaded",
            "details": {"error_code": "429"},
        },
    }


def test_a_reused_message_id_and_tool_use_id(
    server: FakeProviderServer, client: anthropic.Anthropic
) -> None:
    call = ScriptedToolCall("get_weather", {"city": "Paris"}, id="toolu_mock")
    server.enqueue(*[ScriptedReply(tool_calls=[call], response_id="msg_mock")] * 2)
    replies = [
        client.messages.create(model="claude-fake", max_tokens=64, messages=USER) for _ in range(2)
    ]
    assert [reply.id for reply in replies] == ["msg_mock", "msg_mock"]
    assert [reply.content[0].id for reply in replies] == ["toolu_mock", "toolu_mock"]  # type: ignore[union-attr]


def test_require_api_key_checks_the_anthropic_sdks_credential(
    server: FakeProviderServer,
) -> None:
    server.require_api_key(API_KEY)
    server.enqueue(ScriptedReply(text="ok"))
    with anthropic.Anthropic(base_url=server.anthropic_base_url, api_key=API_KEY) as ok:
        ok.messages.create(model="claude-fake", max_tokens=64, messages=USER)
    wrong = anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="sk-ant-wrong")
    with wrong, pytest.raises(anthropic.AuthenticationError) as info:
        wrong.messages.create(model="claude-fake", max_tokens=64, messages=USER)
    assert info.value.body == {
        "type": "error",
        "error": {"type": "authentication_error", "message": "Incorrect API key provided"},
    }
    assert len(server.requests) == 2
