"""Shared values and helpers of the provider tests."""

from __future__ import annotations

from typing import Any

from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer

API_KEY = "sk-test-SECRET-0123456789abcdef"
"""The key every test model uses; no output may ever contain it."""

OPEN_MODELS: list[ChatOpenAI | ChatAnthropic] = []
"""Models made by the helpers below; the conftest closes them after each test."""


def who(server: FakeProviderServer, provider: str) -> str:
    """How errors name the fake server: a compatible server, by host and port."""
    label = "OpenAI" if provider == "openai" else "Anthropic"
    return f"{label}-compatible server 127.0.0.1:{server.port}"


def last_body(server: FakeProviderServer) -> dict[str, Any]:
    """The JSON body of the last request the server received."""
    body = server.requests[-1].body
    assert isinstance(body, dict)
    return body


def openai(server: FakeProviderServer, **settings: Any) -> ChatOpenAI:
    """A ChatOpenAI pointed at `server` (no retries unless asked for)."""
    settings.setdefault("max_retries", 0)
    settings.setdefault("api_key", API_KEY)
    model = ChatOpenAI(
        model=settings.pop("model", "gpt-fake"), base_url=server.openai_base_url, **settings
    )
    OPEN_MODELS.append(model)
    return model


def anthropic(server: FakeProviderServer, **settings: Any) -> ChatAnthropic:
    """A ChatAnthropic pointed at `server` (no retries unless asked for)."""
    settings.setdefault("max_retries", 0)
    settings.setdefault("api_key", API_KEY)
    model = ChatAnthropic(
        model=settings.pop("model", "claude-fake"), base_url=server.anthropic_base_url, **settings
    )
    OPEN_MODELS.append(model)
    return model
