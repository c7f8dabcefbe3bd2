"""The cassette benchmark runs end to end in quick mode and reports both workloads.

No timing is asserted: quick mode runs a couple of iterations, so its numbers mean nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(90)
def test_cassette_benchmark_prints_a_row_per_workload() -> None:
    env = {**os.environ, "LEANCHAIN_BENCH_QUICK": "1", "NO_PROXY": "127.0.0.1,localhost"}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "cassette"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=80,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == [
        "== cassette ==",
        "cassette replay vs live (ChatOpenAI over FakeProviderServer) (quick mode: numbers are "
        "not meaningful)",
    ]
    assert lines[2].split() == ["workload", "median", "baseline", "ratio", "goal"]
    for name in ("invoke", "stream"):
        [found] = [line for line in lines if line.startswith(f"{name}, 10-iteration agent run")]
        assert found.endswith(("PASS", "MISS"))
        assert "x  <= 0.5x" in found
