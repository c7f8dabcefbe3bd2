"""What ChatOpenAI and ChatAnthropic hold alike: settings, the secret key, lazy SDK clients.

The SDK module is imported when a model object is created (never at ``import
leanchain.providers``); its client is built on first use, once per model object (and, for the
async client, once per event loop, because an ``httpx2`` async connection pool belongs to the
loop that opened it). What a call does with them is `ProviderFlow`'s (``_flow.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import threading
import weakref
from collections.abc import AsyncGenerator, Mapping
from types import ModuleType
from typing import Any, ClassVar, Literal

from pydantic import SecretStr

from leanchain.language_models import BaseChatModel

from ._rejected import RejectedParameters

__all__ = ["ProviderChatModel", "env_secret"]


def env_secret(value: str | SecretStr | None, env: str) -> SecretStr | None:
    """The key given, else the one in the environment variable ``env``, as a `SecretStr`.

    An empty key counts as none given.
    """
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if value is not None and not isinstance(value, str):
        raise TypeError(f"api_key must be a str or SecretStr, got {type(value).__name__}")
    value = value or os.environ.get(env) or None
    return None if value is None else SecretStr(value)


class ProviderChatModel(BaseChatModel):
    """The base of the provider adapters: settings, key and clients.

    Subclasses set ``_provider``, ``_sdk_name``, ``_key_env``, ``_clients`` and
    ``_own_params`` (and ``_droppable``).
    """

    __slots__ = (
        "_async_clients",
        "_client",
        "_lock",
        "_rejected",
        "_sdk",
        "api_key",
        "base_url",
        "extra_body",
        "max_retries",
        "model",
        "model_kwargs",
        "timeout",
    )

    _provider: ClassVar[str] = ""
    _sdk_name: ClassVar[str] = ""
    _key_env: ClassVar[str] = ""
    _clients: ClassVar[tuple[str, str]] = ("", "")
    """The SDK's sync and async client classes."""
    _own_params: ClassVar[frozenset[str]] = frozenset()
    """The ``create()`` parameters the model sets itself, refused in ``model_kwargs``."""
    _droppable: ClassVar[frozenset[str]] = frozenset()
    """Parameters sent once more without when the model rejects them (400 unsupported)."""
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
        extra_body: Mapping[str, Any] | None,
        model_kwargs: Mapping[str, Any] | None,
        name: str | None,
        disable_streaming: bool | Literal["tool_calling"],
    ) -> None:
        cls = type(self).__name__
        for key in model_kwargs or ():
            if key in self._own_params:
                raise ValueError(
                    f"model_kwargs[{key!r}] is set by {cls} itself; pass it as its own "
                    "argument (or per call) instead"
                )
        super().__init__(name=name, disable_streaming=disable_streaming)
        if not isinstance(model, str) or not model:
            raise ValueError(f"{cls} needs a model name, got {model!r}")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        secret = env_secret(api_key, self._key_env)
        if secret is None:
            raise ValueError(
                f"{cls} needs an API key: pass api_key=... or set {self._key_env} "
                "(a server that checks no key accepts any placeholder, such as 'EMPTY')"
            )
        self._sdk = _import_sdk(self._sdk_name, cls)
        self.model = model
        self.api_key = secret
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.extra_body = dict(extra_body) if extra_body else None
        self.model_kwargs = dict(model_kwargs) if model_kwargs else {}
        self._lock = threading.Lock()
        self._client: Any = None
        # loop -> (client, the started async generator that closes it with the loop)
        self._async_clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[Any, AsyncGenerator[None, None]]
        ] = weakref.WeakKeyDictionary()
        self._rejected = RejectedParameters(self._droppable, self._provider)

    def __repr__(self) -> str:
        base = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"{type(self).__name__}(model={self.model!r}{base})"

    @property
    def model_name(self) -> str:
        """The model's name (LangChain's attribute for it)."""
        return self.model

    # -- clients --------------------------------------------------------------------------

    def _make_client(self, *, is_async: bool) -> Any:
        """A new SDK client with this model's key, base URL, timeout and retries."""
        kwargs: dict[str, Any] = {
            "api_key": self.api_key.get_secret_value(),
            "max_retries": self.max_retries,
        }
        if self.base_url is not None:
            kwargs["base_url"] = self.base_url
        if self.timeout is not None:
            kwargs["timeout"] = self.timeout
        return getattr(self._sdk, self._clients[is_async])(**kwargs)

    def _sync_client(self) -> Any:
        client = self._client
        if client is None:
            with self._lock:
                client = self._client
                if client is None:
                    client = self._client = self._make_client(is_async=False)
        return client

    def close(self) -> None:
        """Close the pooled connections of the sync client; a later call opens new ones.

        Async clients close by themselves when their event loop shuts down.
        """
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def _async_client(self) -> Any:
        loop = asyncio.get_running_loop()
        entry = self._async_clients.get(loop)
        if entry is None:
            with self._lock:
                entry = self._async_clients.get(loop)
                if entry is None:
                    client = self._make_client(is_async=True)
                    entry = self._async_clients[loop] = (client, _closer(client))
        return entry[0]


async def _close_with_loop(client: Any) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        await client.close()  # the SDKs name their async close `close`


def _closer(client: Any) -> AsyncGenerator[None, None]:
    """An async generator, started, that closes `client` when its event loop shuts down.

    The loop finalises the async generators still open at ``shutdown_asyncgens()`` (which
    ``asyncio.run`` and ``asyncio.Runner`` call before closing), or when one is collected:
    either way the client's pooled connections close on their own loop, instead of leaking
    as unclosed transports once the loop is gone.
    """
    closer = _close_with_loop(client)
    step = closer.asend(None)  # the first step registers it with the running loop
    with contextlib.suppress(StopIteration):
        step.send(None)
    return closer


def _import_sdk(name: str, cls: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(
            f"{cls} needs the {name!r} package: pip install 'leanchain[{name}]'"
        ) from exc
