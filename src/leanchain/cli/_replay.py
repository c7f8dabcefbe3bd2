"""``leanchain replay FILE [--round N]``: a recorded run (a cassette), round by round.

Each round is one model call: what was new in its prompt (the observations — tool results —
and any other new message; the first round shows its whole prompt), then the reply: its text,
its tool calls and its usage. Long texts are cut; ``--round N`` prints round N's full prompt,
every message whole, with the tools offered, the stop sequences and the reply. The printing
is `_replay_view`'s, imported only when the command runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from leanchain.cli._errors import CliError

__all__ = ["add_parser", "replay_command"]


def add_parser(commands: Any) -> None:
    """Add the ``replay`` subcommand to the CLI's subparsers."""
    replay = commands.add_parser(
        "replay",
        help="print a recorded run (a cassette) round by round",
        description="Read FILE, a cassette written by leanchain.testing.cassette, and print "
        "every model call in order: what was new in its prompt (the observations), the reply "
        "and its tool calls. --round N prints round N's full prompt.",
    )
    replay.add_argument("file", metavar="FILE", type=Path)
    replay.add_argument(
        "--round", metavar="N", type=int, help="print the full prompt and reply of round N"
    )


def replay_command(args: argparse.Namespace, out: TextIO) -> None:
    """Print the cassette `args.file`, or one of its rounds.

    Raises:
        CliError: the file is missing or is not a cassette, or there is no round N.
    """
    from leanchain.cli._replay_view import full_round, load_rounds, rounds

    path: Path = args.file
    entries, prompts = load_rounds(path)
    if args.round is None:
        out.write("\n".join(rounds(path, entries, prompts)) + "\n")
        return
    if not 1 <= args.round <= len(entries):
        raise CliError(
            f"--round {args.round}: {path} has no rounds"
            if not entries
            else f"--round {args.round}: {path} has rounds 1 to {len(entries)}"
        )
    index = args.round - 1
    out.write("\n".join(full_round(entries, prompts, index)) + "\n")
