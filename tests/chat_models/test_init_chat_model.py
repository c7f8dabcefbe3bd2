"""init_chat_model: "provider:model" strings, inference and errors, over the fake server."""

from __future__ import annotations

import pytest

from leanchain.chat_models import init_chat_model
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply


def test_openai_prefix_builds_chat_openai_and_it_answers() -> None:
    with FakeProviderServer() as server:
        server.enqueue(ScriptedReply(text="hello"))
        model = init_chat_model(
            "openai:fake-model", api_key="sk-test", base_url=server.openai_base_url, temperature=0
        )
        assert isinstance(model, ChatOpenAI)
        assert (model.model_name, model.invoke("hi").text) == ("fake-model", "hello")
        [request] = server.requests
    assert (request.body["model"], request.body["temperature"]) == ("fake-model", 0)


def test_anthropic_prefix_and_inference_from_the_name() -> None:
    with FakeProviderServer() as server:
        server.enqueue(ScriptedReply(text="hi from claude"))
        model = init_chat_model(
            "claude-fake", api_key="sk-ant-test", base_url=server.anthropic_base_url
        )
        assert isinstance(model, ChatAnthropic)
        assert model.invoke("hi").text == "hi from claude"
    assert isinstance(init_chat_model("anthropic:claude-x", api_key="k"), ChatAnthropic)
    assert isinstance(init_chat_model("gpt-4o-mini", api_key="k"), ChatOpenAI)
    assert isinstance(init_chat_model("x", model_provider="openai", api_key="k"), ChatOpenAI)


def test_an_unknown_provider_or_name_says_what_is_supported() -> None:
    with pytest.raises(ValueError) as unknown:
        init_chat_model("bar", model_provider="foo")
    assert str(unknown.value) == (
        "Unsupported model_provider='foo'.\n\nSupported model providers are: anthropic, openai"
    )
    with pytest.raises(ValueError) as unnamed:
        init_chat_model("xyz")
    assert str(unnamed.value) == (
        "Unable to infer model provider for model='xyz'. Please specify 'model_provider' "
        "directly.\n\nSupported providers: anthropic, openai"
    )


def test_a_setting_the_provider_does_not_take_is_named() -> None:
    with pytest.raises(TypeError, match="no_such_setting"):
        init_chat_model("openai:m", api_key="k", no_such_setting=1)


def test_a_configurable_model_without_a_name_is_not_provided() -> None:
    with pytest.raises(TypeError, match="needs a model name"):
        init_chat_model("")
