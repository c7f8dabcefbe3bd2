"""Fixtures for the provider tests: a clean environment, a fake server, models pointed at it."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from providers_support import OPEN_MODELS, anthropic, openai

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
    # Pooled connections close now, not whenever the garbage collector gets to them.
    while OPEN_MODELS:
        OPEN_MODELS.pop().close()


@pytest.fixture
def openai_model(server: FakeProviderServer) -> ChatOpenAI:
    return openai(server)


@pytest.fixture
def anthropic_model(server: FakeProviderServer) -> ChatAnthropic:
    return anthropic(server)
