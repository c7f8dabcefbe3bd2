"""Streaming JSON: a reply read chunk by chunk costs its length, not length x chunks.

Goal: a 100 KB JSON object streamed through ``JsonOutputParser`` in 50-character chunks takes
at most 2.5x the time of a 50 KB one (linear; re-reading the whole reply after every chunk,
as LangChain does and leanchain did, is quadratic: about 15 s for 100 KB). Also reported:
1 MiB of dense tool-call arguments merged as ``AIMessageChunk``\\s in 1 KiB pieces, one ``+``
at a time, with the partial arguments re-read after every merge (and 512 KiB for scale), and
a 100 KB string value streamed in 50-character chunks (a long answer field). Quick mode
(``LEANCHAIN_BENCH_QUICK=1``) streams a tenth of each size.
Run: ``python -m benchmarks streaming_json`` (``make bench`` runs every benchmark).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from benchmarks._util import Row, median_time, print_table, row, scaled
from leanchain.messages import AIMessageChunk, tool_call_chunk
from leanchain.output_parsers import JsonOutputParser

RATIO = 2.5
CHUNK = 50
ARG_PIECE = 1024
MS = 1e3
KB = 1000
KIB = 1024


def json_object(size: int) -> str:
    """A JSON object of about `size` characters: records of names, numbers, flags and tags."""
    records = []
    length = 12
    i = 0
    while length < size:
        record = {"id": i, "name": f"item {i}", "score": i * 0.25, "ok": i % 3 == 0}
        record["tags"] = ["alpha", "beta"][: i % 3]
        records.append(record)
        length += len(json.dumps(record)) + 2
        i += 1
    return json.dumps({"records": records})


def pieces(text: str, size: int) -> list[str]:
    """`text` cut into pieces of `size` characters."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def stream_json(text: str) -> Callable[[], object]:
    """A call that streams `text` in `CHUNK`-character pieces through ``JsonOutputParser``."""
    chunks = pieces(text, CHUNK)
    parser = JsonOutputParser()
    expected = json.loads(text)

    def call() -> object:
        values = parser.transform(iter(chunks))
        last = None
        for value in values:
            last = value
        return last

    assert call() == expected
    return call


def merge_arguments(arguments: str) -> Callable[[], object]:
    """A call that adds up `arguments` streamed as tool-call chunks of `ARG_PIECE` characters."""
    parts = pieces(arguments, ARG_PIECE)
    first = AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(name="f", args=parts[0], id="c1", index=0)]
    )
    rest = [
        AIMessageChunk("", tool_call_chunks=[tool_call_chunk(name=None, args=p, index=0)])
        for p in parts[1:]
    ]
    expected = json.loads(arguments)

    def call() -> object:
        total = first
        for chunk in rest:
            total = total + chunk
        return total

    merged = call()
    assert isinstance(merged, AIMessageChunk)
    assert merged.tool_calls[0]["args"] == expected
    return call


def dense_arguments(size: int) -> str:
    """Tool-call arguments of about `size` characters: many short keys and small values."""
    args = {}
    length = 2
    i = 0
    while length < size:
        key, value = f"k{i}", [i, f"v{i}", {"n": i % 7}]
        args[key] = value
        length += len(json.dumps({key: value}))
        i += 1
    return json.dumps(args)


def long_answer(size: int) -> str:
    """A JSON object of about `size` characters, nearly all of it one string value."""
    sentence = r"The \"answer\", in words: caf\u00e9 and more words. "
    return '{"answer": "' + sentence * (size // len(sentence)) + '"}'


def timed(call: Callable[[], object]) -> float:
    """The median time of `call`, in milliseconds."""
    return median_time(call, number=1, rounds=scaled(7, 2)) * MS


def main() -> None:
    """Print the median stream times at 50 KB and 100 KB, their ratio, and the merge times."""
    size = scaled(100 * KB, 10 * KB)
    arguments = scaled(1024 * KIB, 64 * KIB)
    small = timed(stream_json(json_object(size // 2)))
    big = timed(stream_json(json_object(size)))
    answer = timed(stream_json(long_answer(size)))
    half = timed(merge_arguments(dense_arguments(arguments // 2)))
    full = timed(merge_arguments(dense_arguments(arguments)))
    kb, kib = f"{size // KB} KB", f"{arguments // KIB} KiB"
    half_kb, half_kib = f"{size // 2 // KB} KB", f"{arguments // 2 // KIB} KiB"
    rows: list[Row] = [
        row(f"JsonOutputParser, {half_kb} in 50-char chunks", small, None, "ms"),
        row(f"JsonOutputParser, {kb} in 50-char chunks", big, small, "ms", ratio_at_most=RATIO),
        row(f"JsonOutputParser, {kb} string value, 50-char chunks", answer, None, "ms"),
        row(f"tool-call args, {half_kib} merged in 1 KiB chunks", half, None, "ms"),
        row(f"tool-call args, {kib} merged in 1 KiB chunks", full, half, "ms"),
    ]
    print_table("Streaming JSON (linear: 2x the text, about 2x the time)", rows)


if __name__ == "__main__":
    main()
