"""The API key never leaves its `SecretStr`: one module scans every place it could show up.

A real agent run (OpenAI and Anthropic, real SDKs against the local fake server) is observed
in every way leanchain offers at once — verbose console output, a `ConsoleCallbackHandler`,
OpenTelemetry spans with content capture, the event stream, a handler that keeps the repr of
every callback argument, and logging at DEBUG for every logger (the SDKs' and ``httpx2``'s
included) — then made to fail (a 401 whose message echoes the key, a stream that breaks).
Every text that came out is searched for the key; each source must have said something, so
the scan cannot pass by looking at nothing.

The scan runs with the key as given and with the key wrapped in whitespace (a trailing newline
from a file, pasted spaces: stripped, and the call goes through). A key with a character no
HTTP header can carry (a pasted quote, a zero-width or non-breaking space, a line break inside)
is refused with a typed error before anything is sent: given directly, from the environment
or per call through ``configurable_fields``, no part of it shows in any error, traceback,
chained exception or log line — the HTTP client's DEBUG log included.
"""

from __future__ import annotations

import io
import json
import logging
import os
import traceback
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import SecretStr

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import BaseCallbackHandler, ConsoleCallbackHandler
from leanchain.errors import AuthenticationError, ProviderConfigurationError, ProviderError
from leanchain.language_models import BaseChatModel
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.runnables import ConfigurableField
from leanchain.testing import (
    BrokenStream,
    FakeProviderServer,
    ScriptedError,
    ScriptedReply,
    ScriptedToolCall,
)
from leanchain.tools import tool
from leanchain.tracing import OpenTelemetryCallbackHandler

KEY = "sk-leanchain-SECRET-7f3a9c20e1"
PADDED = {"as given": KEY, "in whitespace": f"  {KEY}\n"}
UNSENDABLE = {
    "a pasted quote": "sk-leanchain-\u2019SECRET-7f3a9c20e1",
    "a zero-width space": "sk-leanchain-SECRET\u200b-7f3a9c20e1",
    "a non-breaking space": "sk-leanchain-SECRET\u00a07f3a9c20e1",
    "a line break": "sk-leanchain-SECRET\n-7f3a9c20e1",
    "a non-ASCII letter": "sk-leanchain-SÉCRET-7f3a9c20e1",
}


@pytest.fixture(autouse=True)
def _offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.delenv("NO_COLOR", raising=False)


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as server:
        yield server


def make_model(provider: str, server: FakeProviderServer, key: str = KEY) -> BaseChatModel:
    if provider == "openai":
        return ChatOpenAI(
            model="gpt-fake", api_key=key, base_url=server.openai_base_url, max_retries=0
        )
    return ChatAnthropic(
        model="claude-fake", api_key=key, base_url=server.anthropic_base_url, max_retries=0
    )


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


class Everything(BaseCallbackHandler):
    """Keeps the repr of every argument of every callback it is given (all hooks below)."""

    def __init__(self) -> None:
        self.payloads: list[str] = []


def _recording(event: str) -> Any:
    def record(self: Everything, *args: Any, **kwargs: Any) -> None:
        self.payloads.append(f"{event} {args!r} {kwargs!r}")

    return record


# Defined on the class, not looked up dynamically: handlers are called only for the hooks
# their class overrides.
for _event in [name for name in vars(BaseCallbackHandler) if name.startswith("on_")]:
    setattr(Everything, _event, _recording(_event))


def script(server: FakeProviderServer) -> None:
    """One tool call and an answer, for each of the runs below."""
    call = ScriptedReply(tool_calls=[ScriptedToolCall("weather", {"city": "Paris"})])
    server.enqueue(call, ScriptedReply(text="It is sunny."))


