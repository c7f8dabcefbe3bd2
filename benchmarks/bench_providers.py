"""Provider overhead: ChatOpenAI/ChatAnthropic vs the raw SDK call, same local server and reply.

Goals (issue 5): ``ChatOpenAI.invoke`` at most 1.05x the raw ``chat.completions.create``; and
streaming 1,000 tokens, at most 10 µs per chunk on top of iterating the raw SDK stream. The
Anthropic rows are for information. Both sides talk to one `FakeProviderServer` over real HTTP
(keep-alive), in rounds that alternate between them so that drift hits both alike; the times
are this process's CPU time (client and in-process server), so that other load on the machine
does not blur a difference of a few percent.

Run: ``.venv/bin/python -m benchmarks.bench_providers`` (or ``make bench``).
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks._util import QUICK, Row, print_table, row
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply

KEY = "sk-bench"
ANSWER = ScriptedReply(text="Hello! How can I help you today?")
TOKENS = 1_000
STREAM = ScriptedReply(text="abcd" * TOKENS, chunk_size=4)  # 1,000 text deltas


def alternate(
    server: FakeProviderServer,
    reply: ScriptedReply,
    raw: Callable[[], object],
    ours: Callable[[], object],
    *,
    number: int,
    rounds: int,
) -> tuple[float, float]:
    """CPU seconds per call of `raw` and of `ours`, from rounds that time both back to back.

    CPU time of this process, in which the server runs too: the work of both sides, which
    other processes on a busy machine do not inflate the way they inflate wall time.

    Returns the median time of `raw`, and that times the median of the per-round ratios: on a
    busy machine a round's two timings share its load, so their ratio is steadier than the
    ratio of two independent medians. The order within a round alternates.
    """
    rounds, number = (2, 2) if QUICK else (rounds, number)
    server.enqueue(*([reply] * (2 * number * (rounds + 1))))
    for _ in range(number):  # warm both clients and connections
        raw()
        ours()
    raw_times: list[float] = []
    ratios: list[float] = []
    gc.collect()
    gc.disable()  # as timeit does: a collection would land on whichever side it falls in
    try:
        _rounds(raw, ours, number, rounds, raw_times, ratios)
    finally:
        gc.enable()
    server.reset()
    baseline = statistics.median(raw_times)
    return baseline, baseline * statistics.median(ratios)


def _rounds(
    raw: Callable[[], object],
    ours: Callable[[], object],
    number: int,
    rounds: int,
    raw_times: list[float],
    ratios: list[float],
) -> None:
    for turn in range(rounds):
        timed: dict[int, float] = {}
        for func in (raw, ours) if turn % 2 else (ours, raw):
            start = time.process_time()
            for _ in range(number):
                func()
            timed[id(func)] = (time.process_time() - start) / number
        raw_times.append(timed[id(raw)])
        ratios.append(timed[id(ours)] / timed[id(raw)])


def drain(stream: Any) -> None:
    for _ in stream:
        pass


def openai_rows(server: FakeProviderServer) -> list[Row]:
    import openai

    client = openai.OpenAI(api_key=KEY, base_url=server.openai_base_url, max_retries=0)
    model = ChatOpenAI(model="gpt-bench", api_key=KEY, base_url=server.openai_base_url)
    messages: Any = [{"role": "user", "content": "Hi"}]

    def raw_create() -> object:
        return client.chat.completions.create(model="gpt-bench", messages=messages)

    def raw_stream() -> None:
        drain(
            client.chat.completions.create(
                model="gpt-bench",
                messages=messages,
                stream=True,
                stream_options={"include_usage": True},
            )
        )

    raw, ours = alternate(
        server, ANSWER, raw_create, lambda: model.invoke("Hi"), number=10, rounds=61
    )
    raw_s, ours_s = alternate(
        server, STREAM, raw_stream, lambda: drain(model.stream("Hi")), number=1, rounds=31
    )
    per_chunk = (ours_s - raw_s) / TOKENS * 1e6
    return [
        row("ChatOpenAI.invoke vs create()", ours * 1e3, raw * 1e3, "ms", ratio_at_most=1.05),
        row("ChatOpenAI.stream, 1,000 tokens", ours_s * 1e3, raw_s * 1e3, "ms"),
        row("  overhead per chunk", per_chunk, None, "µs", at_most=10.0),
    ]


def anthropic_rows(server: FakeProviderServer) -> list[Row]:
    import anthropic

    client = anthropic.Anthropic(api_key=KEY, base_url=server.anthropic_base_url, max_retries=0)
    model = ChatAnthropic(model="claude-bench", api_key=KEY, base_url=server.anthropic_base_url)
    messages: Any = [{"role": "user", "content": "Hi"}]

    def raw_create() -> object:
        return client.messages.create(model="claude-bench", max_tokens=4096, messages=messages)

    def raw_stream() -> None:
        drain(
            client.messages.create(
                model="claude-bench", max_tokens=4096, messages=messages, stream=True
            )
        )

    raw, ours = alternate(
        server, ANSWER, raw_create, lambda: model.invoke("Hi"), number=10, rounds=61
    )
    raw_s, ours_s = alternate(
        server, STREAM, raw_stream, lambda: drain(model.stream("Hi")), number=1, rounds=31
    )
    per_chunk = (ours_s - raw_s) / TOKENS * 1e6
    return [
        row("ChatAnthropic.invoke vs create()", ours * 1e3, raw * 1e3, "ms"),
        row("ChatAnthropic.stream, 1,000 tokens", ours_s * 1e3, raw_s * 1e3, "ms"),
        row("  overhead per chunk", per_chunk, None, "µs"),
    ]


def main() -> None:
    """Print the provider overhead table."""
    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
    with FakeProviderServer() as server:
        rows = openai_rows(server) + anthropic_rows(server)
    print_table("Provider overhead over the raw SDKs (same local server, same replies)", rows)


if __name__ == "__main__":
    main()
