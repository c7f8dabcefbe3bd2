"""The long-run benchmark prints its request sizes and cost rows, and draws its plot.

The request sizes are deterministic (no timing), so they are asserted whole; the cost rows
run in quick mode and only their labels are checked.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_context import STRATEGIES, request_sizes, write_svg  # noqa: E402


def test_the_benchmark_prints_the_sizes_and_a_row_per_cost() -> None:
    env = {**os.environ, "LEANCHAIN_BENCH_QUICK": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "context"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines[:6] == [
        "== context ==",
        "Request size over a 60-step run, tokens (approximate), trigger 4000",
        "strategy            req 1   req 10   req 20   req 30   req 40   req 50   req 61   largest",
        "none                   52     4948    10397    15847    21297    26747    32742     32742",
        "ClearToolResults       52     1918     2324     2734     3144     3554     4005      4005",
        "Summarization          52     2270     2274     2274     2274     2274     2819      3909",
    ]
    rows = [line.split("  ")[0] for line in lines[8:]]
    assert rows == [
        "ClearToolResults.before_model, 60 steps",
        "Summarization, summary kept, 60 steps",
        "ToolSelector, 5 of 50 chosen (first call)",
        "ToolSelector, choice reused (later calls)",
        "60-step run with ClearToolResults, per planning call",
        "60-step run with Summarization, per planning call",
    ]


def test_the_plot_has_one_line_of_61_points_per_strategy(tmp_path: Path) -> None:
    path = tmp_path / "plot.svg"
    write_svg(str(path))
    root = ET.parse(path).getroot()
    lines = root.findall("{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == len(STRATEGIES) == 3
    assert [len(line.attrib["points"].split()) for line in lines] == [61, 61, 61]
    labels = [t.text for t in root.findall("{http://www.w3.org/2000/svg}text")]
    assert labels[-3:] == ["none", "ClearToolResults", "Summarization"]


def test_the_docs_plot_is_up_to_date(tmp_path: Path) -> None:
    path = tmp_path / "plot.svg"
    write_svg(str(path))
    assert path.read_text() == (ROOT / "docs/img/long-run-request-size.svg").read_text()
    assert max(request_sizes([])) == 32742
