"""Streaming JSON costs its length: 200 KB in 50-character chunks is read in well under a second.

Re-reading the whole reply after every chunk (as LangChain does, and leanchain did) takes about
a minute for this; reading each chunk once takes a fraction of a second. The bound is generous
CPU time of this thread, so a busy machine cannot fail it, only reading that is quadratic.
The benchmark (``python -m benchmarks streaming_json``) measures; this only guards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from leanchain.messages import AIMessageChunk
from leanchain.output_parsers import JsonOutputParser, PydanticOutputParser

STREAM_BOUND = 8.0
"""CPU seconds 200 KB of streamed JSON may take; linear reading needs well under one (a few
times that on a loaded CI machine), quadratic re-reading about a minute."""

SIZE = 200_000
CHUNK = 50
ROOT = Path(__file__).resolve().parents[2]


def records(size: int, *, indent: int | None = None) -> str:
    """A JSON object of at least `size` characters: a list of small records."""
    count = size // 60 + 1
    items = [{"id": i, "name": f"item {i}", "score": i / 4, "ok": i % 2 == 0} for i in range(count)]
    return json.dumps({"records": items}, indent=indent)


def answer(size: int) -> str:
    """A JSON object of at least `size` characters, nearly all one string with escapes."""
    return json.dumps({"answer": 'a \\ "quoted" caf\u00e9 \U0001f600 line\n' * (size // 30 + 1)})


def pieces(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


def last_streamed(parser: Any, chunks: list[Any]) -> tuple[float, Any]:
    """The CPU time of streaming `chunks` through `parser`, and the last value streamed."""
    start = time.thread_time()
    last = None
    for value in parser.transform(iter(chunks)):
        last = value
    return time.thread_time() - start, last


class Reply(BaseModel):
    answer: str


STREAMS: dict[str, tuple[Callable[[], str], Callable[[str], str]]] = {
    "a bare object": (lambda: records(SIZE), lambda body: body),
    "a pretty-printed object": (lambda: records(SIZE, indent=2), lambda body: body),
    "an object fenced after prose": (
        lambda: records(SIZE),
        lambda body: "Here it is:\n```json\n" + body + "\n```\nAnything else?",
    ),
    "one long string value": (lambda: answer(SIZE), lambda body: body),
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", list(STREAMS.values()), ids=list(STREAMS))
def test_200_kb_of_streamed_json_is_read_in_linear_time(
    case: tuple[Callable[[], str], Callable[[str], str]],
) -> None:
    build, wrap = case
    body = build()
    assert len(body) >= SIZE
    seconds, last = last_streamed(JsonOutputParser(), pieces(wrap(body)))
    assert last == json.loads(body)
    assert seconds < STREAM_BOUND


@pytest.mark.timeout(120)
def test_200_kb_streamed_as_message_chunks_is_read_in_linear_time() -> None:
    body = records(SIZE)
    chunks = [AIMessageChunk(piece) for piece in pieces(body)]
    seconds, last = last_streamed(JsonOutputParser(), chunks)
    assert last == json.loads(body)
    assert seconds < STREAM_BOUND


@pytest.mark.timeout(120)
def test_a_pydantic_reply_with_a_200_kb_field_is_read_in_linear_time() -> None:
    body = answer(SIZE)
    seconds, last = last_streamed(PydanticOutputParser(pydantic_object=Reply), pieces(body))
    assert last == Reply.model_validate_json(body)
    assert seconds < STREAM_BOUND


@pytest.mark.timeout(90)
def test_the_streaming_benchmark_runs_and_prints_its_rows() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "streaming_json"],
        cwd=ROOT,
        env={**os.environ, "LEANCHAIN_BENCH_QUICK": "1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines[:2] == [
        "== streaming_json ==",
        "Streaming JSON (linear: 2x the text, about 2x the time) "
        "(quick mode: numbers are not meaningful)",
    ]
    assert lines[2].split() == ["workload", "median", "baseline", "ratio", "goal"]
    assert [line.split(",")[0] for line in lines[3:]] == [
        "JsonOutputParser",
        "JsonOutputParser",
        "JsonOutputParser",
        "tool-call args",
        "tool-call args",
    ]
    assert "x  <= 2.5x  " in lines[4]
