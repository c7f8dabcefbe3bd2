"""Formatting a ``ChatPromptTemplate`` of system + placeholder + human (3 templates) per call.

Goal (issue 3): at most 15 µs per call. The placeholder gets a two-message history, so each
call produces four messages.
Run: ``.venv/bin/python -m benchmarks.bench_parts_prompt`` (or ``make bench``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from leanchain.messages import AIMessage, HumanMessage, SystemMessage
from leanchain.prompts import ChatPromptTemplate

GOAL_US = 15.0
CALLS_PER_SAMPLE = 2_000
SAMPLES = 25


def _median_us(call: Callable[[], object]) -> float:
    """The median time of one call, in microseconds, over `SAMPLES` samples."""
    for _ in range(200):
        call()
    samples = []
    for _ in range(SAMPLES):
        start = time.perf_counter()
        for _ in range(CALLS_PER_SAMPLE):
            call()
        samples.append((time.perf_counter() - start) / CALLS_PER_SAMPLE * 1e6)
    return statistics.median(samples)


def main() -> None:
    """Print the medians of ``invoke`` and ``format_messages`` against the goal."""
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You are a {role} assistant. Answer in {language}."),
            ("placeholder", "{history}"),
            ("human", "{input}"),
        ]
    )
    history = [HumanMessage("Hi!"), AIMessage("Hello, how can I help?")]
    values = {"role": "helpful", "language": "English", "history": history, "input": "2 + 2?"}
    assert prompt.invoke(values).to_messages() == [
        SystemMessage("You are a helpful assistant. Answer in English."),
        *history,
        HumanMessage("2 + 2?"),
    ]

    invoked = _median_us(lambda: prompt.invoke(values))
    formatted = _median_us(lambda: prompt.format_messages(**values))
    verdict = "ok" if invoked <= GOAL_US else "OVER GOAL"
    print(f"prompt.invoke(dict)         {invoked:8.2f} µs  goal ≤ {GOAL_US:.0f} µs  {verdict}")
    print(f"prompt.format_messages(**)  {formatted:8.2f} µs")


if __name__ == "__main__":
    main()
