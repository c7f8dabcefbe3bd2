"""The provider benchmark runs end to end in quick mode and reports every workload.

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
    "ChatOpenAI.invoke vs create()",
    "ChatOpenAI.stream, 1,000 tokens",
    "ChatAnthropic.invoke vs create()",
    "ChatAnthropic.stream, 1,000 tokens",
]


@pytest.mark.timeout(90)
def test_provider_benchmark_prints_a_row_per_workload() -> None:
    env = {**os.environ, "LEANCHAIN_BENCH_QUICK": "1", "NO_PROXY": "127.0.0.1,localhost"}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "providers"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=80,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "== providers =="
    for workload in WORKLOADS:
        assert sum(line.startswith(workload) for line in lines) == 1, workload
    assert sum(line.startswith("  overhead per chunk") for line in lines) == 2
