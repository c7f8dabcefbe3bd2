"""The core benchmark runs end to end in quick mode and reports every workload.

No timing is asserted: quick mode runs a handful of iterations, so its numbers mean nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

WORKLOADS = [
    "invoke, 10-step lambda chain, per step",
    "invoke, same with one callback handler, per step",
    "RunnablePassthrough.assign, one key",
    "RunnableParallel, 4 trivial branches",
    "stream, 10,000 chunks, generator | streaming step",
    "abatch, 1,000 x sleep(0.01), max_concurrency=100",
    "batch, 1,000 inputs through a 10-step chain",
    "import leanchain, wall time",
    "import leanchain, peak RSS",
]


def run_benchmarks(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEANCHAIN_BENCH_QUICK": "1"}
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.timeout(90)
def test_core_benchmark_prints_a_row_per_workload() -> None:
    done = run_benchmarks("core")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "== core =="
    assert lines[1] == "leanchain runnable core (quick mode: numbers are not meaningful)"
    assert lines[2].split() == ["workload", "median", "baseline", "ratio", "goal"]
    rows = [line for line in lines[3:] if line.strip()]
    assert [row[: len(name)] for row, name in zip(rows, WORKLOADS, strict=True)] == WORKLOADS
    for row in rows:
        assert row.endswith(("PASS", "MISS"))
        assert "x  <= " in row


def test_an_unknown_benchmark_name_is_refused() -> None:
    done = run_benchmarks("no_such_benchmark")
    assert done.returncode == 2
    assert done.stdout.startswith("unknown benchmark(s): no_such_benchmark; available: ")
    assert "core" in done.stdout


def test_message_merging_benchmark_prints_its_row() -> None:
    done = run_benchmarks("parts_messages")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines[:2] == [
        "== parts_messages ==",
        "Merging streamed AIMessageChunks (text + one tool call) "
        "(quick mode: numbers are not meaningful)",
    ]
    assert lines[3].startswith("merge 200 chunks vs 100 ")
    assert lines[3].endswith(("PASS", "MISS"))


def test_import_benchmark_prints_its_four_rows() -> None:
    done = run_benchmarks("imports")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines[:2] == [
        "== imports ==",
        "leanchain import cost vs 'from pydantic import BaseModel' "
        "(quick mode: numbers are not meaningful)",
    ]
    assert lines[2].split() == ["workload", "median", "baseline", "ratio", "goal"]
    titles = [
        "import leanchain, leanchain.agents, wall time",
        "import leanchain, leanchain.agents, peak RSS",
        "agent app: import AgentExecutor, create_tool_calling_agent, wall time",
        "agent app: import AgentExecutor, create_tool_calling_agent, peak RSS",
    ]
    assert [row[: len(title)] for row, title in zip(lines[3:], titles, strict=True)] == titles
    assert len(lines) == 7
    for row, goal in zip(lines[3:], ("<= 1.3x", "<= 30 MiB", "<= 3.5x", "<= 60 MiB"), strict=True):
        assert row.split("  ")[-1] in ("PASS", "MISS"), row
        assert row.removesuffix("PASS").removesuffix("MISS").rstrip().endswith(goal), row
