"""FakeProviderServer itself: lifecycle, the script, the records and the raw wire bytes."""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
import types
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

import leanchain.testing.cassettes  # with its other public module, transcript
from leanchain.testing import (
    REDACTED,
    BrokenStream,
    FakeProviderServer,
    MidStreamError,
    RecordedRequest,
    ScriptedError,
    ScriptedReply,
    ScriptedToolCall,
    ScriptedUsage,
    StalledStream,
)

API_KEY = "sk-test-secret-0123456789"
USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]


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


def post(
    server: FakeProviderServer, path: str, body: Any, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP request, so that the exact bytes on the wire can be asserted."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        conn.request(
            "POST", path, body=data, headers={"content-type": "application/json"} | (headers or {})
        )
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def test_exports_match_all() -> None:
    names = {name: value for name, value in vars(leanchain.testing).items() if name[0] != "_"}
    modules = {name for name, value in names.items() if isinstance(value, types.ModuleType)}
    assert modules == {"cassettes", "transcript"}
    assert sorted(leanchain.testing.__all__) == sorted(set(names) - modules - {"annotations"})


def test_base_urls() -> None:
    with FakeProviderServer() as server:
        assert server.port > 0
        assert server.base_url == f"http://127.0.0.1:{server.port}"
        assert server.openai_base_url == f"http://127.0.0.1:{server.port}/v1"
        assert server.anthropic_base_url == f"http://127.0.0.1:{server.port}"


def test_not_started_and_started_twice() -> None:
    server = FakeProviderServer()
    with pytest.raises(
        RuntimeError, match=r"^FakeProviderServer is not started; call start\(\) or use `with`$"
    ):
        _ = server.openai_base_url
    server.stop()
    server.start()
    try:
        with pytest.raises(
            RuntimeError, match=r"^FakeProviderServer was already started; create a new one$"
        ):
            server.start()
    finally:
        server.stop()
    server.stop()


def test_constructor_and_script_validation() -> None:
    with pytest.raises(ValueError, match=r"^chunk_size must be >= 1, got 0$"):
        FakeProviderServer(chunk_size=0)
    with pytest.raises(ValueError, match=r"^chunk_size must be >= 1, got 0$"):
        ScriptedReply(chunk_size=0)
    with pytest.raises(ValueError, match=r"^A delay must be >= 0 seconds, got -1$"):
        ScriptedReply(delay=-1)
    with pytest.raises(
        ValueError, match=r"^stop_sequence needs finish_reason 'stop' or None, got 'length'$"
    ):
        ScriptedReply(stop_sequence="END", finish_reason="length")
    with pytest.raises(ValueError, match=r"^ScriptedError status must be 4xx or 5xx, got 200$"):
        ScriptedError(200)
    with pytest.raises(ValueError, match=r"^after_events must be >= 0, got -1$"):
        BrokenStream(ScriptedReply(), after_events=-1)
    with pytest.raises(
        ValueError,
        match=r"^input_tokens must include the cache tokens: expected input_tokens >= 7, got 5$",
    ):
        ScriptedUsage(input_tokens=5, cache_read_tokens=4, cache_creation_tokens=3)
    server = FakeProviderServer()
    with pytest.raises(TypeError, match=r"^Expected a ScriptedReply or a fault, got 'hello'$"):
        server.enqueue("hello")  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"^provider must be 'openai', 'anthropic' or None, got 'gemini'$"
    ):
        server.enqueue(ScriptedReply(), provider="gemini")  # type: ignore[arg-type]


def test_scripted_error_headers() -> None:
    error = ScriptedError(
        429, retry_after=0.25, retry_after_ms=7, should_retry=False, headers={"x-a": "b"}
    )
    assert error.response_headers() == {
        "x-a": "b",
        "retry-after": "0.25",
        "retry-after-ms": "7",
        "x-should-retry": "false",
    }
    http_date = "Wed, 21 Oct 2026 07:28:00 GMT"
    assert ScriptedError(503, retry_after=http_date).response_headers() == {
        "retry-after": http_date
    }


def test_replies_are_fifo_and_provider_queues_are_respected(server: FakeProviderServer) -> None:
    first, second, for_anthropic = (
        ScriptedReply(text="1"),
        ScriptedReply(text="2"),
        ScriptedReply(text="A"),
    )
    server.enqueue(for_anthropic, provider="anthropic")
    server.enqueue(first, second)
    assert list(server.pending) == [for_anthropic, first, second]
    with openai.OpenAI(base_url=server.openai_base_url, api_key=API_KEY, max_retries=0) as client:
        texts = [
            client.chat.completions.create(model="m", messages=USER).choices[0].message.content
            for _ in range(2)
        ]
    assert texts == ["1", "2"]
    assert list(server.pending) == [for_anthropic]
    status, _, raw = post(server, "/v1/messages", {"model": "m", "max_tokens": 5, "messages": USER})
    assert (status, json.loads(raw)["content"]) == (200, [{"type": "text", "text": "A"}])
    assert list(server.pending) == []


