"""The HTTP side of a FakeProviderServer: one handler thread per connection plays the script."""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol, cast

from leanchain.testing import _anthropic_wire, _openai_wire
from leanchain.testing._recording import RecordedRequest, redact_headers
from leanchain.testing._script import (
    BrokenStream,
    MidStreamError,
    Provider,
    ScriptedError,
    ScriptedReply,
    StalledStream,
    StreamFault,
)
from leanchain.testing._state import ServerState
from leanchain.testing._wire import RenderContext, dumps

__all__ = ["HTTPServer"]

_ROUTES: dict[str, Provider] = {
    "/v1/chat/completions": "openai",
    "/v1/messages": "anthropic",
}
_DEFAULT_MESSAGES = {
    400: "Invalid request",
    401: "Invalid API key",
    403: "Permission denied",
    404: "Not found",
    429: "Rate limit exceeded",
    500: "Internal server error",
    503: "Service unavailable",
    529: "Overloaded",
}


class _Wire(Protocol):
    """What the two provider wire modules have in common."""

    def reply_body(self, reply: ScriptedReply, ctx: RenderContext) -> dict[str, Any]: ...

    def stream_error_event(
        self, error_type: str | None, message: str, code: str | None = None
    ) -> bytes: ...

    def error_body(
        self,
        status: int,
        message: str,
        error_type: str | None,
        code: str | None,
        param: str | None = None,
    ) -> dict[str, Any]: ...


_WIRES: dict[Provider, _Wire] = {"openai": _openai_wire, "anthropic": _anthropic_wire}


class HTTPServer(ThreadingHTTPServer):
    """A threaded server with daemon threads whose handlers share one ServerState."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, state: ServerState) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients drop keep-alive sockets and timeout tests abandon requests: not errors.
        if isinstance(sys.exception(), OSError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """One connection: reads each request, records it, and plays the next script item."""

    protocol_version = "HTTP/1.1"
    # Without it Linux delayed-ACK adds ~40 ms to every request (provider-wire.md §7).
    disable_nagle_algorithm = True

    @property
    def state(self) -> ServerState:
        return cast(HTTPServer, self.server).state

    def setup(self) -> None:
        super().setup()
        self.state.track(self.connection)

    def finish(self) -> None:
        self.state.untrack(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: the records are the log."""

    def do_POST(self) -> None:
        """Record the request, then answer it from the script."""
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        provider = _ROUTES.get(self.path.partition("?")[0])
        self.state.record(
            RecordedRequest(
                provider=provider,
                method=self.command,
                path=self.path,
                headers=redact_headers(list(self.headers.items())),
                body=body,
            )
        )
        if provider is None:
            message = f"FakeProviderServer has no route for {self.command} {self.path}"
            self._send_json(404, _openai_wire.error_body(404, message, None, None), {})
        elif not isinstance(body, dict):
            message = "FakeProviderServer expected a JSON object as the request body"
            self._send_error_status(provider, ScriptedError(400, message, should_retry=False))
        else:
            self._answer(provider, body)

    do_GET = do_POST

    def _answer(self, provider: Provider, body: dict[str, Any]) -> None:
        if not self.state.key_accepted(self._credential()):
            # As the providers answer a wrong key: 401, and the key is not echoed.
            error = ScriptedError(401, "Incorrect API key provided", should_retry=False)
            self._send_error_status(provider, error)
            return
        if provider == "openai":
            param = self.state.rejected_parameter(body)
            if param is not None:
                self._send_error_status(provider, _openai_wire.unsupported_parameter_error(param))
                return
        item = self.state.take(provider)
        stream = body.get("stream") is True
        if item is None:
            message = (
                f"FakeProviderServer script exhausted: no reply left for the {provider} "
                f"request to {self.path} (model {body.get('model')!r}); enqueue another "
                "ScriptedReply or fault"
            )
            self._send_error_status(provider, ScriptedError(500, message, should_retry=False))
        elif isinstance(item, ScriptedError):
            if self.state.wait(item.delay):
                self._send_error_status(provider, item)
            else:
                self.close_connection = True
        elif isinstance(item, ScriptedReply):
            if not self.state.wait(item.delay):
                self.close_connection = True
            elif stream:
                self._stream(provider, item, body, None)
            else:
                ctx = self._context(provider, item, body)
                reply_body = _WIRES[provider].reply_body(item, ctx)
                self._send_json(200, reply_body, self._id_header(provider))
        elif stream:
            self._stream(provider, item.reply, body, item)
        else:
            message = (
                f"FakeProviderServer: a {type(item).__name__} was scripted but the {provider} "
                f"request to {self.path} did not ask for a stream"
            )
            self._send_error_status(provider, ScriptedError(500, message, should_retry=False))

    def _credential(self) -> str | None:
        """The key the request carries: its ``x-api-key``, else its ``Bearer`` token."""
        key = self.headers.get("x-api-key")
        if key is not None:
            return key
        scheme, _, token = (self.headers.get("authorization") or "").partition(" ")
        return token if scheme.lower() == "bearer" else None

    def _context(
        self, provider: Provider, reply: ScriptedReply, body: dict[str, Any]
    ) -> RenderContext:
        state = self.state
        prefix = "call_" if provider == "openai" else "toolu_"
        tool_ids = [call.id or state.next_id(prefix) for call in reply.tool_calls]
        stream_options = body.get("stream_options")
        model = body.get("model")
        return RenderContext(
            model=reply.model or (model if isinstance(model, str) else "fake-model"),
            response_id=reply.response_id
            or state.next_id("chatcmpl-fake" if provider == "openai" else "msg_fake"),
            tool_ids=tool_ids,
            chunk_size=reply.chunk_size or state.chunk_size,
            include_usage=isinstance(stream_options, dict)
            and stream_options.get("include_usage") is True,
        )

    def _stream(
        self,
        provider: Provider,
        reply: ScriptedReply,
        body: dict[str, Any],
        fault: StreamFault | None,
    ) -> None:
        ctx = self._context(provider, reply, body)
        if provider == "openai":
            events = _openai_wire.stream_events(reply, ctx)
        else:
            events = _anthropic_wire.stream_events(reply, ctx, ping=self.state.anthropic_ping)
        # A fault never sends the terminator, whatever after_events says.
        sent = events if fault is None else events[: min(fault.after_events, len(events) - 1)]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        for name, value in self._id_header(provider).items():
            self.send_header(name, value)
        self.end_headers()
        for event in sent:
            self._write_chunk(event)
        if isinstance(fault, MidStreamError):
            error_event = _WIRES[provider].stream_error_event(
                fault.error_type, fault.message, fault.code
            )
            self._write_chunk(error_event)
        elif isinstance(fault, StalledStream):
            self.state.wait(fault.seconds)
            self.close_connection = True
            return
        elif isinstance(fault, BrokenStream) and not fault.clean_eof:
            # Closing without the last chunk is what a dropped upstream looks like to httpx.
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _send_error_status(self, provider: Provider, error: ScriptedError) -> None:
        message = error.message or _DEFAULT_MESSAGES.get(error.status, f"Error {error.status}")
        body = _WIRES[provider].error_body(
            error.status, message, error.error_type, error.code, error.param
        )
        headers = {**self._id_header(provider), **error.response_headers()}
        self._send_json(error.status, body, headers)

    def _send_json(self, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
        data = dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _id_header(self, provider: Provider) -> dict[str, str]:
        name = "x-request-id" if provider == "openai" else "request-id"
        return {name: self.state.next_id("req_fake")}
