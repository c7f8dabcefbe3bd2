"""`instrument()`: one call exports every run; `uninstrument()` stops it; lazy imports."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from opentelemetry.trace import NoOpTracerProvider
from tracing_support import pipeline, tree

from leanchain.callbacks import default_handlers
from leanchain.language_models import ScriptedChatModel
from leanchain.runnables import RunnableLambda
from leanchain.tracing import OpenTelemetryCallbackHandler, instrument, uninstrument


@pytest.fixture(autouse=True)
def clean() -> Iterator[None]:
    yield
    uninstrument()
    assert default_handlers() == []


def test_instrument_traces_every_run_without_any_config() -> None:
    provider, exporter = pipeline()
    handler = instrument(provider)
    assert isinstance(handler, OpenTelemetryCallbackHandler)
    assert handler.capture_content is False
    chain = RunnableLambda(lambda x: f"{x}!", name="inc") | ScriptedChatModel(["ok"])
    chain.invoke(1)
    assert tree(exporter.get_finished_spans()) == [
        ("chat", "RunnableSequence"),
        ("RunnableSequence", None),
    ]


def test_instrumenting_again_replaces_the_handler() -> None:
    provider, exporter = pipeline()
    instrument(provider)
    second = instrument(provider, capture_content=True)
    assert default_handlers() == [second]
    RunnableLambda(lambda x: x, name="once").invoke(1)
    assert tree(exporter.get_finished_spans()) == [("once", None)]


def test_uninstrument_stops_exporting_new_runs() -> None:
    provider, exporter = pipeline()
    instrument(provider)
    RunnableLambda(lambda x: x, name="before").invoke(1)
    uninstrument()
    RunnableLambda(lambda x: x, name="after").invoke(1)
    assert tree(exporter.get_finished_spans()) == [("before", None)]


def test_a_no_op_tracer_costs_nothing_but_breaks_nothing() -> None:
    instrument(NoOpTracerProvider())
    assert (RunnableLambda(lambda x: x * 3) | RunnableLambda(lambda x: x + 1)).invoke(2) == 7


def test_importing_leanchain_and_its_tracing_does_not_import_opentelemetry() -> None:
    code = (
        "import sys, leanchain, leanchain.tracing, leanchain.callbacks; "
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out == "[]\n"
