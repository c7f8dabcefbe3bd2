"""``leanchain demo --approve``: ask at the terminal before each tool call runs.

The answer is read from a line: ``y`` (or ``yes``) approves, ``n`` (or ``no``) rejects,
``e`` (or ``edit``) asks for the new arguments as JSON. Anything else is asked again; the end
of the input rejects the call (a missing answer never runs a tool).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final, TextIO

from leanchain.agents.middleware import ApprovalRequest, Decision
from leanchain.cli._trace import format_call

__all__ = ["terminal_ask"]

ATTEMPTS: Final = 5
"""How many unreadable answers a call gets before it is rejected."""


def terminal_ask(stdin: TextIO, out: TextIO) -> Callable[[ApprovalRequest], Decision]:
    """A `HumanApproval` ``ask`` that prompts on `out` and reads the answer from `stdin`."""

    def ask(request: ApprovalRequest) -> Decision:
        call = format_call(request.tool, request.arguments)
        for _ in range(ATTEMPTS):
            out.write(f"  ? run {call}? [y]es, [n]o, [e]dit: ")
            out.flush()
            line = _read_line(stdin, out)
            if not line:
                out.write("\n  (no answer: the call is rejected)\n")
                return request.reject()
            answer = line.strip().lower()
            if answer in ("y", "yes"):
                return request.approve()
            if answer in ("n", "no"):
                return request.reject()
            if answer in ("e", "edit"):
                edited = _read_arguments(stdin, out)
                if edited is not None:
                    return request.edit(edited)
                continue
            out.write("  please answer y, n or e\n")
        out.write("  (no usable answer: the call is rejected)\n")
        return request.reject()

    return ask


def _read_line(stdin: TextIO, out: TextIO) -> str:
    """One answer; echoed when it does not come from a terminal (so a log reads well)."""
    line = stdin.readline()
    isatty = getattr(stdin, "isatty", None)
    if line and not (isatty and isatty()):
        out.write(line if line.endswith("\n") else line + "\n")
    return line


def _read_arguments(stdin: TextIO, out: TextIO) -> dict[str, object] | str | None:
    out.write("  new arguments (JSON): ")
    out.flush()
    line = _read_line(stdin, out)
    try:
        value = json.loads(line)
    except ValueError:
        out.write("  that is not JSON\n")
        return None
    if isinstance(value, (dict, str)):
        return value
    out.write("  the arguments are a JSON object (or a string)\n")
    return None
