"""Real chat models for ``leanchain demo --model PROVIDER:NAME [--base-url URL]``, and
``--model human``, where a person types the replies (`leanchain.testing.HumanChatModel`).

Keys come from the environment (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``). A ``--base-url``
points at any server that speaks the provider's API, such as a local OpenAI-compatible
server; such servers rarely check the key, so a placeholder is used when none is set.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final

from leanchain.cli._errors import CliError
from leanchain.errors import ProviderConfigurationError
from leanchain.language_models import BaseChatModel

__all__ = ["PROVIDERS", "ModelSpec", "make_model", "parse_model"]

PROVIDERS: Final = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
DEFAULT_URLS: Final = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
PLACEHOLDER_KEY: Final = "EMPTY"
HUMAN: Final = "human"
"""``--model human``: the person at the terminal plays the model."""


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A parsed ``--model`` value and ``--base-url``."""

    provider: str
    name: str
    base_url: str | None = None

    @property
    def url(self) -> str:
        """The server the model is reached at (the SDKs also read ``*_BASE_URL``)."""
        from_env = os.environ.get(f"{self.provider.upper()}_BASE_URL")
        return self.base_url or from_env or DEFAULT_URLS[self.provider]


def parse_model(value: str, base_url: str | None = None) -> ModelSpec:
    """Read ``openai:NAME``, ``anthropic:NAME`` or ``human``.

    Raises:
        CliError: no ``:``, an unknown prefix, or an empty model name; ``human`` with a URL.
    """
    if value == HUMAN:
        if base_url is not None:
            raise CliError("--model human reads its replies from you: it takes no --base-url")
        return ModelSpec(HUMAN, "you")
    provider, colon, name = value.partition(":")
    if not colon or provider not in PROVIDERS:
        known = " or ".join(f"{p}:NAME" for p in PROVIDERS)
        raise CliError(f"unknown model {value!r}: expected {known}, e.g. openai:gpt-4o-mini")
    if not name.strip():
        raise CliError(f"--model {value!r} has no model name after {provider + ':'!r}")
    return ModelSpec(provider, name.strip(), base_url)


def make_model(spec: ModelSpec) -> BaseChatModel:
    """The provider's chat model for `spec`, with the key from the environment.

    Raises:
        CliError: the key is not set (and no ``--base-url`` was given), the base URL or the
            key cannot be used, or the provider's SDK is not installed.
    """
    if spec.provider == HUMAN:
        from leanchain.testing import HumanChatModel

        return HumanChatModel()
    env = PROVIDERS[spec.provider]
    key = os.environ.get(env) or None
    if key is None:
        if spec.base_url is None:
            raise CliError(
                f"{env} is not set: export it to use {spec.provider}:{spec.name}, "
                "or give --base-url for a server that needs no key"
            )
        key = PLACEHOLDER_KEY
    try:
        if spec.provider == "openai":
            from leanchain.providers import ChatOpenAI

            return ChatOpenAI(model=spec.name, api_key=key, base_url=spec.base_url)
        from leanchain.providers import ChatAnthropic

        return ChatAnthropic(model=spec.name, api_key=key, base_url=spec.base_url)
    except ProviderConfigurationError as exc:  # a --base-url (or key) the model cannot use
        raise CliError(str(exc)) from None
    except ImportError as exc:
        # `make demo` installs only the core; a real model needs its provider's extra.
        raise CliError(
            f"{exc}; in a checkout of leanchain: make install, or "
            f".venv/bin/python -m pip install -e '.[{spec.provider}]'"
        ) from None