@pytest.mark.parametrize("given", list(PADDED))
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_the_key_shows_nowhere(
    provider: str,
    given: str,
    server: FakeProviderServer,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    server.require_api_key(KEY)  # a padded key reaches the server stripped
    model = make_model(provider, server, PADDED[given])
    agent = create_tool_calling_agent(model, [weather], TOOL_CALLING_PROMPT)
    console = io.StringIO()
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    everything = Everything()
    handlers = [
        ConsoleCallbackHandler(console, color=False, max_length=100_000),
        OpenTelemetryCallbackHandler(tracer_provider, capture_content=True),
        everything,
    ]
    executor = AgentExecutor(
        agent=agent, tools=[weather], verbose=True, callbacks=handlers, handle_tool_errors=True
    )
    texts: dict[str, list[str]] = {}

    # Objects and their descriptions.
    bound = model.bind_tools([weather], tool_choice="weather")
    texts["reprs"] = [
        repr(model),
        str(model),
        repr(bound),
        repr(agent),
        repr(executor),
        repr(model.api_key),  # type: ignore[attr-defined]
        str(model.api_key),  # type: ignore[attr-defined]
        json.dumps(agent.get_graph().to_json(with_schemas=True), default=repr),
        agent.get_graph().draw_ascii(),
    ]
    assert isinstance(model.api_key, SecretStr)  # type: ignore[attr-defined]

    # Runs, sync and async, invoked and as events.
    script(server)
    result = executor.invoke({"input": "Weather in Paris?"})
    assert result["output"] == "It is sunny."
    script(server)
    events = [repr(e) async for e in executor.astream_events({"input": "Weather?"})]
    script(server)
    steps = [repr(s) for s in executor.stream({"input": "Weather?"})]
    texts["events"] = events
    texts["stream"] = steps

    # Failures: a 401 that echoes the key, and a stream that breaks mid-answer.
    server.enqueue(ScriptedError(401, message=f"Incorrect API key provided: {KEY}"))
    with pytest.raises(AuthenticationError) as auth:
        await executor.ainvoke({"input": "Weather?"})
    server.enqueue(BrokenStream(ScriptedReply(text="It is sun" * 4), after_events=3))
    with pytest.raises(ProviderError) as broken:
        executor.invoke({"input": "Weather?"})
    texts["errors"] = [
        text
        for error in (auth.value, broken.value)
        for text in (
            str(error),
            repr(error),
            "".join(traceback.format_exception(error)),
            repr(error.__cause__),
            repr(vars(error)),
        )
    ]

    # Everything every channel said.
    spans = exporter.get_finished_spans()
    texts["spans"] = [span.to_json() for span in spans]
    texts["console"] = [console.getvalue()]
    captured = capsys.readouterr()
    texts["verbose"] = [captured.out + captured.err]
    texts["callbacks"] = everything.payloads
    texts["logs"] = [caplog.text, *(repr(r.__dict__) for r in caplog.records)]
    texts["server records"] = [repr(r) for r in server.requests]

    for source, found in texts.items():
        assert found, f"{source} said nothing"
        assert any(found), f"{source} said nothing"
        leaks = [text for text in found if KEY in text]
        assert leaks == [], f"the key leaked into {source}"
    # The scan looked at real output: the SDKs logged, the spans and the console saw the run.
    assert any(r.name.startswith(("openai", "anthropic")) for r in caplog.records)
    assert any(r.name.startswith(("httpx2", "httpcore2")) for r in caplog.records)
    assert "Paris" in texts["console"][0]
    assert "sunny in Paris" in texts["verbose"][0]
    assert any("sunny in Paris" in s for s in texts["spans"])
    assert "**********" in str(auth.value)


def every_text(error: BaseException) -> list[str]:
    """An error's message, repr and traceback, and those of everything chained under it."""
    texts = ["".join(traceback.format_exception(error))]
    pending: list[BaseException | None] = [error]
    seen: set[int] = set()
    while pending:
        exc = pending.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        texts += [str(exc), repr(exc), repr(vars(exc))]
        pending += [exc.__cause__, exc.__context__]
    return texts


def parts_of(key: str) -> list[str]:
    """The key and its pieces either side of the bad character: none may show."""
    bad = next(i for i, char in enumerate(key) if not (char.isascii() and char.isprintable()))
    return [key, key[:bad], key[bad + 1 :], "SECRET", "7f3a9c20e1"]


@pytest.mark.parametrize("how", ["given", "environment", "per call"])
@pytest.mark.parametrize("kind", list(UNSENDABLE))
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_key_http_cannot_carry_is_refused_and_shows_nowhere(
    provider: str,
    kind: str,
    how: str,
    server: FakeProviderServer,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)
    key = UNSENDABLE[kind]
    env = "OPENAI_API_KEY" if provider == "openai" else "ANTHROPIC_API_KEY"
    cls = ChatOpenAI if provider == "openai" else ChatAnthropic
    url = server.openai_base_url if provider == "openai" else server.anthropic_base_url

    def attempt() -> None:
        if how == "given":
            make_model(provider, server, key)
        elif how == "environment":
            monkeypatch.setenv(env, key)
            cls(model="m", base_url=url)
        else:
            field = ConfigurableField(id="api_key")
            configurable = make_model(provider, server).configurable_fields(api_key=field)
            configurable.invoke("hi", {"configurable": {"api_key": key}})

    with pytest.raises(ProviderConfigurationError) as info:
        attempt()
    error = info.value
    assert isinstance(error, ValueError)
    assert "which an HTTP header cannot carry" in str(error)
    texts = [*every_text(error), caplog.text, *(repr(r.__dict__) for r in caplog.records)]
    leaks = [part for part in parts_of(key) for text in texts if part in text]
    assert leaks == []
    assert server.requests == []  # refused before anything was sent


def test_the_key_is_kept_only_as_a_secret(server: FakeProviderServer) -> None:
    for provider in ("openai", "anthropic"):
        model = make_model(provider, server)
        secret = model.api_key  # type: ignore[attr-defined]
        assert isinstance(secret, SecretStr)
        assert secret.get_secret_value() == KEY
        assert not hasattr(model, "__dict__")  # slots: no stray copy of the key in a dict
        for name in type(model).__slots__ if hasattr(type(model), "__slots__") else ():
            value = getattr(model, name, None)
            assert not (isinstance(value, str) and KEY in value), name
