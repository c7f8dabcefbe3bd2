"""Overhead of invoking a ``@tool`` with two validated int arguments, vs calling the function.

Goal (issue 3): at most 10 µs per call on top of the plain function call.
Run: ``.venv/bin/python -m benchmarks.bench_parts_tool`` (or ``make bench``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from leanchain.tools import tool

GOAL_US = 10.0
CALLS_PER_SAMPLE = 2_000
SAMPLES = 25


def multiply(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


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
    """Print the medians of a direct call and of ``tool.invoke``, and the difference."""
    multiply_tool = tool(multiply)
    args = {"a": 6, "b": 7}
    call = {"name": "multiply", "args": args, "id": "call_1", "type": "tool_call"}
    assert multiply_tool.invoke(args) == multiply(**args) == 42

    direct = _median_us(lambda: multiply(**args))
    invoked = _median_us(lambda: multiply_tool.invoke(args))
    tool_call = _median_us(lambda: multiply_tool.invoke(call))
    overhead = invoked - direct
    print(f"direct call                 {direct:8.2f} µs")
    print(f"tool.invoke(dict)           {invoked:8.2f} µs")
    print(f"tool.invoke(tool call)      {tool_call:8.2f} µs  (builds a ToolMessage)")
    verdict = "ok" if overhead <= GOAL_US else "OVER GOAL"
    print(f"overhead (dict)             {overhead:8.2f} µs  goal ≤ {GOAL_US:.0f} µs  {verdict}")


if __name__ == "__main__":
    main()