def test_requests_are_recorded_with_the_key_redacted(server: FakeProviderServer) -> None:
    server.enqueue(ScriptedReply(text="hello"))
    with openai.OpenAI(base_url=server.openai_base_url, api_key=API_KEY, max_retries=0) as client:
        client.chat.completions.create(model="gpt-x", messages=USER, temperature=0.5)
    post(server, "/v1/messages", {"model": "c"}, {"x-api-key": API_KEY, "cookie": "session=1"})
    [recorded] = server.requests_for("openai")
    assert recorded.method == "POST"
    assert recorded.path == "/v1/chat/completions"
    assert recorded.body == {"model": "gpt-x", "messages": USER, "temperature": 0.5}
    assert (recorded.model, recorded.stream, recorded.retry_count) == ("gpt-x", False, 0)
    assert recorded.headers["authorization"] == f"Bearer {REDACTED}"
    assert recorded.headers["content-type"] == "application/json"
    [raw] = server.requests_for("anthropic")
    assert (raw.headers["x-api-key"], raw.headers["cookie"]) == (REDACTED, REDACTED)
    assert raw.retry_count is None
    assert API_KEY not in repr(server.requests)
    assert [r.provider for r in server.requests] == ["openai", "anthropic"]


def test_unknown_route_and_bad_body(server: FakeProviderServer) -> None:
    server.enqueue(ScriptedReply(text="kept"))
    status, _, raw = post(server, "/v1/embeddings", {"input": "x"})
    assert status == 404
    assert json.loads(raw) == {
        "error": {
            "message": "FakeProviderServer has no route for POST /v1/embeddings",
            "type": "invalid_request_error",
            "param": None,
            "code": "model_not_found",
        }
    }
    status, headers, raw = post(server, "/v1/messages", b"not json")
    assert (status, headers["x-should-retry"]) == (400, "false")
    assert json.loads(raw) == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "FakeProviderServer expected a JSON object as the request body",
        },
    }
    assert server.requests[0] == RecordedRequest(
        provider=None,
        method="POST",
        path="/v1/embeddings",
        headers=server.requests[0].headers,
        body={"input": "x"},
    )
    assert server.requests[1].body is None
    assert list(server.pending) == [ScriptedReply(text="kept")]


def test_script_exhausted_fails_loudly_without_retries(server: FakeProviderServer) -> None:
    with (
        openai.OpenAI(base_url=server.openai_base_url, api_key=API_KEY, max_retries=2) as client,
        pytest.raises(openai.InternalServerError) as info,
    ):
        client.chat.completions.create(model="gpt-x", messages=USER)
    assert info.value.body == {
        "message": "FakeProviderServer script exhausted: no reply left for the openai request "
        "to /v1/chat/completions (model 'gpt-x'); enqueue another ScriptedReply or fault",
        "type": "server_error",
        "param": None,
        "code": None,
    }
    assert len(server.requests) == 1


def test_stream_fault_on_a_non_stream_request(server: FakeProviderServer) -> None:
    server.enqueue(StalledStream(ScriptedReply(text="x")))
    status, _, raw = post(server, "/v1/messages", {"model": "c", "messages": USER})
    assert status == 500
    assert json.loads(raw)["error"] == {
        "type": "api_error",
        "message": "FakeProviderServer: a StalledStream was scripted but the anthropic request "
        "to /v1/messages did not ask for a stream",
    }


