"""Run the comparison in this interpreter: measure, print the table, write the results.

``python -m benchmarks.compare --here [--only KEY ...] [--out DIR] [--no-png]``. A full run
(no ``--only``, not quick) writes ``benchmarks/results/latest.*``; a partial or quick run
writes only where ``--out`` says. ``--render benchmarks/results/latest.json`` redraws the
reports from saved results without measuring.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from pathlib import Path

from benchmarks.compare.measure import measure_all
from benchmarks.compare.report import environment, from_json, print_table, write_outputs
from benchmarks.compare.spec import WORKLOADS, Implementation, Settings

__all__ = ["RESULTS", "implementations", "main", "no_tracing"]

RESULTS = Path(__file__).resolve().parent.parent / "results"
"""Where a full run writes ``latest.json``, ``latest.md`` and ``latest.png``."""


def implementations() -> dict[str, Implementation]:
    """Every column's implementation; importing LangChain's needs it installed (the peers'
    modules import their libraries only when a case is built)."""
    no_tracing()
    from benchmarks.compare import (
        lang,
        lean,
        peer_create_agent,
        peer_openai_agents,
        peer_pydantic_ai,
        plain,
    )

    return {
        "plain": plain.CASES,
        "leanchain": lean.CASES,
        "langchain": lang.CASES,
        "create_agent": peer_create_agent.CASES,
        "pydantic_ai": peer_pydantic_ai.CASES,
        "openai_agents": peer_openai_agents.CASES,
    }


def no_tracing() -> None:
    """Turn off LangSmith tracing: it would send every run over the network (and slow
    LangChain down). The OpenAI Agents SDK's tracing is turned off where its agents are built."""
    os.environ["LANGSMITH_TRACING"] = "false"
    os.environ["LANGCHAIN_TRACING_V2"] = "false"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare --here")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="KEY",
        help="measure only the workloads whose key starts with KEY (repeatable)",
    )
    parser.add_argument("--out", type=Path, help="write latest.json/.md/.png here")
    parser.add_argument("--no-png", action="store_true", help="skip the chart")
    parser.add_argument("--quick", action="store_true", help="tiny measurements (smoke)")
    parser.add_argument("--list", action="store_true", help="list the workload keys and exit")
    parser.add_argument(
        "--render",
        type=Path,
        metavar="JSON",
        help="measure nothing: redraw the table, Markdown and chart from a saved latest.json",
    )
    return parser


def main(argv: Sequence[str]) -> int:
    """Measure every chosen workload in every column that implements it."""
    args = _parser().parse_args(argv)
    if args.list:
        for workload in WORKLOADS:
            print(f"{workload.key:26} {workload.title}")
        return 0
    if args.render is not None:
        results, env = from_json(json.loads(args.render.read_text()))
        print_table(results, env)
        for path in write_outputs(
            results, env, args.out or args.render.parent, png=not args.no_png
        ):
            print(f"wrote {path}")
        return 0
    settings = Settings(quick=True) if args.quick else Settings.from_env()
    chosen = [w for w in WORKLOADS if not args.only or w.key.startswith(tuple(args.only))]
    if not chosen:
        print(f"no workload matches {args.only}; see --list")
        return 2
    columns = implementations()
    # A workload that only one column has (or none) compares nothing.
    chosen = [w for w in chosen if sum(w.key in cases for cases in columns.values()) > 1]
    results = measure_all(chosen, columns, settings, progress=True)
    env = environment(settings)
    print_table(results, env)
    out = args.out
    if out is None and not args.only and not settings.quick:
        out = RESULTS
    if out is not None:
        for path in write_outputs(results, env, out, png=not args.no_png):
            print(f"wrote {path}")
    return 1 if any(result.errors for result in results) else 0
