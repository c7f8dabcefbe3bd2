"""Record a multi-step agent over the fake server with the real SDKs; replay it offline."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from cassette_support import (
    ANSWER,
    API_KEY,
    HEADER_SECRET,
    QUESTION,
    TOOLS,
    base_url,
    executor,
    provider_model,
    script,
    without_ids,
)

from leanchain.callbacks import BaseCallbackHandler
from leanchain.messages import AIMessageChunk, HumanMessage
from leanchain.testing import CassetteMismatchError, FakeProviderServer, cassette


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Recorded:
    """What a recording left: the file, the stopped server's URL and the request count."""

    def __init__(self, path: Path, url: str, requests: int) -> None:
        self.path, self.url, self.requests = path, url, requests


def record(provider: str, path: Path, run: Any) -> tuple[Any, Recorded]:
    """Run `run(model)` against a live fake server inside a recording cassette."""
    with FakeProviderServer() as server:
        script(server)
        url = base_url(server, provider)
        model = provider_model(provider, url)
        with cassette(path, mode="record"):
            result = run(model)
        requests = len(server.requests)
        model.close()  # type: ignore[attr-defined]
    return result, Recorded(path, url, requests)


def replay(provider: str, recorded: Recorded, run: Any) -> Any:
    """Run `run(model)` with the server gone, from the cassette."""
    model = provider_model(provider, recorded.url)
    with cassette(recorded.path, mode="replay") as tape:
        result = run(model)
    assert tape.unplayed == []
    return result


