"""``configurable_fields`` on a provider model: each configuration its own client (issue 14.3).

Two tenants, each with its own server that accepts only its own key: every call reaches the
server its configuration names, with its key, under its timeout — the default model's cached
client is never borrowed — and a plain-string key works.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from providers_support import API_KEY, OPEN_MODELS, anthropic, openai

from leanchain.errors import ProviderConfigurationError, ProviderTimeoutError
from leanchain.language_models import BaseChatModel
from leanchain.runnables import ConfigurableField, RunnableConfig
from leanchain.testing import FakeProviderServer, ScriptedReply

TENANT_KEY = "sk-tenant-b-9876543210fedcba"


@pytest.fixture
def other() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as server:
        yield server


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def url(server: FakeProviderServer, provider: str) -> str:
    return server.openai_base_url if provider == "openai" else server.anthropic_base_url


def configurable(server: FakeProviderServer, provider: str, **settings: Any) -> Any:
    model = (openai if provider == "openai" else anthropic)(server, **settings)
    return model.configurable_fields(
        api_key=ConfigurableField(id="api_key"),
        base_url=ConfigurableField(id="base_url"),
        timeout=ConfigurableField(id="timeout"),
        temperature=ConfigurableField(id="temperature"),
    )


def tenant(other: FakeProviderServer, provider: str, **more: Any) -> RunnableConfig:
    return {"configurable": {"api_key": TENANT_KEY, "base_url": url(other, provider), **more}}


def test_each_configuration_reaches_its_server_with_its_key(
    server: FakeProviderServer, other: FakeProviderServer, provider: str
) -> None:
    server.require_api_key(API_KEY)
    other.require_api_key(TENANT_KEY)
    model = configurable(server, provider)
    server.enqueue(ScriptedReply(text="default"), ScriptedReply(text="default again"))
    other.enqueue(ScriptedReply(text="tenant"), ScriptedReply(text="tenant again"))
    assert model.invoke("hi").content == "default"  # the default's client exists from now on
    assert model.invoke("hi", tenant(other, provider)).content == "tenant"
    assert model.invoke("hi").content == "default again"
    chunks = list(model.stream("hi", tenant(other, provider)))
    assert "".join(str(chunk.content) for chunk in chunks) == "tenant again"
    assert (len(server.requests), len(other.requests)) == (2, 2)


async def test_async_configurations_do_not_cross_either(
    server: FakeProviderServer, other: FakeProviderServer, provider: str
) -> None:
    server.require_api_key(API_KEY)
    other.require_api_key(TENANT_KEY)
    model = configurable(server, provider)
    server.enqueue(*[ScriptedReply(text="default")] * 3)
    other.enqueue(*[ScriptedReply(text="tenant")] * 3)
    configs: list[RunnableConfig | None] = [None, tenant(other, provider)] * 3
    answers = await asyncio.gather(*(model.ainvoke("hi", config) for config in configs))
    assert [answer.content for answer in answers] == ["default", "tenant"] * 3
    assert (len(server.requests), len(other.requests)) == (3, 3)


def test_concurrent_tenants_in_threads_never_share_a_key(
    server: FakeProviderServer, other: FakeProviderServer, provider: str
) -> None:
    server.require_api_key(API_KEY)
    other.require_api_key(TENANT_KEY)
    model = configurable(server, provider)
    server.enqueue(*[ScriptedReply(text="default")] * 4)
    other.enqueue(*[ScriptedReply(text="tenant")] * 4)
    configs: list[RunnableConfig] = [{}, tenant(other, provider)] * 4
    answers = model.batch(["hi"] * 8, configs)
    assert [answer.content for answer in answers] == ["default", "tenant"] * 4
    assert server.pending == other.pending == ()


def test_a_per_call_timeout_is_honoured_once_a_client_exists(
    server: FakeProviderServer, provider: str
) -> None:
    model = configurable(server, provider)
    server.enqueue(
        ScriptedReply(text="quick"),
        ScriptedReply(text="late", delay=0.5),
        ScriptedReply(text="late but waited for", delay=0.3),
    )
    assert model.invoke("hi").content == "quick"
    with pytest.raises(ProviderTimeoutError):
        model.invoke("hi", {"configurable": {"timeout": 0.1}})
    assert model.invoke("hi").content == "late but waited for"  # the default has no timeout


def test_a_plain_string_key_is_made_secret_and_checked(
    server: FakeProviderServer, provider: str
) -> None:
    model = configurable(server, provider)
    server.require_api_key(TENANT_KEY)
    server.enqueue(ScriptedReply(text="ok"))
    config: RunnableConfig = {"configurable": {"api_key": f"{TENANT_KEY}\n"}}
    assert model.invoke("hi", config).content == "ok"
    with pytest.raises(ProviderConfigurationError) as info:
        model.invoke("hi", {"configurable": {"api_key": "sk-\u2019-0123456789"}})
    assert str(info.value).startswith(
        f"{'ChatOpenAI' if provider == 'openai' else 'ChatAnthropic'}'s api_key has a "
        "non-ASCII character (RIGHT SINGLE QUOTATION MARK) at position 3"
    )
    assert len(server.requests) == 1


def test_a_configured_bad_base_url_fails_before_sending(
    server: FakeProviderServer, provider: str
) -> None:
    model = configurable(server, provider)
    with pytest.raises(ProviderConfigurationError, match=r"'http://\[::1' is not a valid URL"):
        model.invoke("hi", {"configurable": {"base_url": "http://[::1"}})
    assert server.requests == []


def test_a_configured_setting_is_sent(server: FakeProviderServer, provider: str) -> None:
    model = configurable(server, provider, temperature=0.1)
    server.enqueue(ScriptedReply(text="a"), ScriptedReply(text="b"))
    model.invoke("hi")
    model.invoke("hi", {"configurable": {"temperature": 0.9}})
    assert [request.body["temperature"] for request in server.requests] == [0.1, 0.9]


def test_the_copies_share_one_connection_pool(
    server: FakeProviderServer, other: FakeProviderServer, provider: str
) -> None:
    model = configurable(server, provider)
    default: BaseChatModel = model.default
    server.enqueue(ScriptedReply(text="a"))
    other.enqueue(ScriptedReply(text="b"), ScriptedReply(text="c"))
    model.invoke("hi")
    model.invoke("hi", tenant(other, provider))
    model.invoke("hi", tenant(other, provider))
    pool = default._pool  # type: ignore[attr-defined]
    assert len(pool._sync) == 2  # one SDK client per configuration, made once each
    clients = list(pool._sync.values())
    assert clients[0]._client is clients[1]._client  # over one httpx2 pool
    OPEN_MODELS.append(default)  # type: ignore[arg-type]
