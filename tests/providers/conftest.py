"""Fixtures for the provider tests: a clean environment, a fake server, models pointed at it."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from providers_support import API_KEY

from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as server:
        yield server


@pytest.fixture
def openai_model(server: FakeProviderServer) -> ChatOpenAI:
    return ChatOpenAI(
        model="gpt-fake", api_key=API_KEY, base_url=server.openai_base_url, max_retries=0
    )


@pytest.fixture
def anthropic_model(server: FakeProviderServer) -> ChatAnthropic:
    return ChatAnthropic(
        model="claude-fake", api_key=API_KEY, base_url=server.anthropic_base_url, max_retries=0
    )