def assert_no_secret(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert API_KEY not in text
    assert HEADER_SECRET not in text
    assert "SECRET" not in text


def test_invoke_replays_the_same_output(provider: str, tmp_path: Path) -> None:
    def run(model: Any) -> dict[str, Any]:
        return executor(model).invoke({"input": QUESTION})

    live, recorded = record(provider, tmp_path / "run.json", run)
    assert recorded.requests == 3
    assert live["output"] == ANSWER
    assert [action.tool for action, _ in live["intermediate_steps"]] == [
        "get_weather",
        "get_weather",
        "get_time",
    ]
    assert replay(provider, recorded, run) == live
    assert_no_secret(recorded.path)


async def test_ainvoke_replays_the_same_output(provider: str, tmp_path: Path) -> None:
    async def arun(model: Any) -> dict[str, Any]:
        return await executor(model).ainvoke({"input": QUESTION})

    with FakeProviderServer() as server:
        script(server)
        # The models live until the loop ends, which closes their pooled connections.
        model = provider_model(provider, base_url(server, provider))
        with cassette(tmp_path / "run.json", mode="record"):
            live = await arun(model)
    async with cassette(tmp_path / "run.json", mode="replay") as tape:
        replayed = await arun(model)
    assert replayed == live
    assert live["output"] == ANSWER
    assert [e.call for e in tape.entries] == ["ainvoke", "ainvoke", "ainvoke"]
    assert_no_secret(tmp_path / "run.json")


class Tokens(BaseCallbackHandler):
    """Asks for tokens, so the executor streams the agent (and the model over SSE)."""

    wants_tokens = True


def test_stream_replays_the_same_chunks(provider: str, tmp_path: Path) -> None:
    def run(model: Any) -> list[Any]:
        return list(executor(model).stream({"input": QUESTION}, {"callbacks": [Tokens()]}))

    live, recorded = record(provider, tmp_path / "run.json", run)
    assert live[-1]["output"] == ANSWER
    assert replay(provider, recorded, run) == live
    assert_no_secret(recorded.path)


async def test_astream_events_replay_equals_the_recording(provider: str, tmp_path: Path) -> None:
    async def arun(model: Any) -> list[Any]:
        return [e async for e in executor(model).astream_events({"input": QUESTION})]

    with FakeProviderServer() as server:
        script(server)
        model = provider_model(provider, base_url(server, provider))
        with cassette(tmp_path / "run.json", mode="record") as tape:
            live = await arun(model)
        assert [r.stream for r in server.requests] == [True, True, True]
    assert [e.call for e in tape.entries] == ["astream", "astream", "astream"]
    async with cassette(tmp_path / "run.json", mode="replay"):
        replayed = await arun(model)
    assert without_ids(replayed) == without_ids(live)
    tokens = [e["data"]["chunk"] for e in live if e["event"] == "on_chat_model_stream"]
    assert len(tokens) > 6
    assert all(isinstance(t, AIMessageChunk) for t in tokens)
    [end] = [e for e in live if (e["event"], e["name"]) == ("on_chain_end", "AgentExecutor")]
    assert end["data"]["output"]["output"] == ANSWER
    assert_no_secret(tmp_path / "run.json")


def test_model_stream_chunks_replay_exactly(provider: str, tmp_path: Path) -> None:
    def run(model: Any) -> list[AIMessageChunk]:
        return list(model.bind_tools(TOOLS).stream([HumanMessage(QUESTION)]))

    live, recorded = record(provider, tmp_path / "run.json", run)
    assert sum(1 for c in live if c.tool_call_chunks) >= 2
    assert live[-1].chunk_position == "last"
    assert replay(provider, recorded, run) == live


def test_a_changed_prompt_is_a_mismatch_with_a_readable_diff(provider: str, tmp_path: Path) -> None:
    _, recorded = record(
        provider, tmp_path / "run.json", lambda m: executor(m).invoke({"input": QUESTION})
    )
    model = provider_model(provider, recorded.url)
    with (
        cassette(recorded.path, mode="replay"),
        pytest.raises(CassetteMismatchError) as info,
    ):
        executor(model).invoke({"input": "What is the weather in Rome?"})
    name = "ChatOpenAI" if provider == "openai" else "ChatAnthropic"
    message = str(info.value)
    assert message.startswith(
        f"cassette {recorded.path}: no recorded call matches this invoke of {name}. "
        "The closest recorded request is entry 1; what differs (- recorded, + this call):\n"
        "--- recorded (entry 1 of 3, invoke)\n"
        "+++ this call (invoke)\n"
    )
    removed = [line for line in info.value.diff.splitlines() if line.startswith("-  ")]
    added = [line for line in info.value.diff.splitlines() if line.startswith("+  ")]
    assert removed == [f'-      "content": "{QUESTION}"']
    assert added == ['+      "content": "What is the weather in Rome?"']
    assert info.value.closest is not None
    assert info.value.closest["messages"][1] == {"type": "human", "content": QUESTION}
    assert info.value.request["messages"][1] == {
        "type": "human",
        "content": "What is the weather in Rome?",
    }


def test_a_changed_model_setting_is_a_mismatch(provider: str, tmp_path: Path) -> None:
    _, recorded = record(
        provider, tmp_path / "run.json", lambda m: executor(m).invoke({"input": QUESTION})
    )
    other = provider_model(provider, recorded.url).bind(temperature=0.5)
    with cassette(recorded.path, mode="replay"), pytest.raises(CassetteMismatchError) as info:
        executor(other).invoke({"input": QUESTION})  # type: ignore[arg-type]
    assert info.value.diff.splitlines()[-4:] == [
        "-  ]",
        "+  ],",
        '+  "kwargs": {"temperature": 0.5}',
        " }",
    ]


def test_the_file_is_readable(provider: str, tmp_path: Path) -> None:
    _, recorded = record(
        provider, tmp_path / "run.json", lambda m: executor(m).invoke({"input": QUESTION})
    )
    text = recorded.path.read_text(encoding="utf-8")
    assert text.startswith('{\n  "version": 1,\n  "entries": [\n')
    assert f'"type": "human",\n            "content": "{QUESTION}"\n' in text
    assert f'"content": "{ANSWER}"' in text
    assert '"tool_call_id": "call_P"' in text