def test_raw_openai_stream_bytes(server: FakeProviderServer) -> None:
    server.enqueue(ScriptedReply(text="Hi!", chunk_size=2, usage=ScriptedUsage(3, 2)))
    body = {
        "model": "m",
        "messages": USER,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    status, headers, raw = post(server, "/v1/chat/completions", body)
    assert (status, headers["content-type"], headers["transfer-encoding"]) == (
        200,
        "text/event-stream; charset=utf-8",
        "chunked",
    )
    assert headers["x-request-id"] == "req_fake1"
    events = raw.decode().split("\n\n")
    assert events[-2:] == ["data: [DONE]", ""]
    chunks = [json.loads(e.removeprefix("data: ")) for e in events[:-2]]
    assert [
        c["choices"][0]["delta"] if c["choices"] else c["usage"]["total_tokens"] for c in chunks
    ] == [
        {"role": "assistant", "content": "", "refusal": None},
        {"content": "Hi"},
        {"content": "!"},
        {},
        5,
    ]
    assert chunks[0] == {
        "id": "chatcmpl-fake1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "m",
        "system_fingerprint": "fp_fake",
        "choices": [
            {
                "index": 0,
                "delta": chunks[0]["choices"][0]["delta"],
                "logprobs": None,
                "finish_reason": None,
            }
        ],
        "usage": None,
    }
    assert [c["choices"][0]["finish_reason"] for c in chunks[:-1]] == [None, None, None, "stop"]


def test_raw_anthropic_stream_bytes(server: FakeProviderServer) -> None:
    call = ScriptedToolCall("f", {"a": 1}, id="toolu_X")
    server.enqueue(ScriptedReply(text="ok", tool_calls=[call], chunk_size=5, model="claude-fake"))
    status, _, raw = post(server, "/v1/messages", {"model": "c", "messages": USER, "stream": True})
    assert status == 200
    frames = [frame.split("\n") for frame in raw.decode().split("\n\n")[:-1]]
    names = [lines[0].removeprefix("event: ") for lines in frames]
    datas = [json.loads(lines[1].removeprefix("data: ")) for lines in frames]
    assert names == [d["type"] for d in datas]
    assert names == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert datas[0]["message"]["model"] == "claude-fake"
    assert [d["delta"] for d in datas if d["type"] == "content_block_delta"] == [
        {"type": "text_delta", "text": "ok"},
        {"type": "input_json_delta", "partial_json": ""},
        {"type": "input_json_delta", "partial_json": '{"a":'},
        {"type": "input_json_delta", "partial_json": " 1}"},
    ]
    assert datas[-2] == {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 5},
    }


def test_no_ping_and_empty_reply() -> None:
    with FakeProviderServer(anthropic_ping=False) as server:
        server.enqueue(ScriptedReply())
        _, _, raw = post(server, "/v1/messages", {"model": "c", "messages": USER, "stream": True})
    names = [frame.split("\n")[0] for frame in raw.decode().split("\n\n")[:-1]]
    assert names == ["event: message_start", "event: message_delta", "event: message_stop"]


def test_reset_forgets_script_records_and_ids(server: FakeProviderServer) -> None:
    server.enqueue(ScriptedReply(text="a"), ScriptedReply(text="b"))
    post(server, "/v1/messages", {"model": "c", "messages": USER})
    server.reset()
    assert (server.pending, server.requests) == ((), [])
    server.enqueue(ScriptedReply(text="c"))
    _, _, raw = post(server, "/v1/messages", {"model": "c", "messages": USER})
    assert json.loads(raw)["id"] == "msg_fake1"


def test_stop_does_not_wait_for_slow_answers_or_stalled_streams() -> None:
    server = FakeProviderServer().start()
    server.enqueue(
        StalledStream(ScriptedReply(text="zzz"), after_events=1),
        ScriptedReply(text="late", delay=60),
    )
    stalled = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    body = json.dumps({"model": "c", "messages": USER, "stream": True})
    stalled.request("POST", "/v1/messages", body=body)
    stream = stalled.getresponse()
    assert stream.readline() == b"event: message_start\n"
    slow_outcome: list[BaseException] = []

    def call_slow() -> None:
        try:
            post(server, "/v1/messages", {"model": "c", "messages": USER})
        except (OSError, http.client.HTTPException) as exc:
            slow_outcome.append(exc)

    slow = threading.Thread(target=call_slow)
    slow.start()
    while len(server.requests) < 2:
        time.sleep(0.01)
    started = time.monotonic()
    server.stop()
    slow.join(5)
    assert time.monotonic() - started < 3  # versus the 60 s the slow answer would take
    assert [type(exc) for exc in slow_outcome] == [http.client.RemoteDisconnected]
    with pytest.raises(http.client.IncompleteRead):
        stream.read()
    stalled.close()


def test_mid_stream_error_and_broken_stream_counts_are_capped(server: FakeProviderServer) -> None:
    server.enqueue(
        MidStreamError(
            ScriptedReply(text="abc"),
            after_events=99,
            error_type="rate_limit_error",
            message="slow down",
        ),
        BrokenStream(ScriptedReply(text="abc"), after_events=99, clean_eof=True),
    )
    body = {"model": "c", "messages": USER, "stream": True}
    _, _, raw = post(server, "/v1/messages", body)
    frames = raw.decode().split("\n\n")[:-1]
    assert frames[-2].startswith("event: message_delta\n")
    assert frames[-1] == (
        "event: error\n"
        'data: {"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}'
    )
    _, _, raw = post(server, "/v1/chat/completions", body)
    assert raw.decode().split("\n\n")[-2].startswith('data: {"id":"chatcmpl-fake1"')
    assert b"[DONE]" not in raw
