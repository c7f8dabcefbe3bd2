"""Timing helpers shared by the benchmarks: rounds, medians, and the results table.

``LEANCHAIN_BENCH_QUICK=1`` makes every measurement a couple of short rounds, so a smoke test
can run a whole benchmark in a second or two (its numbers then mean nothing).
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

QUICK = os.environ.get("LEANCHAIN_BENCH_QUICK") == "1"
"""Whether to run few iterations (for smoke tests)."""


def scaled(full: int, quick: int) -> int:
    """`full` normally, `quick` in quick mode."""
    return quick if QUICK else full


def median_time(func: Callable[[], object], *, number: int, rounds: int = 7) -> float:
    """The median over `rounds` of the time of one call of `func`, in seconds.

    Each round calls `func` `number` times with the garbage collector off (as `timeit` does);
    one untimed round warms caches first. Quick mode uses 2 rounds of a few calls.
    """
    if QUICK:
        number, rounds = max(1, min(number, 20)), 2
    for _ in range(min(number, 100)):
        func()
    samples = []
    for _ in range(rounds):
        enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter()
            for _ in range(number):
                func()
            samples.append((time.perf_counter() - start) / number)
        finally:
            if enabled:
                gc.enable()
    return statistics.median(samples)


def paired_times(
    first: Callable[[], object], second: Callable[[], object], *, number: int, rounds: int = 7
) -> tuple[float, float]:
    """The median times of one call of `first` and of `second`, in seconds, timed in
    alternating rounds so that both see the same conditions on a shared, noisy machine.

    Each round calls `first` `number` times, then `second` `number` times, with the garbage
    collector off; one untimed round of each warms caches first. Quick mode as `median_time`.
    """
    if QUICK:
        number, rounds = max(1, min(number, 20)), 2
    for _ in range(min(number, 100)):
        first()
        second()
    firsts: list[float] = []
    seconds: list[float] = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(number):
                first()
            middle = time.perf_counter()
            for _ in range(number):
                second()
            firsts.append((middle - start) / number)
            seconds.append((time.perf_counter() - middle) / number)
    finally:
        if enabled:
            gc.enable()
    return statistics.median(firsts), statistics.median(seconds)


def median_of(samples: list[float]) -> float:
    """The median of some measurements."""
    return statistics.median(samples)


@dataclass(frozen=True)
class Row:
    """One line of a results table: a workload, its measurement, its baseline and its goal."""

    workload: str
    """What was measured."""
    value: float
    """The median measurement, in `unit`."""
    baseline: float | None
    """The baseline's median in the same unit (``None`` when there is none)."""
    unit: str
    """``"µs"``, ``"ms"``, ``"MiB"``..."""
    goal: str
    """The goal in words, e.g. ``"<= 1 µs and <= 10x"``."""
    met: bool
    """Whether the goal was met."""

    @property
    def ratio(self) -> float | None:
        """``value / baseline``."""
        if self.baseline is None or self.baseline == 0:
            return None
        return self.value / self.baseline


def row(
    workload: str,
    value: float,
    baseline: float | None,
    unit: str,
    *,
    at_most: float | None = None,
    ratio_at_most: float | None = None,
) -> Row:
    """A `Row` whose goal is an absolute bound, a bound on the ratio, or both."""
    goals: list[str] = []
    met = True
    if at_most is not None:
        goals.append(f"<= {at_most:g} {unit}")
        met = met and value <= at_most
    if ratio_at_most is not None:
        goals.append(f"<= {ratio_at_most:g}x")
        met = met and baseline is not None and value <= ratio_at_most * baseline
    return Row(workload, value, baseline, unit, " and ".join(goals), met)


def _number(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    digits = 3 if value < 10 else 1
    return f"{value:.{digits}f} {unit}"


def print_table(title: str, rows: list[Row]) -> None:
    """Print the rows as an aligned table: workload, median, baseline, ratio, goal, verdict."""
    header = ("workload", "median", "baseline", "ratio", "goal", "")
    lines = [
        (
            r.workload,
            _number(r.value, r.unit),
            _number(r.baseline, r.unit),
            "-" if r.ratio is None else f"{r.ratio:.2f}x",
            r.goal,
            "PASS" if r.met else "MISS",
        )
        for r in rows
    ]
    widths = [max(len(cells[i]) for cells in [header, *lines]) for i in range(len(header))]
    print(title + (" (quick mode: numbers are not meaningful)" if QUICK else ""))
    for cells in [header, *lines]:
        print(
            "  ".join(
                cell.rjust(width) if 0 < i < 4 else cell.ljust(width)
                for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()
        )
