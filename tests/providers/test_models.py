"""The provider models as objects: exports, lazy SDK imports, settings checked at construction."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from typing import Any

import pytest
from providers_support import API_KEY, anthropic, openai

import leanchain.providers
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply


def test_exports_match_all() -> None:
    public = {name for name in vars(leanchain.providers) if not name.startswith("_")}
    assert set(leanchain.providers.__all__) == public - {"annotations"}
    assert leanchain.providers.__all__ == ["ChatAnthropic", "ChatOpenAI"]


def loaded_after(code: str) -> list[str]:
    script = (
        "import sys\n"
        f"{code}\n"
        "roots = {'openai', 'anthropic', 'httpx2', 'httpcore2'}\n"
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules} & roots)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    return [name for name in done.stdout.strip().split(",") if name]


def test_importing_the_package_imports_no_sdk() -> None:
    assert loaded_after("import leanchain.providers") == []


def test_a_model_imports_only_its_own_sdk() -> None:
    code = "from leanchain.providers import ChatOpenAI\nChatOpenAI(api_key='k')"
    assert "anthropic" not in loaded_after(code)
    assert "openai" in loaded_after(code)
    code = "from leanchain.providers import ChatAnthropic\nChatAnthropic(model='m', api_key='k')"
    assert "openai" not in loaded_after(code)


@pytest.mark.parametrize(
    ("make", "settings", "message"),
    [
        (ChatOpenAI, {"model": ""}, "ChatOpenAI needs a model name, got ''"),
        (ChatOpenAI, {"timeout": 0}, "timeout must be a number of seconds > 0, got 0"),
        (ChatOpenAI, {"max_retries": -1}, "max_retries must be an int >= 0, got -1"),
        (
            ChatOpenAI,
            {"max_tokens": 5, "max_completion_tokens": 5},
            "Give max_tokens or max_completion_tokens, not both: they are one limit under two "
            "wire names",
        ),
        (
            ChatOpenAI,
            {"model_kwargs": {"temperature": 1}},
            "model_kwargs['temperature'] is set by ChatOpenAI itself; pass it as its own "
            "argument (or per call) instead",
        ),
        (ChatAnthropic, {"max_tokens": 0}, "max_tokens must be an int >= 1, got 0"),
        (
            ChatAnthropic,
            {"base_url": "http://127.0.0.1:9/v1"},
            "base_url 'http://127.0.0.1:9/v1' ends in /v1, but the SDK adds /v1/messages "
            "itself: give the root, e.g. 'http://127.0.0.1:8080'",
        ),
        (
            ChatAnthropic,
            {"model_kwargs": {"system": "x"}},
            "model_kwargs['system'] is set by ChatAnthropic itself; pass it as its own "
            "argument (or per call) instead",
        ),
    ],
)
def test_bad_settings_fail_at_construction(
    make: Any, settings: dict[str, Any], message: str
) -> None:
    settings = {"model": "m", **settings} if make is ChatAnthropic else settings
    with pytest.raises(ValueError) as info:
        make(api_key=API_KEY, **settings)
    assert str(info.value) == message


def test_base_url_from_the_environment(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
    server.enqueue(ScriptedReply(text="o"), ScriptedReply(text="a"))
    openai_model, anthropic_model = (
        ChatOpenAI(api_key=API_KEY),
        ChatAnthropic(model="m", api_key=API_KEY),
    )
    assert openai_model.invoke("hi").content == "o"
    assert anthropic_model.invoke("hi").content == "a"
    assert [request.provider for request in server.requests] == ["openai", "anthropic"]
    openai_model.close()
    anthropic_model.close()


def test_identity_and_invocation_params(server: FakeProviderServer) -> None:
    model = openai(server, temperature=0.5, max_tokens=9)
    assert model.model_name == "gpt-fake"
    assert model._llm_type == "openai-chat"
    assert dict(model._identifying_params) == {
        "model_name": "gpt-fake",
        "temperature": 0.5,
        "max_tokens": 9,
    }
    claude = anthropic(server, top_k=3)
    assert dict(claude._identifying_params) == {
        "model_name": "claude-fake",
        "max_tokens": 4096,
        "top_k": 3,
    }


def test_one_client_for_many_threads(server: FakeProviderServer) -> None:
    model = openai(server)
    server.enqueue(*(ScriptedReply(text=str(i)) for i in range(8)))
    answers: list[str] = []
    clients: set[int] = set()

    def ask() -> None:
        answers.append(str(model.invoke("hi").content))
        clients.add(id(model._sync_client()))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [str(i) for i in range(8)]
    assert len(clients) == 1


def test_close_then_use_again(server: FakeProviderServer) -> None:
    model = anthropic(server)
    server.enqueue(ScriptedReply(text="a"), ScriptedReply(text="b"))
    assert model.invoke("hi").content == "a"
    client = model._sync_client()
    model.close()
    assert client.is_closed()
    assert model.invoke("hi").content == "b"
    assert model._sync_client() is not client


def test_async_clients_close_with_their_event_loop(server: FakeProviderServer) -> None:
    model = openai(server)
    server.enqueue(ScriptedReply(text="a"), ScriptedReply(text="b"))

    async def ask() -> Any:
        await model.ainvoke("hi")
        return model._async_client()

    first = asyncio.run(ask())
    second = asyncio.run(ask())
    assert first is not second  # one client per event loop
    # Each closed as asyncio.run shut its loop down.
    assert (first.is_closed(), second.is_closed()) == (True, True)


def test_an_empty_key_counts_as_none(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=r"^ChatOpenAI needs an API key"):
        ChatOpenAI(api_key="")
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    assert ChatOpenAI(api_key="").api_key.get_secret_value() == API_KEY
