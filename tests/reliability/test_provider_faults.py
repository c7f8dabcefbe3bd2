"""Provider faults as an agent run sees them (real SDKs against the local fake server).

- Retryable failures (429, 5xx, 529) are retried by the SDK itself, within the one model call:
  the run succeeds and the server saw the retries.
- Other failures surface as leanchain's typed errors (the same object a direct model call
  raises), with a note naming the iteration and the model: `except BadRequestError` works.
- A stream that breaks, stalls or carries an error event ends the run with a typed error within
  the client's timeout: nothing hangs.
- A reply the server sent that JSON cannot carry back (a lone surrogate escaped in its
  arguments) ends the run with an `UnencodableContentError` naming where, before the next
  request is sent.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from typing import Any, Literal

import pytest

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import (
    AuthenticationError,
    BadRequestError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    StreamError,
    UnencodableContentError,
)
from leanchain.language_models import BaseChatModel
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import (
    BrokenStream,
    FakeProviderServer,
    MidStreamError,
    ScriptedError,
    ScriptedReply,
    ScriptedToolCall,
    StalledStream,
)
from leanchain.tools import tool

Provider = Literal["openai", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")
TIMEOUT = 0.5


@pytest.fixture(autouse=True)
def _offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as server:
        yield server


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


CALL = ScriptedReply(tool_calls=[ScriptedToolCall("weather", {"city": "Paris"})])
ANSWER = ScriptedReply(text="It is sunny in Paris.")


class Listener(BaseCallbackHandler):
    """Makes the executor stream the agent, so the model is called with ``stream=True``."""

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        pass


def model_for(
    provider: Provider, server: FakeProviderServer, **kwargs: Any
) -> ChatOpenAI | ChatAnthropic:
    options: dict[str, Any] = {"api_key": "sk-test", "max_retries": 0, **kwargs}
    if provider == "openai":
        return ChatOpenAI(model="gpt-fake", base_url=server.openai_base_url, **options)
    return ChatAnthropic(model="claude-fake", base_url=server.anthropic_base_url, **options)


def executor_for(model: BaseChatModel, *, streaming: bool = False) -> AgentExecutor:
    agent = create_tool_calling_agent(model, [weather], TOOL_CALLING_PROMPT)
    callbacks = [Listener()] if streaming else None
    return AgentExecutor(agent=agent, tools=[weather], callbacks=callbacks)


def planning_note(iteration: int, provider: Provider) -> str:
    """The note an executor adds to a model failure, as a regex."""
    model = (
        r"ChatOpenAI\(model='gpt-fake', base_url='http://127\.0\.0\.1:\d+/v1'\)"
        if provider == "openai"
        else r"ChatAnthropic\(model='claude-fake', base_url='http://127\.0\.0\.1:\d+'\)"
    )
    return (
        rf"AgentExecutor iteration {iteration}: the agent failed while planning the next "
        rf"step; its model: {model}\."
    )


def assert_noted(error: BaseException, iteration: int, provider: Provider) -> None:
    notes = getattr(error, "__notes__", [])
    assert len(notes) == 1
    assert re.fullmatch(planning_note(iteration, provider), notes[0])


# -- retried by the SDK ------------------------------------------------------------------------


@pytest.mark.parametrize("streaming", [False, True], ids=["invoke", "stream"])
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_retryable_failures_are_retried_by_the_sdk_inside_one_model_call(
    server: FakeProviderServer, provider: Provider, streaming: bool
) -> None:
    overloaded = 529 if provider == "anthropic" else 503
    server.enqueue(
        ScriptedError(429, retry_after_ms=5),
        ScriptedError(overloaded, retry_after_ms=5),
        CALL,
        ScriptedError(500, retry_after_ms=5),
        ANSWER,
    )
    executor = executor_for(model_for(provider, server, max_retries=2), streaming=streaming)
    result = await executor.ainvoke({"input": "Weather in Paris?"})
    assert result == {"input": "Weather in Paris?", "output": "It is sunny in Paris."}
    assert [r.retry_count for r in server.requests] == [0, 1, 2, 0, 1]
    assert [r.stream for r in server.requests] == [streaming] * 5


# -- typed errors with context -----------------------------------------------------------------

TYPED = [
    (ScriptedError(400, message="bad tool schema"), BadRequestError, 400, False),
    (ScriptedError(401), AuthenticationError, 401, False),
    (ScriptedError(404, message="no such model"), BadRequestError, 404, False),
    (ScriptedError(429, retry_after=7), RateLimitError, 429, True),
]


@pytest.mark.parametrize("streaming", [False, True], ids=["invoke", "stream"])
@pytest.mark.parametrize(("fault", "kind", "status", "retryable"), TYPED)
@pytest.mark.parametrize("provider", PROVIDERS)
def test_other_failures_surface_typed_with_the_step_and_the_model(
    server: FakeProviderServer,
    provider: Provider,
    fault: ScriptedError,
    kind: type[ProviderError],
    status: int,
    retryable: bool,
    streaming: bool,
) -> None:
    server.enqueue(CALL, fault)
    executor = executor_for(model_for(provider, server), streaming=streaming)
    with pytest.raises(kind) as info:
        executor.invoke({"input": "Weather in Paris?"})
    error = info.value
    assert type(error) is kind
    assert (error.provider, error.status_code, error.retryable) == (provider, status, retryable)
    assert error.request_id == "req_fake2"
    assert_noted(error, 2, provider)
    assert len(server.requests) == 2  # never retried by leanchain on top of the SDK
    if kind is RateLimitError:
        assert error.retry_after == 7


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_async_runs_carry_the_same_typed_error_and_note(
    server: FakeProviderServer, provider: Provider
) -> None:
    server.enqueue(ScriptedError(400, message="bad request"))
    with pytest.raises(BadRequestError) as info:
        await executor_for(model_for(provider, server)).ainvoke({"input": "q"})
    assert info.value.status_code == 400
    assert_noted(info.value, 1, provider)


# -- broken and stalled streams ----------------------------------------------------------------


@pytest.mark.parametrize("clean_eof", [False, True], ids=["dropped", "ended early"])
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_broken_stream_ends_the_run_with_a_stream_error(
    server: FakeProviderServer, provider: Provider, clean_eof: bool
) -> None:
    server.enqueue(BrokenStream(ANSWER, after_events=3, clean_eof=clean_eof))
    executor = executor_for(model_for(provider, server, timeout=5), streaming=True)
    started = time.monotonic()
    with pytest.raises(StreamError) as info:
        await executor.ainvoke({"input": "q"})
    assert time.monotonic() - started < 2
    assert (info.value.provider, info.value.retryable) == (provider, True)
    assert_noted(info.value, 1, provider)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_error_event_mid_stream_is_a_typed_stream_error(
    server: FakeProviderServer, provider: Provider
) -> None:
    server.enqueue(MidStreamError(ANSWER, after_events=3))
    executor = executor_for(model_for(provider, server), streaming=True)
    with pytest.raises(StreamError, match="Overloaded") as info:
        executor.invoke({"input": "q"})
    assert info.value.retryable is True
    assert_noted(info.value, 1, provider)


async def run(executor: AgentExecutor, mode: str) -> dict[str, Any]:
    if mode == "sync":
        return executor.invoke({"input": "q"})
    return await executor.ainvoke({"input": "q"})


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_stalled_stream_times_out_instead_of_hanging(
    server: FakeProviderServer, provider: Provider, mode: str
) -> None:
    server.enqueue(StalledStream(ANSWER, after_events=2))
    executor = executor_for(model_for(provider, server, timeout=TIMEOUT), streaming=True)
    started = time.monotonic()
    with pytest.raises(ProviderTimeoutError) as info:
        await run(executor, mode)
    assert TIMEOUT <= time.monotonic() - started < TIMEOUT + 1.5
    assert isinstance(info.value, TimeoutError)  # `except TimeoutError` catches it too
    assert_noted(info.value, 1, provider)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_slow_answer_times_out_instead_of_hanging(
    server: FakeProviderServer, provider: Provider
) -> None:
    server.enqueue(ScriptedReply(text="too late", delay=5))
    executor = executor_for(model_for(provider, server, timeout=TIMEOUT))
    started = time.monotonic()
    with pytest.raises(ProviderTimeoutError) as info:
        executor.invoke({"input": "q"})
    assert TIMEOUT <= time.monotonic() - started < TIMEOUT + 1.5
    assert_noted(info.value, 1, provider)


# -- content JSON cannot carry -------------------------------------------------------------------


@pytest.mark.parametrize("streaming", [False, True], ids=["invoke", "stream"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_reply_that_cannot_be_sent_back_ends_the_run_typed(
    server: FakeProviderServer, provider: Provider, streaming: bool
) -> None:
    # The server's JSON escapes a lone surrogate into the arguments (valid JSON, but no
    # UTF-8 can carry it back): the next request cannot be sent, and says where and why.
    call = ScriptedToolCall("weather", '{"city": "Pa\\udcffris"}')
    server.enqueue(ScriptedReply(tool_calls=[call]), ANSWER)
    executor = executor_for(model_for(provider, server), streaming=streaming)
    with pytest.raises(UnencodableContentError) as info:
        executor.invoke({"input": "Weather in Paris?"})
    owner = "ChatOpenAI" if provider == "openai" else "ChatAnthropic"
    kind = "AIMessageChunk" if streaming else "AIMessage"  # what the agent kept of the reply
    assert str(info.value) == (
        f"{owner} cannot send message 2 ({kind}) tool_calls[0]['args']['city']: a lone "
        "surrogate '\\udcff' at index 2, which UTF-8 cannot encode (text decoded with "
        "errors='surrogateescape'?); nothing was sent"
    )
    assert isinstance(info.value, ProviderError)
    assert_noted(info.value, 2, provider)
    assert len(server.requests) == 1  # the second request was never sent
    assert server.pending == (ANSWER,)
