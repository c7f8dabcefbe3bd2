"""The SDK clients of one provider model and its configured copies, over shared connections.

A model made configurable (``configurable_fields(api_key=..., base_url=..., timeout=...)``)
is copied per call with other settings. Each distinct set of client settings — key, base URL,
timeout, retries, headers — gets its own SDK client, so that no call is ever sent with
another configuration's key, to its server or under its timeout. The clients share one
``httpx2`` connection pool (the SDK clients are thin; the pool is what is costly to build) and
one TLS context: the SDK clients of a model are cheap to make, its connections are reused.

Async connections belong to the event loop that opened them, so each loop gets its own pool,
closed when the loop shuts down (``asyncio.run`` does that) and then forgotten: a model used
from 300 ``asyncio.run`` calls keeps no dead loop, pool or client. A loop that was closed
without shutting its async generators down is forgotten the next time a loop is added.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections.abc import AsyncGenerator, Callable, Mapping
from types import ModuleType
from typing import Any, Final

from pydantic import SecretStr

__all__ = ["ClientPool", "ClientSettings"]

_MAX_CLIENTS: Final = 64
"""SDK clients kept per pool (per loop, for async); the oldest is dropped past that."""


class ClientSettings:
    """What an SDK client is built with: the key and the other constructor arguments.

    Equal settings share a client. The key stays a `SecretStr`, so that a repr of the
    settings (a traceback with its locals, say) shows no key.
    """

    __slots__ = ("_hash", "_identity", "api_key", "options")

    def __init__(self, api_key: SecretStr, options: Mapping[str, Any]) -> None:
        self.api_key = api_key
        self.options = dict(options)
        self._identity = (api_key, tuple((k, _frozen(v)) for k, v in sorted(self.options.items())))
        self._hash = hash(self._identity)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClientSettings) and self._identity == other._identity

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"ClientSettings(api_key={self.api_key!r}, options={sorted(self.options)!r})"


def _frozen(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    return value


class _LoopClients:
    """One event loop's connection pool and the SDK clients over it."""

    __slots__ = ("abandoned", "clients", "closer", "http", "loop")

    def __init__(self, http: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.http = http
        self.loop = weakref.ref(loop)
        self.clients: dict[ClientSettings, Any] = {}
        self.abandoned = False
        self.closer: AsyncGenerator[None, None] | None = None


class ClientPool:
    """The SDK clients of one model (shared by its copies), made on first use.

    Args:
        sdk: the ``openai`` or ``anthropic`` module.
        classes: the names of its sync and async client classes.
    """

    __slots__ = ("__weakref__", "_classes", "_http", "_lock", "_loops", "_sdk", "_ssl", "_sync")

    def __init__(self, sdk: ModuleType, classes: tuple[str, str]) -> None:
        self._sdk = sdk
        self._classes = classes
        self._lock = threading.Lock()
        self._ssl: Any = None
        self._http: Any = None
        self._sync: dict[ClientSettings, Any] = {}
        self._loops: dict[asyncio.AbstractEventLoop, _LoopClients] = {}

    # -- sync -----------------------------------------------------------------------------

    def sync_client(self, settings: ClientSettings) -> Any:
        """The sync SDK client for `settings` (made once, over the shared connections)."""
        client = self._sync.get(settings)
        if client is None:
            with self._lock:
                client = self._sync.get(settings)
                if client is None:
                    if self._http is None:
                        self._http = self._sdk.DefaultHttpxClient(verify=self._tls())
                        # Closed when the pool is collected too, as the SDK's own would be.
                        weakref.finalize(self, self._http.close)
                    client = self._make(settings, self._http, is_async=False)
                    _keep(self._sync, settings, client)
        return client

    def close(self) -> None:
        """Close the sync connections; a later call opens new ones."""
        with self._lock:
            http, self._http = self._http, None
            self._sync = {}
        if http is not None:
            http.close()

    # -- async ----------------------------------------------------------------------------

    def async_client(self, settings: ClientSettings) -> Any:
        """The async SDK client for `settings` on the running loop."""
        loop = asyncio.get_running_loop()
        entry = self._loops.get(loop)
        client = entry.clients.get(settings) if entry is not None else None
        if client is not None:
            return client
        stale: list[_LoopClients] = []
        with self._lock:
            entry = self._loops.get(loop)
            if entry is None:
                stale = self._closed_loops()
                http = self._sdk.DefaultAsyncHttpxClient(verify=self._tls())
                entry = self._loops[loop] = _LoopClients(http, loop)
                entry.closer = _closer(entry, self._forget)
            client = entry.clients.get(settings)
            if client is None:
                client = self._make(settings, entry.http, is_async=True)
                _keep(entry.clients, settings, client)
        for old in stale:
            _abandon(old)
        return client

    def loop_count(self) -> int:
        """How many event loops this pool holds connections for."""
        return len(self._loops)

    def _forget(self, entry: _LoopClients) -> None:
        loop = entry.loop()
        with self._lock:
            if loop is not None and self._loops.get(loop) is entry:
                del self._loops[loop]

    def _closed_loops(self) -> list[_LoopClients]:
        """Remove and return the entries of loops closed without shutting down (lock held)."""
        closed = [loop for loop in self._loops if loop.is_closed()]
        return [self._loops.pop(loop) for loop in closed]

    # -- making ---------------------------------------------------------------------------

    def _tls(self) -> Any:
        if self._ssl is None:
            import httpx2  # loaded with the SDK already

            # One TLS context for every pool of the model: loading the CA bundle takes ~20 ms.
            self._ssl = httpx2.create_ssl_context()
        return self._ssl

    def _make(self, settings: ClientSettings, http: Any, *, is_async: bool) -> Any:
        options = dict(settings.options)
        if options.get("timeout") is None:
            # Explicit, so that the SDK does not take the shared pool's timeout instead.
            options["timeout"] = self._sdk.DEFAULT_TIMEOUT
        cls = getattr(self._sdk, self._classes[is_async])
        return cls(api_key=settings.api_key.get_secret_value(), http_client=http, **options)


def _keep(clients: dict[ClientSettings, Any], settings: ClientSettings, client: Any) -> None:
    """Add `client`, dropping the oldest past `_MAX_CLIENTS` (they own no connections)."""
    if len(clients) >= _MAX_CLIENTS:
        del clients[next(iter(clients))]
    clients[settings] = client


async def _close_with_loop(
    entry: _LoopClients, forget: Callable[[_LoopClients], None]
) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        forget(entry)
        if not entry.abandoned:
            await entry.http.aclose()


def _closer(
    entry: _LoopClients, forget: Callable[[_LoopClients], None]
) -> AsyncGenerator[None, None]:
    """An async generator, started, that closes `entry`'s pool when its event loop shuts down.

    The loop finalises the async generators still open at ``shutdown_asyncgens()`` (which
    ``asyncio.run`` and ``asyncio.Runner`` call before closing): the pooled connections close
    on their own loop, and the pool forgets the loop.
    """
    closer = _close_with_loop(entry, forget)
    step = closer.asend(None)  # the first step registers it with the running loop
    with contextlib.suppress(StopIteration):
        step.send(None)
    return closer


def _abandon(entry: _LoopClients) -> None:
    """Finish the closer of a loop that is closed already, without the loop."""
    entry.abandoned = True
    closer, entry.closer = entry.closer, None
    if closer is None:
        return
    step = closer.aclose()
    with contextlib.suppress(StopIteration, RuntimeError):
        step.send(None)
