"""What importing leanchain costs against ``from pydantic import BaseModel``, same run (issue 21).

Each row runs its code in fresh interpreters (``python -c``), alternating with the baseline
round by round so that both see the same moments of a shared machine, and reports medians
(the ratio is that of the two medians). Peak memory is the child's own high-water mark
(``VmHWM``).

Workloads and goals:

- ``import leanchain, leanchain.agents``: <= 1.3x the baseline's wall time. The packages
  import their names on first use, so this is the cost of a program that imports the
  packages and uses little of them.
- ``from leanchain.agents import AgentExecutor, create_tool_calling_agent``: what an agent
  program imports (the executor, the factories, messages, prompts, tools, the chat-model base
  class). No goal beyond not growing: <= 3.5x (it is a regression guard, reported as it is).
- Peak memory of each, in MiB: <= 30 MiB and <= 60 MiB.

Run: ``python -m benchmarks imports``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from benchmarks._util import Row, print_table, row, scaled

BASELINE = "from pydantic import BaseModel"
PACKAGES = "import leanchain, leanchain.agents"
AGENT_APP = "from leanchain.agents import AgentExecutor, create_tool_calling_agent"

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


def fresh(code: str) -> tuple[float, float]:
    """Run `code` in a fresh interpreter: (wall milliseconds, peak memory in MiB)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code + "\n" + _PEAK_KIB], check=True, capture_output=True
    )
    return (time.perf_counter() - start) * 1e3, int(done.stdout) / 1024


def paired(code: str, rounds: int) -> tuple[float, float, float, float]:
    """`code` against the baseline in alternating rounds: the medians of the two wall times
    and of the two peak memories."""
    fresh(code)  # the OS file cache, as a user's second run finds it
    fresh(BASELINE)
    walls: list[float] = []
    bases: list[float] = []
    peaks: list[float] = []
    base_peaks: list[float] = []
    for i in range(rounds):
        first, second = (code, BASELINE) if i % 2 == 0 else (BASELINE, code)
        a, b = fresh(first), fresh(second)
        ours, base = (a, b) if first == code else (b, a)
        walls.append(ours[0])
        bases.append(base[0])
        peaks.append(ours[1])
        base_peaks.append(base[1])
    median = statistics.median
    return median(walls), median(bases), median(peaks), median(base_peaks)


def bench_imports() -> list[Row]:
    rounds = scaled(15, 2)
    rows: list[Row] = []
    for title, code, ratio_goal, memory_goal in (
        (PACKAGES, PACKAGES, 1.3, 30.0),
        ("agent app: " + AGENT_APP.removeprefix("from leanchain.agents "), AGENT_APP, 3.5, 60.0),
    ):
        wall, base, peak, base_peak = paired(code, rounds)
        rows.append(row(f"{title}, wall time", wall, base, "ms", ratio_at_most=ratio_goal))
        rows.append(row(f"{title}, peak RSS", peak, base_peak, "MiB", at_most=memory_goal))
    return rows


def main() -> None:
    """Measure and print the table."""
    print_table(f"leanchain import cost vs {BASELINE!r}", bench_imports())


if __name__ == "__main__":
    main()
