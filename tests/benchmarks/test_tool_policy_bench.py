"""The ToolPolicy benchmark runs end to end in quick mode and prints each of its rows.

No timing is asserted: quick mode runs a handful of calls, so its numbers mean nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROWS = [
    f"{path}, {policy}, {what}"
    for path in ("sync", "async")
    for policy in ("ToolPolicy(retries=2, disable_after=3)", "ToolPolicy(timeout=5)")
    for what in ("added per call", "per call")
]


def test_the_tool_policy_benchmark_prints_its_rows() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "tool_policy"],
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
        "== tool_policy ==",
        "ToolPolicy, one successful call of a trivial tool (paired rounds) "
        "(quick mode: numbers are not meaningful)",
    ]
    assert lines[2].split() == ["workload", "median", "baseline", "ratio", "goal"]
    assert [line[: len(name)] for line, name in zip(lines[3:], ROWS, strict=True)] == ROWS
    assert len(lines) == 3 + len(ROWS)
    for line, name in zip(lines[3:], ROWS, strict=True):
        assert line.endswith(("PASS", "MISS")), line
        if name.endswith("retries=2, disable_after=3), added per call"):
            assert "<= 2 µs" in line, line
