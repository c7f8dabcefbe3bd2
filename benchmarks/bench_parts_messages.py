"""Merging streamed ``AIMessageChunk``s stays linear: 2,000 chunks cost about twice 1,000.

Goal (issue 3): merging 2,000 chunks (text and a streamed tool call) one by one takes at most
2.2x the time of merging 1,000. Run: ``.venv/bin/python -m benchmarks parts_messages``.
"""

from __future__ import annotations

import json

from benchmarks._util import median_time, print_table, row, scaled
from leanchain.messages import AIMessageChunk, tool_call_chunk

GOAL_RATIO = 2.2


def _chunks(n: int) -> list[AIMessageChunk]:
    """`n` chunks of one reply: half text pieces, half pieces of one tool call's arguments."""
    args = json.dumps({"items": [{"name": f"item {i}", "qty": i} for i in range(n)]})
    step = max(1, len(args) // (n // 2))
    pieces = [args[i : i + step] for i in range(0, len(args), step)]
    chunks = [AIMessageChunk(content=f"word{i} ") for i in range(n - len(pieces))]
    chunks.append(
        AIMessageChunk(
            content="",
            tool_call_chunks=[tool_call_chunk(name="order", args=pieces[0], id="call_1", index=0)],
        )
    )
    chunks.extend(
        AIMessageChunk(content="", tool_call_chunks=[tool_call_chunk(args=p, index=0)])
        for p in pieces[1:]
    )
    return chunks


def _merge(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


def main() -> None:
    """Print the medians for 1,000 and 2,000 chunks and their ratio."""
    small, large = _chunks(scaled(1_000, 100)), _chunks(scaled(2_000, 200))
    merged = _merge(large)
    assert merged.tool_calls[0]["name"] == "order", merged.tool_calls
    t_small = median_time(lambda: _merge(small), number=1, rounds=scaled(9, 2))
    t_large = median_time(lambda: _merge(large), number=1, rounds=scaled(9, 2))
    print_table(
        "Merging streamed AIMessageChunks (text + one tool call)",
        [
            row(
                f"merge {len(large):,} chunks vs {len(small):,}",
                t_large * 1e3,
                t_small * 1e3,
                "ms",
                ratio_at_most=GOAL_RATIO,
            )
        ],
    )


if __name__ == "__main__":
    main()
