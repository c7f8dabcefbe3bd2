"""What ChatOpenAI and ChatAnthropic hold alike: settings, the secret key, lazy SDK clients.

The SDK module is imported when a model object is created (never at ``import
leanchain.providers``); its clients are built on first use (`ClientPool`, ``_clients.py``).
The settings are checked whenever they are set — at construction, and when
``configurable_fields`` sets them on a per-call copy — so a bad key or URL fails before
anything is sent, and a copy with another key, URL or timeout gets its own client. What a
call does with them is `ProviderFlow`'s (``_flow.py``).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar, Literal

from pydantic import SecretStr

from leanchain.errors import ProviderConfigurationError
from leanchain.language_models import BaseChatModel

from ._aliases import resolve_aliases
from ._clients import ClientPool, ClientSettings
from ._errors import provider_label
from ._keys import env_secret
from ._rejected import RejectedParameters
from ._urls import check_base_url, safe_url, server_label

__all__ = ["ProviderChatModel"]

_CLIENT_FIELDS = frozenset(
    {"api_key", "base_url", "timeout", "max_retries", "default_headers", "organization"}
)


class ProviderChatModel(BaseChatModel):
    """The base of the provider adapters: settings, key and clients.

    Subclasses set ``_provider``, ``_sdk_name``, ``_key_env``, ``_url_env``, ``_clients``,
    ``_own_params`` (and ``_droppable``), and build their request defaults in `_derive`.
    """

    __slots__ = (
        "_derived",
        "_pool",
        "_rejected",
        "_sdk",
        "_settings",
        "api_key",
        "base_url",
        "default_headers",
        "extra_body",
        "max_retries",
        "model",
        "model_kwargs",
        "streaming",
        "timeout",
    )

    api_key: SecretStr
    """The API key (set as a str or SecretStr, or read from the environment; kept as this)."""

    _provider: ClassVar[str] = ""
    _sdk_name: ClassVar[str] = ""
    _key_env: ClassVar[str] = ""
    _url_env: ClassVar[str] = ""
    _clients: ClassVar[tuple[str, str]] = ("", "")
    """The SDK's sync and async client classes."""
    _own_params: ClassVar[frozenset[str]] = frozenset()
    """The ``create()`` parameters the model sets itself, refused in ``model_kwargs``."""
    _droppable: ClassVar[frozenset[str]] = frozenset()
    """Parameters sent once more without when the model rejects them (400 unsupported)."""
    _aliases: ClassVar[Mapping[str, str]] = {}
    """LangChain's names for constructor arguments: alias -> leanchain's name."""
    _passthrough: ClassVar[frozenset[str]] = frozenset()
    """LangChain constructor arguments that are ``create()`` parameters, sent as they are."""
    _unsupported: ClassVar[Mapping[str, str]] = {}
    """LangChain constructor arguments leanchain does not take, with what to do instead."""
    # A server may ignore or reject ``stop`` (pitfalls.md 1C-2): replies are cut here too.
    client_side_stop: ClassVar[bool] = True

    def __init__(
        self,
        *,
        model: str,
        api_key: str | SecretStr | None,
        base_url: str | None,
        timeout: float | None,
        max_retries: int,
        default_headers: Mapping[str, str] | None,
        extra_body: Mapping[str, Any] | None,
        model_kwargs: Mapping[str, Any] | None,
        streaming: bool,
        name: str | None,
        disable_streaming: bool | Literal["tool_calling"],
    ) -> None:
        cls = type(self).__name__
        for key in model_kwargs or ():
            if key in self._own_params:
                raise ProviderConfigurationError(
                    f"model_kwargs[{key!r}] is set by {cls} itself; pass it as its own "
                    "argument (or per call) instead",
                    provider=self._provider,
                )
        self._derived: Any = None
        self._settings: ClientSettings | None = None
        super().__init__(name=name, disable_streaming=disable_streaming)
        if not isinstance(model, str) or not model:
            raise ProviderConfigurationError(
                f"{cls} needs a model name, got {model!r}", provider=self._provider
            )
        self._sdk = _import_sdk(self._sdk_name, cls)
        self.model = model
        self.api_key = api_key  # type: ignore[assignment]  # __setattr__ makes it a SecretStr
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.default_headers = dict(default_headers) if default_headers else None
        self.extra_body = dict(extra_body) if extra_body else None
        self.model_kwargs = dict(model_kwargs) if model_kwargs else {}
        self.streaming = streaming
        self._pool = ClientPool(self._sdk, self._clients)
        self._rejected = RejectedParameters(self._droppable, self._provider)

    def __setattr__(self, name: str, value: Any) -> None:
        # Public settings are checked whenever they are set (configurable_fields sets them on
        # a copy per call), and what is derived from them is built again on next use.
        if name[0] != "_":
            if name in _CLIENT_FIELDS:
                value = self._checked(name, value)
                object.__setattr__(self, "_settings", None)
            object.__setattr__(self, "_derived", None)
        object.__setattr__(self, name, value)

    def _checked(self, name: str, value: Any) -> Any:
        """`value` for the client setting `name`, checked (the key made a `SecretStr`)."""
        cls = type(self).__name__
        provider = self._provider
        if name == "api_key":
            secret = env_secret(value, self._key_env, provider=provider, owner=cls)
            if secret is None:
                raise ProviderConfigurationError(
                    f"{cls} needs an API key: pass api_key=... or set {self._key_env} "
                    "(a server that checks no key accepts any placeholder, such as 'EMPTY')",
                    provider=provider,
                )
            return secret
        if name == "base_url":
            return self._checked_url(
                check_base_url(value, env=self._url_env, provider=provider, owner=cls)
            )
        if name == "timeout":
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float) or not value > 0
            ):
                raise ProviderConfigurationError(
                    f"timeout must be a number of seconds > 0, got {value!r}", provider=provider
                )
            return value
        if name == "max_retries":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ProviderConfigurationError(
                    f"max_retries must be an int >= 0, got {value!r}", provider=provider
                )
            return value
        return value  # default_headers, organization

    def _checked_url(self, url: str | None) -> str | None:
        """A provider's own rule for its base URL (ChatAnthropic refuses one ending in /v1)."""
        return url

    def __repr__(self) -> str:
        base = f", base_url={safe_url(self.base_url)!r}" if self.base_url else ""
        return f"{type(self).__name__}(model={self.model!r}{base})"

    @property
    def model_name(self) -> str:
        """The model's name (LangChain's attribute for it)."""
        return self.model

    @property
    def server(self) -> str:
        """Who answers this model's calls, as errors name it (``OpenAI``, or host and port)."""
        return server_label(self._provider, provider_label(self._provider), self.base_url)

    def _derive(self) -> Any:
        """What the request is built from besides the call: the settings sent on every call."""
        return None

    def _request_defaults(self) -> Any:
        derived = self._derived
        if derived is None:
            derived = self._derived = self._derive()
        return derived

    def _streams_for(self, run: Any, kwargs: Mapping[str, Any]) -> bool:
        # streaming=True (LangChain's setting): invoke streams whenever a handler listens,
        # so that it sees every token.
        if self.streaming and self._can_stream(kwargs):
            return True
        return super()._streams_for(run, kwargs)

    @classmethod
    def _resolve(cls, given: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
        """The constructor's arguments with LangChain's aliases in `extra` resolved."""
        if not extra:
            return given
        defaults = {
            name: parameter.default
            for name, parameter in inspect.signature(cls.__init__).parameters.items()
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY
        }
        return resolve_aliases(
            cls.__name__,
            given,
            extra,
            aliases=cls._aliases,
            passthrough=cls._passthrough,
            unsupported=cls._unsupported,
            defaults=defaults,
        )

    # -- clients --------------------------------------------------------------------------

    def _client_options(self) -> dict[str, Any]:
        """The SDK client's constructor arguments besides the key (subclasses add theirs)."""
        options: dict[str, Any] = {"max_retries": self.max_retries, "timeout": self.timeout}
        if self.base_url is not None:
            options["base_url"] = self.base_url
        if self.default_headers:
            options["default_headers"] = dict(self.default_headers)
        return options

    def _client_settings(self) -> ClientSettings:
        settings = self._settings
        if settings is None:
            settings = self._settings = ClientSettings(self.api_key, self._client_options())
        return settings

    def _sync_client(self) -> Any:
        return self._pool.sync_client(self._client_settings())

    def _async_client(self) -> Any:
        return self._pool.async_client(self._client_settings())

    def close(self) -> None:
        """Close the pooled connections of the sync clients; a later call opens new ones.

        Async connections close by themselves when their event loop shuts down.
        """
        self._pool.close()


def _import_sdk(name: str, cls: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(
            f"{cls} needs the {name!r} package: pip install 'leanchain[{name}]'"
        ) from exc
