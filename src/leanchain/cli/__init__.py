"""The ``leanchain`` command line (also ``python -m leanchain``).

``leanchain demo`` runs every agent type on a multi-step question with example tools, offline
by default; ``leanchain graph MODULE:ATTR`` draws a runnable; ``leanchain report FILE`` turns a
saved run (or a cassette) into its HTML page; ``leanchain replay FILE`` prints a recorded run
(a cassette) round by round. Problems the user can fix (a missing key, an unknown model, an
unreachable server, a bad path) are reported in one line on stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

from leanchain import __version__
from leanchain.cli._demo_models import AGENT_TYPES, DEMO_QUESTION
from leanchain.cli._errors import CliError
from leanchain.cli._replay import add_parser as add_replay_parser
from leanchain.cli._replay import replay_command

__all__ = ["main"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="leanchain",
        description="leanchain: lean, fast, typed LLM pipelines and tool-using agents.",
    )
    parser.add_argument("--version", action="version", version=f"leanchain {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    demo = commands.add_parser(
        "demo",
        help="run the agent types on a multi-step question (offline by default)",
        description=(
            "Run each agent type (tool calling, ReAct, structured chat, JSON chat, XML) on a "
            "multi-step question with a calculator, a unit converter and a table of city "
            "facts, and trace every step. Without --model an offline scripted model answers "
            f"the built-in question: {DEMO_QUESTION}"
        ),
    )
    demo.add_argument(
        "--agent",
        choices=(*AGENT_TYPES, "all"),
        default="all",
        help="the agent type to run (default: all of them, one after the other)",
    )
    demo.add_argument(
        "--question",
        help="the question to ask (a real model only: the offline model knows one question)",
    )
    demo.add_argument(
        "--model",
        metavar="PROVIDER:NAME",
        help="a real model, openai:NAME or anthropic:NAME (key from OPENAI_API_KEY or "
        "ANTHROPIC_API_KEY), or human: you type the model's replies",
    )
    demo.add_argument(
        "--base-url",
        metavar="URL",
        help="the server to send requests to, e.g. a local OpenAI-compatible server "
        "(needs --model)",
    )
    demo.add_argument(
        "--loop",
        action="store_true",
        help="make the offline model repeat its first tool call, to watch LoopGuard warn it "
        "and then stop the run",
    )
    demo.add_argument(
        "--approve",
        action="store_true",
        help="ask at the terminal before each tool call runs: approve it, reject it or edit "
        "its arguments (HumanApproval)",
    )
    demo.add_argument(
        "--report",
        metavar="FILE",
        type=Path,
        help="also write a picture of the runs to FILE: a self-contained HTML page (a FILE "
        "ending in .json gets the report's JSON form, for `leanchain report`)",
    )

    graph = commands.add_parser(
        "graph",
        help="draw a runnable's graph",
        description="Import MODULE:ATTR (a runnable, or a function with no arguments that "
        "returns one) and print its graph.",
    )
    graph.add_argument("target", metavar="MODULE:ATTR")
    graph.add_argument(
        "--format",
        choices=("mermaid", "ascii"),
        default="mermaid",
        help="Mermaid flowchart text (default) or ASCII art",
    )

    report = commands.add_parser(
        "report",
        help="turn a saved run (a report's JSON, or a cassette) into a self-contained HTML page",
        description="Read FILE, the JSON form of a report (ReportCallbackHandler.write_json, "
        "or `leanchain demo --report FILE.json`) or a cassette (leanchain.testing.cassette: "
        "its model calls in order), and write its HTML page.",
    )
    report.add_argument("file", metavar="FILE", type=Path)
    report.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        type=Path,
        help="where to write the page (default: FILE with the suffix .html)",
    )
    report.add_argument(
        "--prices",
        metavar="PRICES",
        type=Path,
        help='a JSON price table, {"MODEL": {"input": 0.15, "output": 0.6}, ...} per million '
        "tokens, to cost the model calls with (added to the report's own)",
    )
    report.add_argument("--title", help="the page's title (default: the report's)")
    add_replay_parser(commands)
    return parser


def _demo_command(args: argparse.Namespace, out: TextIO) -> None:
    from leanchain.cli._demo import agent_types_for, run_demo
    from leanchain.cli._models import parse_model

    if args.base_url is not None and args.model is None:
        raise CliError("--base-url needs --model, e.g. --model openai:NAME --base-url URL")
    spec = None if args.model is None else parse_model(args.model, args.base_url)
    approve = None
    if args.approve:
        from leanchain.cli._approve import terminal_ask

        approve = terminal_ask(sys.stdin, out)
    if args.report is None:
        run_demo(
            agent_types_for(args.agent),
            question=args.question,
            spec=spec,
            out=out,
            loop=args.loop,
            approve=approve,
        )
        return
    from leanchain.cli._report import save_report
    from leanchain.report import ReportCallbackHandler

    handler = ReportCallbackHandler(title="leanchain demo")
    try:
        run_demo(
            agent_types_for(args.agent),
            question=args.question,
            spec=spec,
            out=out,
            callbacks=[handler],
            loop=args.loop,
            approve=approve,
        )
    finally:  # a failed run is worth a look too
        save_report(handler.report(), args.report)
        out.write(f"\nReport written to {args.report}\n")


def _graph_command(args: argparse.Namespace, out: TextIO) -> None:
    from leanchain.cli._graph import draw, load_runnable

    out.write(draw(load_runnable(args.target), args.format).rstrip("\n") + "\n")


def _report_command(args: argparse.Namespace, out: TextIO) -> None:
    from leanchain.cli._report import report_command

    report_command(args.file, args.output, prices=args.prices, title=args.title, out=out)


_COMMANDS: Final = {
    "demo": _demo_command,
    "graph": _graph_command,
    "report": _report_command,
    "replay": replay_command,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``leanchain`` command; the exit status (0 success, 2 a usage or setup error).

    Args:
        argv: the arguments after the program name (default: ``sys.argv[1:]``).
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error argparse has printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    command = _COMMANDS[args.command]
    try:
        command(args, sys.stdout)
    except (CliError, EOFError) as exc:  # EOFError: the input ended (--model human)
        sys.stderr.write(f"leanchain {args.command}: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return EXIT_INTERRUPTED
    return 0
