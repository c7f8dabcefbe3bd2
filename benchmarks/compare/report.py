"""The comparison's outputs: the printed table, ``latest.json``, ``latest.md`` and ``latest.png``.

Every writer takes the results and the `environment` they were measured in; none of them
needs LangChain or the peers (the smoke test feeds them made-up peer columns). Only
`write_png` needs matplotlib, imported when it is called.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmarks.compare.measure import Result
from benchmarks.compare.spec import IMPLEMENTATIONS, PEERS, Settings, workload

__all__ = [
    "HEADER",
    "LABELS",
    "PACKAGES",
    "TITLE",
    "environment",
    "footnotes",
    "format_ratio",
    "format_value",
    "from_json",
    "print_table",
    "table_rows",
    "to_json",
    "to_markdown",
    "write_outputs",
    "write_png",
]

PACKAGES = (
    "leanchain",
    "langchain-core",
    "langchain-classic",
    "langchain-openai",
    "langsmith",
    "langchain",
    "langgraph",
    "pydantic-ai-slim",
    "openai-agents",
    "openai",
    "pydantic",
)
"""The packages whose versions the report records."""

LABELS = {
    "plain": "plain Python",
    "leanchain": "leanchain",
    "langchain": "LangChain",
    "create_agent": "LangChain create_agent",
    "pydantic_ai": "pydantic-ai",
    "openai_agents": "OpenAI Agents",
}
"""Each column's name in the text and the chart's legend."""
_SHORT = {**LABELS, "plain": "plain", "create_agent": "create_agent"}
HEADER = (
    "workload",
    "unit",
    *(_SHORT[name] for name in IMPLEMENTATIONS),
    "leanchain / plain",
    *(f"{_SHORT[name]} / leanchain" for name in PEERS),
)
TITLE = "leanchain vs LangChain, pydantic-ai, the OpenAI Agents SDK and plain Python"
_COLORS = {
    "plain": "#9e9e9e",
    "leanchain": "#2e7d32",
    "langchain": "#1565c0",
    "create_agent": "#64b5f6",
    "pydantic_ai": "#e65100",
    "openai_agents": "#6a1b9a",
}


def environment(settings: Settings) -> dict[str, Any]:
    """When, where and with what the run was made: date, machine, Python, versions."""
    versions: dict[str, str | None] = {}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "quick": settings.quick,
        "rounds": settings.rounds,
        "concurrent_rounds": settings.concurrent_rounds,
        "machine": {
            "platform": platform.platform(),
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
        },
        "python": {
            "implementation": platform.python_implementation(),
            "version": platform.python_version(),
        },
        "versions": versions,
    }


def format_value(value: float | None) -> str:
    """A median for the table: 3 significant digits, thousands separated, ``-`` for none."""
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def format_ratio(ratio: float | None) -> str:
    """A ratio for the table, such as ``3.4x`` or ``1,250x``; ``-`` for none."""
    if ratio is None:
        return "-"
    if ratio >= 100:
        return f"{ratio:,.0f}x"
    if ratio >= 10:
        return f"{ratio:.0f}x"
    return f"{ratio:.2f}x" if ratio < 1 else f"{ratio:.1f}x"


def footnotes(results: Sequence[Result]) -> list[str]:
    """The workloads' notes, each once, in order of first use (footnote ``[n]`` is item n-1)."""
    return list(dict.fromkeys(r.workload.note for r in results if r.workload.note))


def table_rows(results: Sequence[Result], notes: Sequence[str] = ()) -> list[tuple[str, ...]]:
    """One row of cells per workload, in `HEADER`'s order; titles get their ``[n]`` note."""
    numbers = {note: i for i, note in enumerate(notes, 1)}
    return [
        (
            result.workload.title
            + (f" [{numbers[result.workload.note]}]" if result.workload.note in numbers else ""),
            result.workload.unit,
            *(format_value(result.median(name)) for name in IMPLEMENTATIONS),
            format_ratio(result.ratio("leanchain", "plain")),
            *(format_ratio(result.ratio(name, "leanchain")) for name in PEERS),
        )
        for result in results
    ]


def _summary(env: dict[str, Any]) -> str:
    machine = env["machine"]
    python = env["python"]
    versions = ", ".join(f"{name} {v}" for name, v in env["versions"].items() if v is not None)
    return (
        f"{env['date']} on {machine['platform']} ({machine['machine']}, "
        f"{machine['cpu_count']} CPUs); {python['implementation']} {python['version']}; "
        f"{versions}"
    )


