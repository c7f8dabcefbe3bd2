"""Measuring the cases: interleaved rounds, medians, and ratios taken round by round.

A round measures every implementation of a workload once, in an order that rotates from round
to round, so that a noisy stretch of the (shared) machine hits all of them alike. A ratio is
the median of the per-round ratios, not the ratio of two medians.

The concurrent workload's two rows (wall time, memory per run) come from the same runs: the
memory row takes the values its time row's rounds measured, when they were measured in this
process, instead of running everything again.
"""

from __future__ import annotations

import gc
import math
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from benchmarks.compare import concurrent
from benchmarks.compare.spec import (
    Call,
    Case,
    Concurrent,
    Implementation,
    Import,
    Settings,
    Workload,
)

__all__ = ["Result", "measure", "measure_all"]

_SCALE = {"µs": 1e6, "ms": 1e3}

_PEAK_KIB = """
import sys
try:
    with open("/proc/self/status") as status:
        sys.stdout.write(status.read().split("VmHWM:")[1].split()[0])
except OSError:
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sys.stdout.write(str(peak // 1024 if sys.platform == "darwin" else peak))
"""
"""Appended to an import case: the child prints its own peak resident memory, in KiB."""


@dataclass
class Result:
    """The measurements of one workload: samples per implementation, in the workload's unit."""

    workload: Workload
    """What was measured."""
    samples: dict[str, list[float]] = field(default_factory=dict)
    """Implementation → one value per round, in round order."""
    errors: dict[str, str] = field(default_factory=dict)
    """Implementation → why it could not be measured."""

    def median(self, name: str) -> float | None:
        """The median of `name`'s samples (``None`` when it was not measured)."""
        values = self.samples.get(name)
        return statistics.median(values) if values else None

    def ratio(self, numerator: str, denominator: str) -> float | None:
        """The median over rounds of ``numerator / denominator``, measured pair by pair."""
        top = self.samples.get(numerator)
        bottom = self.samples.get(denominator)
        if not top or not bottom or len(top) != len(bottom):
            return None
        ratios = [a / b for a, b in zip(top, bottom, strict=True) if b > 0]
        return statistics.median(ratios) if ratios else None


def _time_calls(run: object, number: int) -> float:
    """Seconds for `number` calls of `run`, with the garbage collector off (as `timeit`)."""
    assert callable(run)
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            run()
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()


def _calls_per_sample(case: Call, target: float) -> int:
    """How many calls make a sample of at least `target` seconds (at least one)."""
    number = 1
    while True:
        elapsed = _time_calls(case.run, number)
        if elapsed >= min(target, 0.02):
            return max(1, math.ceil(number * target / elapsed)) if elapsed > 0 else number
        number *= 2 if elapsed * 10 > target else 10


def _run_fresh(code: str) -> tuple[float, float]:
    """Run `code` in a fresh interpreter: (wall seconds, peak memory in MiB)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code + "\n" + _PEAK_KIB],
        check=False,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"python -c {code!r} failed: {last}")
    return elapsed, int(done.stdout.strip().splitlines()[-1]) / 1024


_CONCURRENT_RUNS: dict[tuple[str, int], dict[str, float]] = {}
"""(column, round) → what the concurrent time row measured, for its memory row."""


def _sample_concurrent(
    workload: Workload,
    case: Concurrent,
    round_: int,
    server: concurrent.ConcurrentServer,
    settings: Settings,
) -> float:
    key = (case.column, round_)
    if workload.kind == "concurrent_memory" and key in _CONCURRENT_RUNS:
        return _CONCURRENT_RUNS.pop(key)["kib_per_run"]
    measured = concurrent.sample(case, server, settings)
    if workload.kind == "concurrent_time":
        _CONCURRENT_RUNS[key] = measured
        return measured["ms"]
    return measured["kib_per_run"]


def _sample(
    workload: Workload,
    case: Case,
    number: int,
    settings: Settings,
    round_: int = 0,
    server: concurrent.ConcurrentServer | None = None,
) -> float:
    """One measurement of `case`, in the workload's unit."""
    if isinstance(case, Import):
        wall, peak = _run_fresh(case.code)
        return peak if workload.kind == "import_memory" else wall * 1e3
    if isinstance(case, Concurrent):
        assert server is not None
        return _sample_concurrent(workload, case, round_, server, settings)
    seconds = _time_calls(case.run, number) / number
    return seconds * _SCALE[workload.unit] / workload.per(settings)


def _prepare(case: Case, settings: Settings) -> int:
    """Check the case once (and warm it up); returns the calls per sample."""
    if isinstance(case, Import):
        if not settings.quick:
            _run_fresh(case.code)  # fills the OS file cache, as a user's second run finds it
        return 1
    if isinstance(case, Concurrent):
        return 1  # each run checks every answer, after its warm-up runs
    got = case.run()
    if got != case.expected:
        raise AssertionError(f"expected {case.expected!r}, got {got!r}")
    return _calls_per_sample(case, settings.sample_seconds)


def measure(
    workload: Workload,
    implementations: Mapping[str, Implementation],
    settings: Settings,
    *,
    strict: bool = False,
) -> Result:
    """Measure `workload` with every implementation that has it, in interleaved rounds.

    Args:
        workload: what to measure.
        implementations: column name → implementation.
        settings: rounds and sizes.
        strict: raise the first error instead of recording it in `Result.errors`.
    """
    result = Result(workload)
    cases: dict[str, Case] = {}
    numbers: dict[str, int] = {}
    server = concurrent.ConcurrentServer(settings)
    if workload.kind == "concurrent_time":
        _CONCURRENT_RUNS.clear()
    rounds = (
        settings.concurrent_rounds if workload.kind.startswith("concurrent") else settings.rounds
    )
    try:
        for name, implementation in implementations.items():
            factory = implementation.get(workload.key)
            if factory is None:
                continue
            try:
                case = cases[name] = factory(settings)
                numbers[name] = _prepare(case, settings)
            except Exception as exc:
                if strict:
                    raise
                traceback.print_exc()
                result.errors[name] = f"{type(exc).__name__}: {exc}"
                cases.pop(name, None)
        names = [name for name in cases if name in numbers]
        for name in names:
            result.samples[name] = []
        for round_ in range(rounds):
            shift = round_ % len(names) if names else 0
            for name in names[shift:] + names[:shift]:
                if name in result.errors:
                    continue
                try:
                    value = _sample(workload, cases[name], numbers[name], settings, round_, server)
                except Exception as exc:
                    if strict:
                        raise
                    traceback.print_exc()
                    result.errors[name] = f"{type(exc).__name__}: {exc}"
                    del result.samples[name]
                    continue
                result.samples[name].append(value)
    finally:
        server.stop()
        for case in cases.values():
            if isinstance(case, Call) and case.close is not None:
                case.close()
    return result


def measure_all(
    workloads: Sequence[Workload],
    implementations: Mapping[str, Implementation],
    settings: Settings,
    *,
    strict: bool = False,
    progress: bool = False,
) -> list[Result]:
    """`measure` each workload in turn; with `progress`, print each one's name as it starts."""
    results: list[Result] = []
    for workload in workloads:
        if progress:
            print(f"  {workload.title} ...", file=sys.stderr, flush=True)
        results.append(measure(workload, implementations, settings, strict=strict))
    return results
