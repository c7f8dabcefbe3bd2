"""Reports of runs through the real OpenAI and Anthropic SDKs (against the local fake server):
tokens and cost from the wire, failures recorded, and the API key nowhere in the report."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.cli import main
from leanchain.errors import AuthenticationError, ProviderError
from leanchain.language_models import BaseChatModel
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.report import ReportCallbackHandler, TokenUsage, report_from_cassette
from leanchain.testing import (
    BrokenStream,
    FakeProviderServer,
    ScriptedError,
    ScriptedReply,
    ScriptedToolCall,
    ScriptedUsage,
    cassette,
)
from leanchain.testing.cassettes import load_entries
from leanchain.tools import tool

KEY = "sk-leanchain-SECRET-report-9d1e"


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


def make_model(provider: str, server: FakeProviderServer) -> BaseChatModel:
    if provider == "openai":
        return ChatOpenAI(
            model="gpt-fake", api_key=KEY, base_url=server.openai_base_url, max_retries=0
        )
    return ChatAnthropic(
        model="claude-fake", api_key=KEY, base_url=server.anthropic_base_url, max_retries=0
    )


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_provider_run_has_its_tokens_and_cost_and_never_the_key(
    provider: str, server: FakeProviderServer
) -> None:
    model = make_model(provider, server)
    name = "gpt-fake" if provider == "openai" else "claude-fake"
    handler = ReportCallbackHandler(prices={name: {"input": 1.0, "output": 2.0}})
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, [weather], TOOL_CALLING_PROMPT),
        tools=[weather],
        callbacks=[handler],
    )
    server.enqueue(
        ScriptedReply(
            tool_calls=[ScriptedToolCall("weather", {"city": "Paris"})],
            usage=ScriptedUsage(input_tokens=40, output_tokens=7),
        ),
        ScriptedReply(text="It is sunny.", usage=ScriptedUsage(input_tokens=60, output_tokens=4)),
    )
    assert executor.invoke({"input": "Weather in Paris?"})["output"] == "It is sunny."
    server.enqueue(ScriptedReply(text="Streamed.", usage=ScriptedUsage(9, 3)))
    assert [c async for c in executor.astream({"input": "Again?"})][-1]["output"] == "Streamed."
    server.enqueue(ScriptedError(401, message=f"Incorrect API key provided: {KEY}"))
    with pytest.raises(AuthenticationError):
        await executor.ainvoke({"input": "Weather?"})
    server.enqueue(BrokenStream(ScriptedReply(text="It is sun" * 4), after_events=3))
    with pytest.raises(ProviderError):
        executor.invoke({"input": "Weather?"})

    report = handler.report()
    assert len(report.runs) == 4
    first = report.runs[0]
    models = [s for s in first.steps if s.kind == "model"]
    assert [(s.model, s.usage) for s in models] == [
        (name, TokenUsage(input_tokens=40, output_tokens=7, total_tokens=47)),
        (name, TokenUsage(input_tokens=60, output_tokens=4, total_tokens=64)),
    ]
    assert [s.output for s in first.steps if s.kind == "tool"] == ["sunny in Paris"]
    streamed = [s for s in report.runs[1].steps if s.kind == "model"]
    assert [s.usage for s in streamed] == [
        TokenUsage(input_tokens=9, output_tokens=3, total_tokens=12)
    ]
    assert [run.root.status for run in report.runs] == ["ok", "ok", "error", "error"]
    html = handler.to_html()
    json_text = report.to_json()
    assert "100 input + 11 output tokens · cost 0.000122 USD" in html
    assert "sunny in Paris" in html
    assert "Incorrect API key provided" in json_text
    for source in (html, json_text, repr(handler), repr(report)):
        assert KEY not in source


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_provider_cassette_reports_its_calls_tokens_and_cost_and_never_the_key(
    provider: str, server: FakeProviderServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = make_model(provider, server)
    name = "gpt-fake" if provider == "openai" else "claude-fake"
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, [weather], TOOL_CALLING_PROMPT), tools=[weather]
    )
    server.enqueue(
        ScriptedReply(
            tool_calls=[ScriptedToolCall("weather", {"city": "Paris"}, id="call_W")],
            usage=ScriptedUsage(input_tokens=40, output_tokens=7),
        ),
        ScriptedReply(text="It is sunny.", usage=ScriptedUsage(input_tokens=60, output_tokens=4)),
    )
    path, page = tmp_path / "weather.json", tmp_path / "recorded.html"
    with cassette(path, "record", report=page):
        assert executor.invoke({"input": "Weather in Paris?"})["output"] == "It is sunny."
    recorded = page.read_text(encoding="utf-8")
    assert "100 input + 11 output tokens · no price table" in recorded
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({name: {"input": 1.0, "output": 2.0}}))
    assert main(["report", str(path), "--prices", str(prices)]) == 0
    assert (
        capsys.readouterr().out
        == f"wrote {tmp_path / 'weather.html'} (a cassette of 2 model calls)\n"
    )
    priced = (tmp_path / "weather.html").read_text(encoding="utf-8")
    # 40 * 1 + 7 * 2 + 60 * 1 + 4 * 2 = 122 per million tokens
    assert "3 steps · 2 model calls · 100 input + 11 output tokens · cost 0.000122 USD" in priced
    report = report_from_cassette(load_entries(path))
    calls = report.runs[0].steps[1:]
    assert [(s.name, s.model, s.usage) for s in calls] == [
        (type(model).__name__, name, TokenUsage(input_tokens=40, output_tokens=7, total_tokens=47)),
        (type(model).__name__, name, TokenUsage(input_tokens=60, output_tokens=4, total_tokens=64)),
    ]
    first = calls[0].output
    assert isinstance(first, dict)
    assert first["tool_calls"] == [{"name": "weather", "args": {"city": "Paris"}, "id": "call_W"}]
    for text in (recorded, priced, path.read_text(encoding="utf-8"), report.to_json()):
        assert KEY not in text


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_recorded_reply_that_says_the_key_shows_it_redacted_as_the_file_does(
    provider: str, server: FakeProviderServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = make_model(provider, server)
    shaped = "sk-proj-" + "Q" * 24  # no key of this run, but shaped like one
    server.enqueue(ScriptedReply(text=f"Your key is {KEY}; another is {shaped} <{KEY}>."))
    path, page = tmp_path / "echo.json", tmp_path / "echo.html"
    with cassette(path, "record", report=page):
        assert KEY in model.invoke("What is my key?").text
    said = "Your key is [REDACTED]; another is [REDACTED] &lt;[REDACTED]&gt;."
    recorded = page.read_text(encoding="utf-8")
    assert said in recorded
    assert main(["report", str(path), "-o", str(tmp_path / "later.html")]) == 0
    capsys.readouterr()
    assert said in (tmp_path / "later.html").read_text(encoding="utf-8")
    for text in (recorded, path.read_text(encoding="utf-8")):
        assert KEY not in text
        assert shaped not in text
