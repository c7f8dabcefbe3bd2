"""The fault matrix, both providers: retries by the SDK, and every failure as a typed error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic as anthropic_sdk
import httpx2
import openai as openai_sdk
import pytest
from providers_support import anthropic, openai, who

from leanchain.errors import (
    AuthenticationError,
    BadRequestError,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    RateLimitError,
    ServerError,
    StreamError,
)
from leanchain.language_models import BaseChatModel
from leanchain.testing import (
    BrokenStream,
    FakeProviderServer,
    MidStreamError,
    ScriptedError,
    ScriptedReply,
    StalledStream,
)

Factory = Callable[..., BaseChatModel]
REQUEST_ID_HEADER = {"openai": "x-request-id", "anthropic": "request-id"}


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make(provider: str) -> Factory:
    return openai if provider == "openai" else anthropic


def error_of(call: Callable[[], Any]) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        call()
    return info.value


def fields(error: ProviderError) -> dict[str, Any]:
    return {
        "type": type(error).__name__,
        "message": str(error),
        "provider": error.provider,
        "status_code": error.status_code,
        "retryable": error.retryable,
        "retry_after": error.retry_after,
    }


def test_429_is_retried_by_the_sdk_then_succeeds(server: FakeProviderServer, make: Factory) -> None:
    server.enqueue(
        ScriptedError(429, retry_after_ms=1),
        ScriptedError(429, retry_after=0.001),
        ScriptedReply(text="finally"),
    )
    assert make(server, max_retries=2).invoke("hi").content == "finally"
    assert [request.retry_count for request in server.requests] == [0, 1, 2]


def test_429_before_a_stream_is_retried(server: FakeProviderServer, make: Factory) -> None:
    server.enqueue(ScriptedError(429, retry_after_ms=1), ScriptedReply(text="ok"))
    assert [chunk.content for chunk in make(server, max_retries=1).stream("hi")] == ["ok", ""]
    assert len(server.requests) == 2


def test_429_past_the_retries_is_a_rate_limit_error_with_retry_after(
    server: FakeProviderServer, make: Factory, provider: str
) -> None:
    server.enqueue(ScriptedError(429, retry_after_ms=1), ScriptedError(429, retry_after=2.5))
    error = error_of(lambda: make(server, max_retries=1).invoke("hi"))
    code = " (code 'rate_limit_exceeded')" if provider == "openai" else ""
    assert fields(error) == {
        "type": "RateLimitError",
        "message": f"{who(server, provider)} answered 429: Rate limit exceeded{code}",
        "provider": provider,
        "status_code": 429,
        "retryable": True,
        "retry_after": 2.5,
    }
    assert error.request_id == "req_fake2"
    assert len(server.requests) == 2
    sdk = openai_sdk if provider == "openai" else anthropic_sdk
    assert isinstance(error.__cause__, sdk.RateLimitError)


def test_retry_after_as_an_http_date(server: FakeProviderServer, make: Factory) -> None:
    server.enqueue(ScriptedError(429, retry_after="Wed, 21 Oct 2015 07:28:00 GMT"))
    error = error_of(lambda: make(server).invoke("hi"))
    assert (type(error), error.retry_after) == (RateLimitError, 0.0)


@pytest.mark.parametrize("status", [500, 503, 529])
def test_5xx_is_retried_then_a_server_error(
    server: FakeProviderServer, make: Factory, status: int
) -> None:
    server.enqueue(ScriptedError(status, retry_after_ms=1), ScriptedError(status, retry_after_ms=1))
    error = error_of(lambda: make(server, max_retries=1).invoke("hi"))
    assert (type(error), error.status_code, error.retryable) == (ServerError, status, True)
    assert len(server.requests) == 2


def test_x_should_retry_false_is_honoured(server: FakeProviderServer, make: Factory) -> None:
    server.enqueue(ScriptedError(500, should_retry=False), ScriptedReply(text="unused"))
    error = error_of(lambda: make(server, max_retries=2).invoke("hi"))
    assert (type(error), error.retryable) == (ServerError, False)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, BadRequestError),
        (404, BadRequestError),
        (422, BadRequestError),
        (401, AuthenticationError),
        (403, AuthenticationError),
        (402, ProviderStatusError),
    ],
)
def test_4xx_is_not_retried(
    server: FakeProviderServer, make: Factory, status: int, kind: type[ProviderError]
) -> None:
    server.enqueue(ScriptedError(status, message="nope"), ScriptedReply(text="unused"))
    error = error_of(lambda: make(server, max_retries=2).invoke("hi"))
    assert (type(error), error.status_code, error.retryable) == (kind, status, False)
    assert str(error).startswith(f"{who(server, error.provider)} answered {status}: nope")
    assert len(server.requests) == 1


def test_bad_request_names_code_and_param(server: FakeProviderServer) -> None:
    server.enqueue(
        ScriptedError(400, message="'stop' is not supported", code="unsupported_parameter")
    )
    error = error_of(lambda: openai(server).invoke("hi", stop=["x"]))
    assert str(error) == (
        f"OpenAI-compatible server 127.0.0.1:{server.port} answered 400: 'stop' is not "
        "supported (code 'unsupported_parameter')"
    )


def test_timeout_before_the_answer(
    server: FakeProviderServer, make: Factory, provider: str
) -> None:
    server.enqueue(ScriptedReply(text="late", delay=1.0))
    error = error_of(lambda: make(server, timeout=0.1).invoke("hi"))
    assert fields(error) == {
        "type": "ProviderTimeoutError",
        "message": f"{who(server, provider)} did not answer within the timeout",
        "provider": provider,
        "status_code": None,
        "retryable": True,
        "retry_after": None,
    }
    assert isinstance(error, TimeoutError)


def test_connection_refused(make: Factory, provider: str) -> None:
    with FakeProviderServer() as gone:
        pass  # stopped: its port now refuses connections
    error = error_of(lambda: make(gone).invoke("hi"))
    assert type(error) is ProviderConnectionError
    path = "/v1/chat/completions" if provider == "openai" else "/v1/messages"
    assert str(error).startswith(
        f"Could not reach {who(gone, provider)} at http://127.0.0.1:{gone.port}{path}: "
    )
    assert error.retryable is True


def stream_until_error(model: BaseChatModel) -> tuple[list[Any], ProviderError]:
    seen: list[Any] = []

    def consume() -> None:
        for chunk in model.stream("hi"):
            seen.append(chunk.content)

    with pytest.raises(ProviderError) as info:
        consume()
    return seen, info.value


def sdk_or_raw(provider: str, raw: type[Exception]) -> tuple[type[Exception], ...]:
    """What the SDK raises for the transport error `raw` mid-stream: the OpenAI SDK wraps it
    (APIConnectionError, APITimeoutError); the Anthropic SDK lets it escape before 2.17 and
    wraps it too from 2.17 on. Either way leanchain maps it (the test's other asserts)."""
    sdk: Any = openai_sdk if provider == "openai" else anthropic_sdk
    wrapped = sdk.APITimeoutError if raw is httpx2.ReadTimeout else sdk.APIConnectionError
    return (wrapped,) if provider == "openai" else (wrapped, raw)


def test_broken_stream(server: FakeProviderServer, make: Factory, provider: str) -> None:
    # OpenAI: role chunk, "abcd"; Anthropic: message_start, block start, ping, "abcd".
    after = 2 if provider == "openai" else 4
    server.enqueue(BrokenStream(ScriptedReply(text="abcdefgh"), after_events=after))
    seen, error = stream_until_error(make(server))
    assert seen == ["abcd"]
    assert fields(error) == {
        "type": "StreamError",
        "message": f"{who(server, provider)} stream broke off mid-answer: peer closed connection "
        "without sending complete message body (incomplete chunked read)",
        "provider": provider,
        "status_code": 200,
        "retryable": True,
        "retry_after": None,
    }
    assert error.request_id == "req_fake1"
    assert type(error.__cause__) in sdk_or_raw(provider, httpx2.RemoteProtocolError)
    assert len(server.requests) == 1


def test_stream_that_ends_early_is_an_error_not_a_short_answer(
    server: FakeProviderServer, make: Factory, provider: str
) -> None:
    server.enqueue(BrokenStream(ScriptedReply(text="abcdefgh"), after_events=2, clean_eof=True))
    _, error = stream_until_error(make(server))
    end = "no finish_reason" if provider == "openai" else "no message_stop"
    assert type(error) is StreamError
    assert str(error) == (
        f"{who(server, provider)} stream ended before the answer was complete ({end} arrived)"
    )


def test_error_event_mid_stream(server: FakeProviderServer, make: Factory, provider: str) -> None:
    server.enqueue(MidStreamError(ScriptedReply(text="abcdefgh"), after_events=2))
    _, error = stream_until_error(make(server))
    kind = "server_error" if provider == "openai" else "overloaded_error"
    assert fields(error) == {
        "type": "StreamError",
        "message": f"{who(server, provider)} stream failed mid-answer with {kind}: Overloaded",
        "provider": provider,
        "status_code": 200,
        "retryable": True,
        "retry_after": None,
    }
    sdk = openai_sdk if provider == "openai" else anthropic_sdk
    assert isinstance(error.__cause__, sdk.APIError)


def test_error_event_of_a_bad_request_kind_is_not_retryable(
    server: FakeProviderServer, make: Factory
) -> None:
    server.enqueue(
        MidStreamError(ScriptedReply(text="x"), after_events=1, error_type="invalid_request_error")
    )
    _, error = stream_until_error(make(server))
    assert (type(error), error.retryable) == (StreamError, False)


def test_stalled_stream_times_out(server: FakeProviderServer, make: Factory, provider: str) -> None:
    server.enqueue(StalledStream(ScriptedReply(text="abcdefgh"), after_events=2, seconds=2))
    _, error = stream_until_error(make(server, timeout=0.2))
    assert fields(error) == {
        "type": "ProviderTimeoutError",
        "message": f"{who(server, provider)} did not answer within the timeout while streaming",
        "provider": provider,
        "status_code": None,
        "retryable": True,
        "retry_after": None,
    }
    assert type(error.__cause__) in sdk_or_raw(provider, httpx2.ReadTimeout)


async def drain(model: BaseChatModel) -> list[Any]:
    return [chunk async for chunk in model.astream("hi")]


async def test_async_faults_are_typed_too(server: FakeProviderServer, make: Factory) -> None:
    server.enqueue(
        ScriptedError(429, retry_after_ms=1),
        ScriptedReply(text="ok"),
        MidStreamError(ScriptedReply(text="abcdefgh"), after_events=2),
        ScriptedError(400),
    )
    model = make(server, max_retries=1)
    assert (await model.ainvoke("hi")).content == "ok"
    with pytest.raises(StreamError):
        await drain(model)
    with pytest.raises(BadRequestError):
        await model.ainvoke("hi")
    assert len(server.requests) == 4


def test_errors_unrelated_to_the_provider_pass_through(
    server: FakeProviderServer, make: Factory
) -> None:
    with pytest.raises(TypeError):
        make(server).invoke("hi", no_such_parameter=1)
    assert server.requests == []
