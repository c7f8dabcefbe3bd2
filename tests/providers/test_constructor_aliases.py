"""LangChain's constructor arguments for the provider models (issue 14.18).

``ChatOpenAI(model_name=..., openai_api_key=..., openai_api_base=..., request_timeout=...,
streaming=True)`` and ``ChatAnthropic(anthropic_api_key=...)`` port unchanged; an unknown
keyword names the closest accepted one, and a LangChain argument leanchain does not take says
what to do instead.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from providers_support import API_KEY, OPEN_MODELS

from leanchain.callbacks import BaseCallbackHandler
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply


def keep(model: Any) -> Any:
    OPEN_MODELS.append(model)
    return model


def test_chat_openai_takes_langchains_names(server: FakeProviderServer) -> None:
    server.require_api_key(API_KEY)
    model = keep(
        ChatOpenAI(
            model_name="gpt-4o",
            openai_api_key=API_KEY,
            openai_api_base=server.openai_base_url,
            openai_organization="org-team",
            request_timeout=12.5,
            stop_sequences=["\nObservation"],
            max_retries=0,
            frequency_penalty=0.5,
            presence_penalty=0.25,
            logprobs=None,  # left unset, as LangChain leaves a None field: not sent
            reasoning_effort="low",
        )
    )
    assert (model.model, model.base_url, model.timeout) == (
        "gpt-4o",
        server.openai_base_url,
        12.5,
    )
    assert (model.organization, model.stop) == ("org-team", ["\nObservation"])
    assert model.model_kwargs == {
        "frequency_penalty": 0.5,
        "presence_penalty": 0.25,
        "reasoning_effort": "low",
    }
    server.enqueue(ScriptedReply(text="ok"))
    assert model.invoke("hi").content == "ok"
    request = server.requests[0]
    assert request.body == {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "hi"}],
        "frequency_penalty": 0.5,
        "presence_penalty": 0.25,
        "reasoning_effort": "low",
        "stop": ["\nObservation"],
    }
    assert request.headers["openai-organization"] == "org-team"
    assert request.headers["x-stainless-read-timeout"] == "12.5"


def test_chat_anthropic_takes_langchains_names(server: FakeProviderServer) -> None:
    server.require_api_key(API_KEY)
    thinking = {"type": "enabled", "budget_tokens": 1024}
    model = keep(
        ChatAnthropic(
            model_name="claude-sonnet-4-6",
            anthropic_api_key=API_KEY,
            anthropic_api_url=server.anthropic_base_url,
            default_request_timeout=30.0,
            max_tokens_to_sample=2048,
            stop=["\nHuman:"],
            thinking=thinking,
            max_retries=0,
        )
    )
    assert (model.model, model.timeout, model.max_tokens) == ("claude-sonnet-4-6", 30.0, 2048)
    assert model.stop_sequences == ["\nHuman:"]
    server.enqueue(ScriptedReply(text="ok"))
    assert model.invoke("hi").content == "ok"
    assert server.requests[0].body == {
        "model": "claude-sonnet-4-6",
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 2048,
        "thinking": thinking,
        "stop_sequences": ["\nHuman:"],
    }


def test_default_headers_go_with_every_request(server: FakeProviderServer) -> None:
    for model in (
        ChatOpenAI(
            api_key=API_KEY,
            base_url=server.openai_base_url,
            default_headers={"x-gateway-team": "search"},
        ),
        ChatAnthropic(
            model="m",
            api_key=API_KEY,
            base_url=server.anthropic_base_url,
            default_headers={"anthropic-beta": "tools-2025"},
        ),
    ):
        keep(model)
        server.enqueue(ScriptedReply(text="ok"))
        model.invoke("hi")
    headers = [request.headers for request in server.requests]
    assert (headers[0]["x-gateway-team"], headers[1]["anthropic-beta"]) == (
        "search",
        "tools-2025",
    )


@pytest.mark.parametrize(
    ("cls", "settings", "message"),
    [
        (
            ChatOpenAI,
            {"temprature": 0.2},
            "ChatOpenAI got an unexpected keyword argument 'temprature': did you mean "
            "'temperature'?",
        ),
        (
            ChatOpenAI,
            {"openai_api_kye": API_KEY},
            "ChatOpenAI got an unexpected keyword argument 'openai_api_kye': did you mean "
            "'openai_api_key'?",
        ),
        (
            ChatAnthropic,
            {"model": "m", "max_token": 5},
            "ChatAnthropic got an unexpected keyword argument 'max_token': did you mean "
            "'max_tokens'?",
        ),
        (
            ChatOpenAI,
            {"callbacks": []},
            "ChatOpenAI does not take LangChain's 'callbacks' argument: a model holds no "
            "callbacks: use model.with_config(callbacks=[...])",
        ),
        (
            ChatOpenAI,
            {"n": 3},
            "ChatOpenAI does not take LangChain's 'n' argument: leanchain reads one choice "
            "per reply; call batch() for several",
        ),
        (
            ChatOpenAI,
            {"use_responses_api": True},
            "ChatOpenAI does not take LangChain's 'use_responses_api' argument: ChatOpenAI "
            "speaks the Chat Completions API",
        ),
        (
            ChatAnthropic,
            {"model": "m", "betas": ["x"]},
            "ChatAnthropic does not take LangChain's 'betas' argument: send "
            "default_headers={'anthropic-beta': '...'}",
        ),
        (
            ChatOpenAI,
            {"model": "gpt-4o", "model_name": "gpt-4o-mini"},
            "ChatOpenAI got 'model' twice, as 'model' and as its alias 'model_name': give one "
            "of them",
        ),
    ],
)
def test_unknown_and_unsupported_keywords_say_what_to_do(
    cls: type[Any], settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError) as info:
        cls(api_key=API_KEY, **settings)
    assert str(info.value) == message


def test_a_keyword_far_from_every_name_lists_them() -> None:
    with pytest.raises(TypeError) as info:
        ChatAnthropic(model="m", api_key=API_KEY, zzz=1)  # type: ignore[call-arg]
    assert str(info.value).startswith(
        "ChatAnthropic got an unexpected keyword argument 'zzz'; it takes anthropic_api_key, "
        "anthropic_api_url, api_key, base_url, default_headers, default_request_timeout, "
    )


class Tokens(BaseCallbackHandler):
    """A handler that listens for tokens but does not ask for a stream (no wants_tokens)."""

    def __init__(self) -> None:
        self.tokens: list[str] = []

    def on_llm_new_token(self, token: str, *, run_id: UUID, **kwargs: Any) -> None:
        self.tokens.append(token)


@pytest.mark.parametrize("cls", [ChatOpenAI, ChatAnthropic])
def test_streaming_true_makes_invoke_stream_for_its_handlers(
    server: FakeProviderServer, cls: type[Any]
) -> None:
    url = server.openai_base_url if cls is ChatOpenAI else server.anthropic_base_url
    plain = keep(cls(model="m", api_key=API_KEY, base_url=url))
    streaming = keep(cls(model="m", api_key=API_KEY, base_url=url, streaming=True))
    server.enqueue(ScriptedReply(text="one two", chunk_size=4), ScriptedReply(text="one two"))
    heard, deaf = Tokens(), Tokens()
    assert streaming.invoke("hi", {"callbacks": [heard]}).content == "one two"
    assert plain.invoke("hi", {"callbacks": [deaf]}).content == "one two"
    assert (heard.tokens, deaf.tokens) == (["one ", "two", ""], [])
    assert [request.stream for request in server.requests] == [True, False]
