"""The real openai SDK against FakeProviderServer: answers, streams, retries and faults."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam

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

API_KEY = "sk-test-secret-0123456789"
USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "What is the weather?"}]
PARIS = ScriptedToolCall("get_weather", {"city": "Paris", "unit": "c"}, id="call_AAA")
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
def client(server: FakeProviderServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.openai_base_url, api_key=API_KEY, max_retries=0) as client:
        yield client


def create(client: openai.OpenAI) -> ChatCompletion:
    return client.chat.completions.create(model="gpt-fake", messages=USER)


def stream_chunks(
    client: openai.OpenAI, *, include_usage: bool = False
) -> list[ChatCompletionChunk]:
    with client.chat.completions.create(
        model="gpt-fake",
        messages=USER,
        stream=True,
        stream_options={"include_usage": True} if include_usage else openai.omit,
    ) as stream:
        return list(stream)


def test_text_answer(server: FakeProviderServer, client: openai.OpenAI) -> None:
    server.enqueue(ScriptedReply(text="Sunny, 21 C.", usage=ScriptedUsage(12, 4)))
    completion = create(client)
    assert completion.model_dump(exclude_none=True) == {
        "id": "chatcmpl-fake1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-fake",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "Sunny, 21 C.", "annotations": []},
            }
        ],
        "usage": {
            "prompt_tokens": 12,
            "completion_tokens": 4,
            "total_tokens": 16,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_fake",
    }


def test_parallel_tool_calls(server: FakeProviderServer, client: openai.OpenAI) -> None:
    server.enqueue(ScriptedReply(tool_calls=[PARIS, TOKYO], model="gpt-other"))
    completion = create(client)
    choice = completion.choices[0]
    assert (completion.model, choice.finish_reason, choice.message.content) == (
        "gpt-other",
        "tool_calls",
        None,
    )
    assert [call.model_dump() for call in choice.message.tool_calls or []] == [
        {
            "id": "call_AAA",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris", "unit": "c"}'},
        },
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Tokyo"}'},
        },
    ]


def test_malformed_arguments_are_sent_verbatim(
    server: FakeProviderServer, client: openai.OpenAI
) -> None:
    server.enqueue(ScriptedReply(tool_calls=[ScriptedToolCall("f", '{"city": "Par')]))
    [call] = create(client).choices[0].message.tool_calls or []
    assert call.type == "function"
    assert call.function.arguments == '{"city": "Par'


def test_finish_reasons_and_usage_details(
    server: FakeProviderServer, client: openai.OpenAI
) -> None:
    usage = ScriptedUsage(
        100, 20, cache_read_tokens=30, cache_creation_tokens=10, reasoning_tokens=5
    )
    server.enqueue(
        ScriptedReply(text="cut", finish_reason="length", usage=usage),
        ScriptedReply(text="done", stop_sequence="END"),
        ScriptedReply(text="", finish_reason="content_filter"),
    )
    first = create(client)
    assert first.choices[0].finish_reason == "length"
    assert first.usage is not None
    assert (first.usage.prompt_tokens, first.usage.completion_tokens, first.usage.total_tokens) == (
        100,
        20,
        120,
    )
    assert first.usage.prompt_tokens_details is not None
    assert first.usage.prompt_tokens_details.cached_tokens == 30
    assert first.usage.prompt_tokens_details.cache_write_tokens == 10
    assert first.usage.completion_tokens_details is not None
    assert first.usage.completion_tokens_details.reasoning_tokens == 5
    assert [create(client).choices[0].finish_reason for _ in range(2)] == ["stop", "content_filter"]


def test_stream_text_with_usage_chunk(server: FakeProviderServer, client: openai.OpenAI) -> None:
    server.enqueue(ScriptedReply(text="Hello, world!", usage=ScriptedUsage(7, 3)))
    chunks = stream_chunks(client, include_usage=True)
    assert [c.choices[0].delta.content if c.choices else None for c in chunks] == [
        "",
        "Hell",
        "o, w",
        "orld",
        "!",
        None,
        None,
    ]
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason if c.choices else "usage" for c in chunks] == [
        None,
        None,
        None,
        None,
        None,
        "stop",
        "usage",
    ]
    assert chunks[-1].usage is not None
    assert (chunks[-1].usage.prompt_tokens, chunks[-1].usage.completion_tokens) == (7, 3)
    assert [c.usage for c in chunks[:-1]] == [None] * 6
    assert server.requests[0].body["stream_options"] == {"include_usage": True}


def test_stream_without_usage_request_has_no_usage_chunk(
    server: FakeProviderServer, client: openai.OpenAI
) -> None:
    server.enqueue(ScriptedReply(text="ab"))
    chunks = stream_chunks(client)
    assert "stream_options" not in server.requests[0].body
    assert [len(c.choices) for c in chunks] == [1, 1, 1]
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_stream_tool_call_deltas(server: FakeProviderServer, client: openai.OpenAI) -> None:
    server.enqueue(ScriptedReply(tool_calls=[PARIS, TOKYO], chunk_size=10))
    chunks = stream_chunks(client)
    deltas = [
        (
            tc.index,
            tc.id,
            tc.function.name if tc.function else None,
            tc.function.arguments if tc.function else None,
        )
        for chunk in chunks
        for tc in chunk.choices[0].delta.tool_calls or []
    ]
    assert deltas == [
        (0, "call_AAA", "get_weather", ""),
        (0, None, None, '{"city": "'),
        (0, None, None, 'Paris", "u'),
        (0, None, None, 'nit": "c"}'),
        (1, "call_1", "get_weather", ""),
        (1, None, None, '{"city": "'),
        (1, None, None, 'Tokyo"}'),
    ]
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_stream_helper_accumulates_the_final_completion(
    server: FakeProviderServer, client: openai.OpenAI
) -> None:
    server.enqueue(ScriptedReply(text="Let me check.", tool_calls=[PARIS], chunk_size=3))
    with client.chat.completions.stream(model="gpt-fake", messages=USER) as stream:
        final = stream.get_final_completion()
    message = final.choices[0].message
    assert message.content == "Let me check."
    assert [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []] == [
        ("call_AAA", "get_weather", '{"city": "Paris", "unit": "c"}')
    ]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.text(max_size=40),
    args=st.dictionaries(st.text(max_size=5), st.integers()),
    size=st.integers(1, 9),
)
def test_streamed_pieces_reassemble_exactly(
    client: openai.OpenAI, server: FakeProviderServer, text: str, args: dict[str, int], size: int
) -> None:
    server.enqueue(
        ScriptedReply(text=text, tool_calls=[ScriptedToolCall("f", args)], chunk_size=size)
    )
    chunks = stream_chunks(client)
    pieces = [c.choices[0].delta.content or "" for c in chunks]
    fragments = [
        tc.function.arguments or ""
        for c in chunks
        for tc in c.choices[0].delta.tool_calls or []
        if tc.function
    ]
    assert "".join(pieces) == text
    assert all(0 < len(piece) <= size for piece in pieces[1:] if piece)
    assert json.loads("".join(fragments)) == args


def test_429_is_retried_then_succeeds(server: FakeProviderServer, client: openai.OpenAI) -> None:
    server.enqueue(
        ScriptedError(429, retry_after_ms=1),
        ScriptedError(429, retry_after=0.01),
        ScriptedReply(text="finally"),
    )
    completion = create(client.with_options(max_retries=2))
    assert completion.choices[0].message.content == "finally"
    assert [r.retry_count for r in server.requests] == [0, 1, 2]


def test_429_before_a_stream_is_retried(server: FakeProviderServer, client: openai.OpenAI) -> None:
    server.enqueue(ScriptedError(429, retry_after_ms=1), ScriptedReply(text="ok"))
    chunks = stream_chunks(client.with_options(max_retries=1))
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "ok"
    assert len(server.requests) == 2


def test_500_is_retried_until_max_retries(
    server: FakeProviderServer, client: openai.OpenAI
) -> None:
    server.enqueue(*[ScriptedError(500, retry_after_ms=1)] * 3, ScriptedReply(text="unused"))
    with pytest.raises(openai.InternalServerError) as info:
        create(client.with_options(max_retries=2))
    assert info.value.status_code == 500
    assert info.value.body == {
        "message": "Internal server error",
        "type": "server_error",
        "param": None,
        "code": None,
    }
    assert len(server.requests) == 3
    assert server.pending == (ScriptedReply(text="unused"),)


@pytest.mark.parametrize(
    ("error", "exc_type"),
    [
        (
            ScriptedError(400, "Unsupported parameter: 'stop'", code="unsupported_parameter"),
            openai.BadRequestError,
        ),
        (ScriptedError(401), openai.AuthenticationError),
        (ScriptedError(429, retry_after_ms=1), openai.RateLimitError),
        (ScriptedError(503, retry_after_ms=1), openai.InternalServerError),
    ],
)
def test_error_statuses_raise_the_sdk_classes(
    server: FakeProviderServer,
    client: openai.OpenAI,
    error: ScriptedError,
    exc_type: type[openai.APIStatusError],
) -> None:
    server.enqueue(error)
    with pytest.raises(exc_type) as info:
        create(client)
    assert type(info.value) is exc_type
    assert info.value.status_code == error.status
    assert len(server.requests) == 1


def test_400_is_not_retried(server: FakeProviderServer, client: openai.OpenAI) -> None:
    server.enqueue(
        ScriptedError(400, "Unsupported parameter: 'stop'", code="unsupported_parameter")
    )
    with pytest.raises(openai.BadRequestError) as info:
        create(client.with_options(max_retries=2))
    assert (info.value.code, info.value.type, info.value.param) == (
        "unsupported_parameter",
        "invalid_request_error",
        None,
    )
    assert info.value.message == ("Error code: 400 - Unsupported parameter: 'stop'")
    assert len(server.requests) == 1


def test_x_should_retry_overrides_the_status(
    server: FakeProviderServer, client: openai.OpenAI
) -> None:
    server.enqueue(
        ScriptedError(500, should_retry=False),
        ScriptedError(400, should_retry=True, retry_after_ms=1),
        ScriptedReply(text="retried a 400"),
    )
    retrying = client.with_options(max_retries=2)
    with pytest.raises(openai.InternalServerError):
        create(retrying)
    assert len(server.requests) == 1
    assert create(retrying).choices[0].message.content == "retried a 400"
    assert len(server.requests) == 3


def test_slow_answer_times_out(server: FakeProviderServer, client: openai.OpenAI) -> None:
    server.enqueue(ScriptedReply(text="too late", delay=30))
    with pytest.raises(openai.APITimeoutError):
        create(client.with_options(timeout=0.2))
    assert len(server.requests) == 1


def test_broken_stream_raises_while_iterating(
    server: FakeProviderServer, client: openai.OpenAI
) -> None:
    server.enqueue(BrokenStream(ScriptedReply(text="abcdefghijkl"), after_events=3))
    received: list[str | None] = []
    with (
        pytest.raises(openai.APIConnectionError),
        client.chat.completions.create(
            model="gpt-fake",
            messages=USER,
            stream=True,
        ) as stream,
    ):
        received.extend(chunk.choices[0].delta.content for chunk in stream)
    assert received == ["", "abcd", "efgh"]


def test_cleanly_truncated_stream_just_ends(
    server: FakeProviderServer, client: openai.OpenAI
) -> None:
    server.enqueue(BrokenStream(ScriptedReply(text="abcdefgh"), after_events=2, clean_eof=True))
    chunks = stream_chunks(client)
    assert [c.choices[0].delta.content for c in chunks] == ["", "abcd"]
    assert chunks[-1].choices[0].finish_reason is None


def test_stalled_stream_times_out(server: FakeProviderServer, client: openai.OpenAI) -> None:
    server.enqueue(StalledStream(ScriptedReply(text="abcdefgh"), after_events=2))
    with pytest.raises(openai.APITimeoutError):
        stream_chunks(client.with_options(timeout=0.3))


def test_error_mid_stream(server: FakeProviderServer, client: openai.OpenAI) -> None:
    server.enqueue(
        MidStreamError(ScriptedReply(text="abcdefgh"), after_events=2, message="upstream died")
    )
    received: list[str | None] = []
    with (
        pytest.raises(openai.APIError) as info,
        client.chat.completions.create(
            model="gpt-fake",
            messages=USER,
            stream=True,
        ) as stream,
    ):
        received.extend(chunk.choices[0].delta.content for chunk in stream)
    assert type(info.value) is openai.APIError
    assert info.value.message == "upstream died"
    assert info.value.body == {
        "message": "upstream died",
        "type": "server_error",
        "param": None,
        "code": None,
    }
    assert received == ["", "abcd"]


async def test_async_client_streams(server: FakeProviderServer) -> None:
    server.enqueue(
        ScriptedReply(text="async hello", tool_calls=[TOKYO]), ScriptedReply(text="plain")
    )
    async with openai.AsyncOpenAI(
        base_url=server.openai_base_url, api_key=API_KEY, max_retries=0
    ) as client:
        stream = await client.chat.completions.create(model="gpt-fake", messages=USER, stream=True)
        async with stream:
            chunks = [chunk async for chunk in stream]
        completion = await client.chat.completions.create(model="gpt-fake", messages=USER)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "async hello"
    assert (
        "".join(
            tc.function.arguments or ""
            for c in chunks
            for tc in c.choices[0].delta.tool_calls or []
            if tc.function
        )
        == '{"city": "Tokyo"}'
    )
    assert completion.choices[0].message.content == "plain"
    assert [r.headers["x-stainless-async"] for r in server.requests] == ["async:asyncio"] * 2


def test_a_gateways_mid_stream_label_and_code(
    server: FakeProviderServer, client: openai.OpenAI
) -> None:
    # LiteLLM's proxy: its own type, and the status as a string code.
    fault = MidStreamError(
        ScriptedReply(text="abcdefgh"), error_type="internal_server_error", code="500"
    )
    server.enqueue(fault)
    with pytest.raises(openai.APIError) as info:
        stream_chunks(client)
    assert info.value.body == {
        "message": "Overloaded",
        "type": "internal_server_error",
        "param": None,
        "code": "500",
    }
    assert info.value.code == "500"


def test_a_reused_response_id_and_call_id(
    server: FakeProviderServer, client: openai.OpenAI
) -> None:
    call = ScriptedToolCall("get_weather", {"city": "Paris"}, id="call_mock_001")
    server.enqueue(*[ScriptedReply(tool_calls=[call], response_id="chatcmpl-mock")] * 2)
    first, second = create(client), create(client)
    assert (first.id, second.id) == ("chatcmpl-mock", "chatcmpl-mock")
    calls = [completion.choices[0].message.tool_calls for completion in (first, second)]
    assert [c[0].id for c in calls if c] == ["call_mock_001", "call_mock_001"]
    server.enqueue(ScriptedReply(text="streamed", response_id="chatcmpl-mock"))
    assert {chunk.id for chunk in stream_chunks(client)} == {"chatcmpl-mock"}


def test_require_api_key_answers_401_to_any_other_key(server: FakeProviderServer) -> None:
    server.require_api_key(API_KEY, "sk-second-0123456789")
    server.enqueue(ScriptedReply(text="ok"), ScriptedReply(text="ok too"))
    for key in (API_KEY, "sk-second-0123456789"):
        with openai.OpenAI(base_url=server.openai_base_url, api_key=key, max_retries=0) as ok:
            create(ok)
    wrong = openai.OpenAI(base_url=server.openai_base_url, api_key="sk-wrong-0", max_retries=3)
    with wrong, pytest.raises(openai.AuthenticationError) as info:
        create(wrong)
    assert info.value.body == {
        "message": "Incorrect API key provided",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }
    assert len(server.requests) == 3  # recorded, not retried, no script item consumed
    assert server.requests[-1].headers["authorization"] == "Bearer [REDACTED]"
    assert server.pending == ()
    server.reset()  # any key again
    server.enqueue(ScriptedReply(text="open"))
    with openai.OpenAI(base_url=server.openai_base_url, api_key="sk-any", max_retries=0) as any_:
        assert create(any_).choices[0].message.content == "open"
