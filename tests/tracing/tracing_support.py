"""An in-memory OpenTelemetry pipeline and helpers to read the spans it caught."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from leanchain.language_models import ScriptedChatModel


def pipeline() -> tuple[TracerProvider, InMemorySpanExporter]:
    """A tracer provider whose finished spans land in the returned exporter."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def tree(spans: tuple[ReadableSpan, ...]) -> list[tuple[str, str | None]]:
    """``(span name, parent span name)`` in the order the spans ended."""
    names = {s.context.span_id: s.name for s in spans if s.context is not None}
    return [(s.name, None if s.parent is None else names[s.parent.span_id]) for s in spans]


def attributes(span: ReadableSpan) -> dict[str, Any]:
    """The span's attributes as a plain dict (sequences as lists)."""
    raw: Mapping[str, Any] = span.attributes or {}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in raw.items()}


def named(spans: tuple[ReadableSpan, ...], name: str) -> ReadableSpan:
    """The one span called `name`."""
    found = [s for s in spans if s.name == name]
    assert len(found) == 1, [s.name for s in spans]
    return found[0]


class GptModel(ScriptedChatModel):
    """A scripted model that reports itself as an OpenAI model named ``gpt-test``."""

    @property
    def _llm_type(self) -> str:
        return "openai-chat"

    @property
    def _identifying_params(self) -> Mapping[str, Any]:
        return {"model_name": "gpt-test", "temperature": 0.2, "max_tokens": 64}