def print_table(results: Sequence[Result], env: dict[str, Any]) -> None:
    """Print the results as an aligned table, with the run's summary above it."""
    rows = [HEADER, *table_rows(results)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    print(f"{TITLE}: {_summary(env)}")
    if env["quick"]:
        print("(quick mode: the numbers are not meaningful)")
    for row in rows:
        print(
            "  ".join(
                cell.ljust(width) if i < 2 else cell.rjust(width)
                for i, (cell, width) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )
    for result in results:
        for name, error in result.errors.items():
            print(f"! {result.workload.title}: {LABELS[name]} failed: {error}")


def to_json(results: Sequence[Result], env: dict[str, Any]) -> dict[str, Any]:
    """The results as a JSON-ready dict: the environment plus one entry per workload."""
    return {
        **env,
        "columns": list(IMPLEMENTATIONS),
        "workloads": [
            {
                "key": result.workload.key,
                "title": result.workload.title,
                "group": result.workload.group,
                "unit": result.workload.unit,
                "note": result.workload.note,
                "median": {name: result.median(name) for name in IMPLEMENTATIONS},
                "leanchain_over_plain": result.ratio("leanchain", "plain"),
                "over_leanchain": {name: result.ratio(name, "leanchain") for name in PEERS},
                "samples": result.samples,
                "errors": result.errors,
            }
            for result in results
        ],
    }


def from_json(data: dict[str, Any]) -> tuple[list[Result], dict[str, Any]]:
    """The results and environment back from `to_json`'s output (to redraw the reports)."""
    env = {key: value for key, value in data.items() if key not in ("columns", "workloads")}
    results = [
        Result(workload(entry["key"]), dict(entry["samples"]), dict(entry["errors"]))
        for entry in data["workloads"]
    ]
    return results, env


def to_markdown(results: Sequence[Result], env: dict[str, Any]) -> str:
    """The results as a Markdown section: the summary, the table and the notes."""
    lines = [
        f"## {TITLE}",
        "",
        f"Measured {_summary(env)}.",
        "",
        f"Medians of {env['rounds']} interleaved rounds (lower is better; the concurrent rows: "
        f"{env.get('concurrent_rounds', env['rounds'])} rounds). The ratio columns are medians "
        "of the per-round ratios: *leanchain / plain* is leanchain's cost over the hand-written "
        "lower bound, *X / leanchain* how many times faster (or lighter) leanchain is than X. "
        "*LangChain* is langchain-core with langchain-classic's AgentExecutor, *create_agent* "
        "LangChain 1.x's agent on LangGraph; a `-` is a workload a column does not have.",
    ]
    if env["quick"]:
        lines += ["", "**Quick mode: the numbers are not meaningful.**"]
    lines += [
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join(["---", "---", *["---:"] * (len(HEADER) - 2)]) + "|",
    ]
    notes = footnotes(results)
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(results, notes)]
    errors = [
        f"- **{r.workload.title}**: {LABELS[name]} failed: `{error}`"
        for r in results
        for name, error in r.errors.items()
    ]
    if notes:
        lines += ["", "Notes:", "", *(f"{i}. {note}" for i, note in enumerate(notes, 1))]
    if errors:
        lines += ["", "Failures:", "", *errors]
    return "\n".join(lines) + "\n"


def write_png(results: Sequence[Result], env: dict[str, Any], path: Path) -> None:
    """A bar chart on log scales: one panel per unit, one bar per library per workload."""
    import matplotlib  # type: ignore[import-not-found,unused-ignore]

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # type: ignore[import-not-found,unused-ignore]

    units = [u for u in ("µs", "ms", "MiB", "KiB") if any(r.workload.unit == u for r in results)]
    panels = [[r for r in results if r.workload.unit == unit] for unit in units]
    heights = [max(1.8, 0.8 * len(panel) + 0.8) for panel in panels]
    figure, axes = plt.subplots(
        len(panels),
        1,
        figsize=(12, sum(heights) + 1),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    bar = 0.8 / len(IMPLEMENTATIONS)
    for ax, unit, panel in zip(axes[:, 0], units, panels, strict=True):
        positions = range(len(panel))
        # Each row's bars are the columns that measured it, centred on the row's label.
        present = [[n for n in IMPLEMENTATIONS if r.median(n) is not None] for r in panel]
        for name in IMPLEMENTATIONS:
            values = [r.median(name) for r in panel]
            bars = ax.barh(
                [
                    p + (names.index(name) - (len(names) - 1) / 2) * bar if name in names else p
                    for p, names in zip(positions, present, strict=True)
                ],
                [v if v is not None and v > 0 else 0 for v in values],
                height=bar,
                color=_COLORS[name],
                label=LABELS[name],
            )
            ax.bar_label(
                bars,
                labels=[format_value(v) if v else "" for v in values],
                padding=2,
                fontsize=5,
            )
        ax.set_xscale("log")
        measured = [v for r in panel for n in IMPLEMENTATIONS if (v := r.median(n))]
        if measured:
            # Room on the right for the value labels.
            ax.set_xlim(min(measured) / 1.5, max(measured) * 4)
        ax.set_yticks(list(positions), [r.workload.title for r in panel], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(f"median, {unit} (log scale; lower is better)", fontsize=8)
        ax.grid(axis="x", which="major", alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    figure.legend(
        handles,
        labels,
        loc="upper center",
        ncol=len(IMPLEMENTATIONS),
        fontsize=9,
        frameon=False,
        bbox_to_anchor=(0.5, 0.965),
    )
    versions = env["versions"]
    figure.suptitle(
        f"leanchain {versions.get('leanchain')} vs LangChain (core "
        f"{versions.get('langchain-core')}, classic {versions.get('langchain-classic')}, "
        f"langchain {versions.get('langchain')}), pydantic-ai "
        f"{versions.get('pydantic-ai-slim')}, OpenAI Agents {versions.get('openai-agents')}"
        f" vs plain Python — {env['date'][:10]}, {env['machine']['cpu_count']} CPUs, "
        f"Python {env['python']['version']}",
        fontsize=10,
        y=0.99,
    )
    figure.tight_layout(rect=(0, 0, 1, 0.95))
    figure.savefig(path, dpi=100)
    plt.close(figure)


def write_outputs(
    results: Sequence[Result], env: dict[str, Any], directory: Path, *, png: bool = True
) -> list[Path]:
    """Write ``latest.json``, ``latest.md`` (and ``latest.png``) into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    written = [directory / "latest.json", directory / "latest.md"]
    written[0].write_text(json.dumps(to_json(results, env), indent=2, ensure_ascii=False) + "\n")
    written[1].write_text(to_markdown(results, env))
    if png:
        written.append(directory / "latest.png")
        write_png(results, env, written[-1])
    return written
