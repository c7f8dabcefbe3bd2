"""OpenTelemetry export: runs as spans following the GenAI semantic conventions.

One call observes every run of the process::

    from leanchain.tracing import instrument

    instrument()  # spans go to the global tracer provider

`instrument` registers an `OpenTelemetryCallbackHandler` as a default handler (see
`leanchain.callbacks.add_default_handler`): every root run, and so every run below it, is
observed. To trace single calls instead, pass a handler in the config:
``chain.invoke(x, {"callbacks": [OpenTelemetryCallbackHandler()]})``.

Only ``opentelemetry-api`` is needed (the ``otel`` extra); it is imported when a handler is
made, never by ``import leanchain``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leanchain.callbacks import (
    add_default_handler,
    default_handlers,
    remove_default_handler,
)
from leanchain.tracing._handler import OpenTelemetryCallbackHandler

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

__all__ = ["OpenTelemetryCallbackHandler", "instrument", "uninstrument"]


def instrument(
    tracer_provider: TracerProvider | None = None,
    *,
    capture_content: bool = False,
    nested_chain_spans: bool = False,
) -> OpenTelemetryCallbackHandler:
    """Turn every run from now on into OpenTelemetry spans; returns the handler doing it.

    Calling it again replaces the previous handler, so runs are never exported twice.

    Args:
        tracer_provider: where the spans go; ``None`` means the global provider.
        capture_content: also record prompts, completions, tool arguments and results.
        nested_chain_spans: give chain runs inside other runs their own spans too (by default
            their children hang under the nearest span).
    """
    uninstrument()
    handler = OpenTelemetryCallbackHandler(
        tracer_provider,
        capture_content=capture_content,
        nested_chain_spans=nested_chain_spans,
    )
    add_default_handler(handler)
    return handler


def uninstrument() -> None:
    """Stop exporting new runs (runs in progress finish their spans)."""
    for handler in default_handlers():
        if isinstance(handler, OpenTelemetryCallbackHandler):
            remove_default_handler(handler)
