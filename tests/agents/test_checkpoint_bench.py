"""The checkpoint benchmark runs end to end in quick mode and prints a row per workload.

No timing is asserted: quick mode runs a couple of iterations, so its numbers mean nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

WORKLOADS = [
    "10-iteration run, InMemoryCheckpointer, added per save",
    "10-iteration run, InMemoryCheckpointer, per iteration",
    "10-iteration run, SqliteCheckpointer, added per save",
    "10-iteration run, SqliteCheckpointer, per iteration",
    "save after a step, a run of 10 steps, in memory",
    "whole state written (first save of a resume), a run of 10 steps, in memory",
    "save after a step, a run of 10 steps, SQLite",
    "whole state written (first save of a resume), a run of 10 steps, SQLite",
    "save after a step, a run of 50 steps, in memory",
    "whole state written (first save of a resume), a run of 50 steps, in memory",
    "save after a step, a run of 50 steps, SQLite",
    "whole state written (first save of a resume), a run of 50 steps, SQLite",
]


@pytest.mark.timeout(90)
def test_the_checkpoint_benchmark_prints_a_row_per_workload() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "checkpoint"],
        cwd=ROOT,
        env={**os.environ, "LEANCHAIN_BENCH_QUICK": "1"},
        capture_output=True,
        text=True,
        timeout=80,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "== checkpoint =="
    assert lines[1].startswith("Checkpoints: saving an agent run after every step (a 10-step ")
    assert lines[1].endswith(" (quick mode: numbers are not meaningful)")
    rows = [line for line in lines[3:] if line.strip()]
    assert [r[: len(name)] for r, name in zip(rows, WORKLOADS, strict=True)] == WORKLOADS
