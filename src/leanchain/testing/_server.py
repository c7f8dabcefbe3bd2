"""FakeProviderServer: a local HTTP server that speaks the OpenAI and Anthropic wire formats.

Tests point the real SDK clients at it, so they exercise the real SDKs over real HTTP while the
answers come from a script (provider-wire.md §7).
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Self

from leanchain.testing._handler import HTTPServer
from leanchain.testing._recording import RecordedRequest
from leanchain.testing._script import Provider, ScriptItem
from leanchain.testing._state import ServerState

__all__ = ["FakeProviderServer"]

_JOIN_SECONDS = 1.0


class FakeProviderServer:
    """A threaded HTTP server on 127.0.0.1 that plays scripted replies and faults.

    Use it as a context manager, or call :meth:`start` and :meth:`stop`::

        with FakeProviderServer() as server:
            server.enqueue(ScriptedReply(text="Hello!"))
            client = openai.OpenAI(base_url=server.openai_base_url, api_key="sk-test")

    Each request to ``POST /v1/chat/completions`` (OpenAI) or ``POST /v1/messages``
    (Anthropic) consumes the first script item meant for its provider and is recorded, with
    its credentials redacted, in :attr:`requests`. When no item is left the server answers 500
    with ``x-should-retry: false`` and a message that says the script ran out.

    Args:
        chunk_size: characters per streamed text delta or tool-argument fragment, unless a
            reply sets its own.
        anthropic_ping: whether Anthropic streams carry a ``ping`` event.
    """

    def __init__(self, *, chunk_size: int = 4, anthropic_ping: bool = True) -> None:
        self._state = ServerState(chunk_size=chunk_size, anthropic_ping=anthropic_ping)
        self._httpd: HTTPServer | None = None
        self._serve_thread: threading.Thread | None = None

    def start(self) -> Self:
        """Bind a free port and serve in a daemon thread; a server starts only once."""
        if self._httpd is not None:
            raise RuntimeError("FakeProviderServer was already started; create a new one")
        self._httpd = HTTPServer(self._state)
        self._serve_thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"FakeProviderServer:{self.port}",
            daemon=True,
        )
        self._serve_thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and drop every open connection, even a slow answer or a stream."""
        if self._httpd is None or self._state.stopping.is_set():
            return
        self._state.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        for thread in (*self._state.drop_connections(), self._serve_thread):
            if thread is not None:
                thread.join(_JOIN_SECONDS)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port the OS gave the server."""
        if self._httpd is None:
            raise RuntimeError("FakeProviderServer is not started; call start() or use `with`")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``, the server's root."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """The ``base_url`` for ``openai.OpenAI``: the root plus ``/v1``."""
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The ``base_url`` for ``anthropic.Anthropic``: the root (the SDK adds ``/v1``)."""
        return self.base_url

    def enqueue(self, *items: ScriptItem, provider: Provider | None = None) -> None:
        """Append replies or faults to the script, in order; each request consumes one.

        Args:
            items: what the next requests get, one item per request.
            provider: ``"openai"`` or ``"anthropic"`` to keep the items for that provider's
                requests; ``None`` lets a request of either provider take them.

        Raises:
            TypeError: an item is not a ScriptedReply or a fault.
            ValueError: ``provider`` is not ``"openai"``, ``"anthropic"`` or ``None``.
        """
        if provider not in (None, "openai", "anthropic"):
            raise ValueError(f"provider must be 'openai', 'anthropic' or None, got {provider!r}")
        for item in items:
            if not isinstance(item, ScriptItem):
                raise TypeError(f"Expected a ScriptedReply or a fault, got {item!r}")
        self._state.enqueue(items, provider)

    def reject_parameter(self, param: str, *, model: str | None = None) -> None:
        """Answer OpenAI requests that send ``param`` as a model that does not take it would.

        Such a request (for ``model``, or for any model when ``None``) gets OpenAI's 400
        ``{"error": {"message": "Unsupported parameter: 'stop' is not supported with this
        model.", "type": "invalid_request_error", "param": "stop", "code":
        "unsupported_parameter"}}``, as reasoning models answer ``stop``; it is recorded and
        consumes no script item. The rule holds until :meth:`reset`.

        Args:
            param: the top-level request parameter to reject, e.g. ``"stop"``.
            model: the model name the rule applies to; ``None`` for every model.
        """
        self._state.reject(param, model)

    def require_api_key(self, *keys: str) -> None:
        """Answer 401 to requests that carry none of `keys`, as a server that checks keys does.

        The key is the request's ``x-api-key`` header, else its ``Authorization: Bearer``
        token (both SDKs send the latter).
        Such a request is recorded (its credential redacted, as always), consumes no script
        item, and gets ``{"error": {"message": "Incorrect API key provided", ...}}`` with
        ``x-should-retry: false`` (the key is not echoed). With no `keys`, any key is
        accepted again; :meth:`reset` does that too.
        """
        self._state.require_keys(frozenset(keys) if keys else None)

    @property
    def pending(self) -> tuple[ScriptItem, ...]:
        """The script items no request has consumed yet, in order."""
        return self._state.pending()

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first (a snapshot)."""
        return self._state.requests()

    def requests_for(self, provider: Provider) -> list[RecordedRequest]:
        """The requests that hit ``provider``'s route, oldest first (a snapshot)."""
        return self._state.requests(provider)

    def reset(self) -> None:
        """Forget the script, the rejection and key rules, the recorded requests and the id
        counters."""
        self._state.reset()
