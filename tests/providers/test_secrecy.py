"""The API key never shows: not in a repr, an error, a log line or a callback payload."""

from __future__ import annotations

import logging
import traceback
from typing import Any

import pytest
from providers_support import API_KEY, anthropic, openai
from pydantic import SecretStr

from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import AuthenticationError, ProviderError
from leanchain.language_models import BaseChatModel
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, MidStreamError, ScriptedError, ScriptedReply
from leanchain.tools import tool


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return "found"


class Recorder(BaseCallbackHandler):
    """Keeps the repr of every argument of every callback it gets."""

    def __init__(self) -> None:
        self.payloads: list[str] = []

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("on_"):

            def record(*args: Any, **kwargs: Any) -> None:
                object.__getattribute__(self, "payloads").append(f"{name} {args!r} {kwargs!r}")

            return record
        return object.__getattribute__(self, name)


@pytest.fixture(params=["openai", "anthropic"])
def model(request: pytest.FixtureRequest, server: FakeProviderServer) -> BaseChatModel:
    return openai(server) if request.param == "openai" else anthropic(server)


def test_repr_str_and_attributes_hide_the_key(model: BaseChatModel) -> None:
    bound = model.bind_tools([lookup], tool_choice="lookup")
    for text in (repr(model), str(model), repr(bound), str(model.api_key), repr(model.api_key)):  # type: ignore[attr-defined]
        assert API_KEY not in text
    assert isinstance(model.api_key, SecretStr)  # type: ignore[attr-defined]
    assert repr(model).startswith(f"{type(model).__name__}(model=")


def test_keys_from_the_environment_are_secret_too(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    for model in (ChatOpenAI(), ChatAnthropic(model="m")):
        assert model.api_key.get_secret_value() == API_KEY
        assert API_KEY not in repr(model)


def test_missing_key_fails_at_construction() -> None:
    with pytest.raises(
        ValueError, match=r"^ChatOpenAI needs an API key: pass api_key=\.\.\. or set OPENAI_API_KEY"
    ):
        ChatOpenAI()
    with pytest.raises(
        ValueError,
        match=r"^ChatAnthropic needs an API key: pass api_key=\.\.\. or set ANTHROPIC_API_KEY",
    ):
        ChatAnthropic(model="m")


def test_a_provider_echoing_the_key_is_scrubbed_from_errors_and_causes(
    server: FakeProviderServer, model: BaseChatModel
) -> None:
    server.enqueue(ScriptedError(401, message=f"Incorrect API key provided: {API_KEY}"))
    with pytest.raises(AuthenticationError) as info:
        model.invoke("hi")
    error = info.value
    assert "answered 401: Incorrect API key provided: **********" in str(error)
    printed = "".join(traceback.format_exception(error))
    assert "Incorrect API key provided: **********" in printed
    assert API_KEY not in printed
    assert API_KEY not in repr(error.__cause__)


def test_logs_and_callback_payloads_never_carry_the_key(
    server: FakeProviderServer, model: BaseChatModel, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    recorder = Recorder()
    config: Any = {"callbacks": [recorder]}
    server.enqueue(
        ScriptedReply(text="ok"),
        ScriptedReply(text="streamed"),
        MidStreamError(ScriptedReply(text="abcdefgh"), after_events=2),
        ScriptedError(500, message=f"upstream said {API_KEY}"),
    )
    traced = model.with_config(config)
    traced.invoke("hi")
    list(traced.stream("hi"))
    with pytest.raises(ProviderError):
        list(traced.stream("hi"))
    with pytest.raises(ProviderError):
        traced.invoke("hi")
    sdk_records = [r for r in caplog.records if r.name.startswith(("openai", "anthropic"))]
    assert sdk_records  # the SDKs did log at debug level
    assert API_KEY not in caplog.text
    assert [p.split(" ", 1)[0] for p in recorder.payloads].count("on_chat_model_start") == 4
    assert not [payload for payload in recorder.payloads if API_KEY in payload]
