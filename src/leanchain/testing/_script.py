"""What a FakeProviderServer answers: scripted replies and faults, independent of the provider.

A script is a FIFO of items. Each request to the server consumes exactly one item: a
:class:`ScriptedReply` becomes a normal answer in the provider's own wire format, and every
other item is a fault (an error status, a broken or stalled stream, an error event mid-stream).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = [
    "BrokenStream",
    "FinishReason",
    "MidStreamError",
    "Provider",
    "ScriptItem",
    "ScriptedError",
    "ScriptedReply",
    "ScriptedToolCall",
    "ScriptedUsage",
    "StalledStream",
]

Provider: TypeAlias = Literal["openai", "anthropic"]
"""The wire format a request spoke: OpenAI Chat Completions or Anthropic Messages."""

FinishReason: TypeAlias = Literal["stop", "length", "tool_calls", "content_filter"]
"""Why a reply ended, in neutral terms; each provider module maps it to its own value."""


@dataclass(frozen=True, slots=True)
class ScriptedToolCall:
    """One tool call inside a scripted reply.

    Args:
        name: the tool name the model asks for.
        arguments: the arguments as a dict (sent as JSON), or a raw string sent verbatim, which
            lets a test send malformed JSON. A non-stream Anthropic ``tool_use.input`` must be an
            object, so there a raw string that is not a JSON object is sent as the string itself
            (the SDK passes it through unvalidated).
        id: the call id; ``None`` lets the server number it (``call_1``, ``toolu_1``, ...).
    """

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True, slots=True)
class ScriptedUsage:
    """Token counts reported with a reply, in the normalised sense of provider-wire.md §5.5.

    ``input_tokens`` counts every input token, cached ones included: OpenAI reports it as
    ``prompt_tokens``, Anthropic as ``input_tokens + cache_creation_input_tokens +
    cache_read_input_tokens``. An adapter that normalises correctly reads back these numbers.
    """

    input_tokens: int = 10
    """All input tokens, cache reads and writes included."""
    output_tokens: int = 5
    """Generated tokens, reasoning included."""
    cache_read_tokens: int = 0
    """Input tokens served from the prompt cache."""
    cache_creation_tokens: int = 0
    """Input tokens written to the prompt cache."""
    reasoning_tokens: int = 0
    """Output tokens spent on reasoning (OpenAI only reports them)."""

    def __post_init__(self) -> None:
        counts = (
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
            self.cache_creation_tokens,
            self.reasoning_tokens,
        )
        if min(counts) < 0:
            raise ValueError(f"Token counts must be >= 0, got {self!r}")
        if self.cache_read_tokens + self.cache_creation_tokens > self.input_tokens:
            raise ValueError(
                "input_tokens must include the cache tokens: expected input_tokens >= "
                f"{self.cache_read_tokens + self.cache_creation_tokens}, got {self.input_tokens}"
            )

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class ScriptedReply:
    """A successful model answer, rendered as JSON or as an SSE stream per the request.

    Args:
        text: the answer text; streamed in pieces of ``chunk_size`` characters.
        tool_calls: the tool calls, in order; streamed arguments come in pieces too.
        usage: the token counts to report.
        finish_reason: why the answer ended; ``None`` derives it (``"tool_calls"`` when there
            are tool calls, else ``"stop"``).
        stop_sequence: the stop sequence that ended the answer (Anthropic reports it as
            ``stop_reason="stop_sequence"``; OpenAI only says ``"stop"``).
        model: the model name to answer with; ``None`` echoes the request's ``model``.
        delay: seconds to wait before sending the status line (to test client timeouts).
        chunk_size: characters per streamed text delta or argument fragment; ``None`` uses the
            server's default.
        refusal: the model refuses, with this explanation, instead of answering: OpenAI sends
            it as ``message.refusal`` (streamed as ``delta.refusal`` pieces) with a null
            ``content``; Anthropic as the text with ``stop_reason: "refusal"``. It is an answer
            of its own: give it without `text` or `tool_calls`.
        response_id: the answer's id; ``None`` lets the server number it (``chatcmpl-fake1``,
            ``msg_fake1``...). Some compatible servers send the same id every time: give it
            to every reply (with the same `ScriptedToolCall` ``id``s, as LiteLLM's mock
            answers every turn with ``call_mock_001``) to play one.
    """

    text: str = ""
    tool_calls: Sequence[ScriptedToolCall] = ()
    usage: ScriptedUsage = field(default_factory=ScriptedUsage)
    finish_reason: FinishReason | None = None
    stop_sequence: str | None = None
    model: str | None = None
    delay: float = 0.0
    chunk_size: int | None = None
    refusal: str | None = None
    response_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        if self.refusal is not None and (self.text or self.tool_calls):
            raise ValueError(
                "A refusal is an answer of its own: give it without text or tool_calls"
            )
        if self.stop_sequence is not None and self.finish_reason not in (None, "stop"):
            raise ValueError(
                f"stop_sequence needs finish_reason 'stop' or None, got {self.finish_reason!r}"
            )
        _check_delay(self.delay)
        if self.chunk_size is not None and self.chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {self.chunk_size!r}")

    @property
    def resolved_finish_reason(self) -> FinishReason:
        """The finish reason the server reports: the given one, or the derived default."""
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


@dataclass(frozen=True, slots=True)
class ScriptedError:
    """An HTTP error answer with the provider's real error body, so the SDK raises its class.

    Args:
        status: the HTTP status, e.g. 400, 401, 429, 500, 503, 529.
        message: the error message; ``None`` picks a short default for the status.
        error_type: the body's ``error.type``; ``None`` picks the provider's type for the status
            (e.g. Anthropic ``overloaded_error`` for 529, OpenAI ``server_error`` for 5xx).
        code: OpenAI ``error.code``, or Anthropic ``error.details.error_code``.
        param: OpenAI ``error.param``, the request parameter the error is about (Anthropic's
            errors have none).
        retry_after: the ``retry-after`` header: seconds (floats are honoured by both SDKs) or a
            string sent verbatim, such as an HTTP-date.
        retry_after_ms: the ``retry-after-ms`` header; both SDKs prefer it over ``retry-after``.
        should_retry: the ``x-should-retry`` header, which overrides the SDKs' status rule.
        headers: any further response headers.
        delay: seconds to wait before sending the status line.
    """

    status: int
    message: str | None = None
    error_type: str | None = None
    code: str | None = None
    param: str | None = None
    retry_after: float | str | None = None
    retry_after_ms: int | None = None
    should_retry: bool | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0

    def __post_init__(self) -> None:
        if not 400 <= self.status <= 599:
            raise ValueError(f"ScriptedError status must be 4xx or 5xx, got {self.status!r}")
        _check_delay(self.delay)

    def response_headers(self) -> dict[str, str]:
        """The extra headers this error is sent with."""
        headers = dict(self.headers)
        if isinstance(self.retry_after, str):
            headers["retry-after"] = self.retry_after
        elif self.retry_after is not None:
            headers["retry-after"] = f"{self.retry_after:g}"
        if self.retry_after_ms is not None:
            headers["retry-after-ms"] = str(self.retry_after_ms)
        if self.should_retry is not None:
            headers["x-should-retry"] = "true" if self.should_retry else "false"
        return headers


@dataclass(frozen=True, slots=True)
class BrokenStream:
    """A stream whose connection closes after ``after_events`` SSE events.

    The provider's terminator (``data: [DONE]`` / ``message_stop``) is never sent: a larger
    ``after_events`` is capped at all events but the last. Anthropic ``ping`` events count.

    Args:
        reply: the answer whose events are cut short.
        after_events: how many events to send before the cut.
        clean_eof: end the HTTP body properly (the stream just stops early) instead of
            dropping the connection mid-body (the client sees a protocol error).
    """

    reply: ScriptedReply
    after_events: int = 2
    clean_eof: bool = False

    def __post_init__(self) -> None:
        _check_after_events(self.after_events)


@dataclass(frozen=True, slots=True)
class StalledStream:
    """A stream that goes silent after ``after_events`` events, to test read timeouts.

    Args:
        reply: the answer whose events stall.
        after_events: how many events to send before going silent (capped like
            :class:`BrokenStream`).
        seconds: how long to stay silent before dropping the connection; ``None`` waits until
            the server stops.
    """

    reply: ScriptedReply
    after_events: int = 2
    seconds: float | None = None

    def __post_init__(self) -> None:
        _check_after_events(self.after_events)
        if self.seconds is not None:
            _check_delay(self.seconds)


@dataclass(frozen=True, slots=True)
class MidStreamError:
    """A stream that sends an error event after ``after_events`` events, then ends.

    Anthropic gets ``event: error`` (the SDK raises ``APIStatusError`` with status 200);
    OpenAI gets ``data: {"error": {...}}`` (the SDK raises ``APIError``).

    A gateway labels the error its own way: LiteLLM's proxy sends ``{"error": {"message":
    ..., "type": "internal_server_error", "param": null, "code": "500"}}`` (or
    ``"throttling_error"`` with ``"429"``): ``MidStreamError(reply, error_type=
    "internal_server_error", code="500")`` plays it.

    Args:
        reply: the answer whose events come before the error.
        after_events: how many events to send before the error (capped like
            :class:`BrokenStream`).
        error_type: the error's ``type``; ``None`` means ``overloaded_error`` for Anthropic
            and ``server_error`` for OpenAI.
        message: the error message.
        code: the error's ``code`` (OpenAI's ``error.code``, Anthropic's
            ``error.details.error_code``), such as a gateway's status ``"429"``; ``None``
            sends none (OpenAI: ``null``).
    """

    reply: ScriptedReply
    after_events: int = 2
    error_type: str | None = None
    message: str = "Overloaded"
    code: str | None = None

    def __post_init__(self) -> None:
        _check_after_events(self.after_events)


ScriptItem: TypeAlias = (
    ScriptedReply | ScriptedError | BrokenStream | StalledStream | MidStreamError
)
"""Anything a request can consume from the script."""

StreamFault: TypeAlias = BrokenStream | StalledStream | MidStreamError
"""The items that only make sense for a streaming request."""


def _check_delay(seconds: float) -> None:
    if seconds < 0:
        raise ValueError(f"A delay must be >= 0 seconds, got {seconds!r}")


def _check_after_events(after_events: int) -> None:
    if after_events < 0:
        raise ValueError(f"after_events must be >= 0, got {after_events!r}")
