"""The console trace of ``AgentExecutor(verbose=True)``: one readable line group per step.

Colours are ANSI escapes, left out when the ``NO_COLOR`` environment variable is set
(https://no-color.org). Each tool keeps one colour for the whole run; green is kept for the
final answer and red for stops and errors.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from leanchain.agents.schema import AgentAction, AgentFinish, AgentStep, observation_text

__all__ = ["Trace"]

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_GREEN = "\x1b[32m"
_RED = "\x1b[31m"
_TOOL_COLOURS = ("\x1b[36m", "\x1b[33m", "\x1b[34m", "\x1b[35m")


class Trace:
    """Prints the planned actions, the observations and the outcome of one agent run."""

    __slots__ = ("_colour", "_colours", "_out", "_step")

    def __init__(self, tool_names: list[str], out: TextIO | None = None) -> None:
        self._out = out if out is not None else sys.stdout
        self._colour = not os.environ.get("NO_COLOR")
        self._colours = {
            name: _TOOL_COLOURS[i % len(_TOOL_COLOURS)] for i, name in enumerate(tool_names)
        }
        self._step = 0

    def _paint(self, text: str, colour: str) -> str:
        return f"{colour}{text}{_RESET}" if self._colour else text

    def _write(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    def start(self) -> None:
        """The run began."""
        self._write("\n" + self._paint("> Entering new AgentExecutor chain...", _BOLD))

    def actions(self, actions: list[AgentAction]) -> None:
        """The agent planned these tool calls."""
        self._step += 1
        lines = [self._paint(f"Step {self._step}", _BOLD)]
        shown_logs: set[str] = set()
        for action in actions:
            log = action.log.strip()
            if log and log not in shown_logs:
                shown_logs.add(log)
                lines.append(_indent(log))
            colour = self._colours.get(action.tool, _RED)
            lines.append("  -> " + self._paint(f"{action.tool}({action.tool_input!r})", colour))
        self._write("\n".join(lines))

    def steps(self, steps: list[AgentStep]) -> None:
        """These observations came back (a parse error's step has no planned action)."""
        lines = []
        for step in steps:
            tool = step.action.tool
            if tool == "_Exception":
                self._step += 1
                lines.append(self._paint(f"Step {self._step}: unparsable reply", _RED))
                lines.append(_indent(step.action.log.strip()))
            colour = self._colours.get(tool, _RED)
            text = observation_text(step.observation)
            lines.append("  <- " + self._paint(f"{tool}: {text}", colour))
        self._write("\n".join(lines))

    def stopped(self) -> None:
        """A limit ended the run."""
        self._write(self._paint("Stopped: iteration or time limit reached.", _RED))

    def finish(self, finish: AgentFinish) -> None:
        """The run ended with this answer."""
        answer = finish.return_values.get("output", finish.return_values)
        self._write(self._paint(f"Final answer: {observation_text(answer)}", _GREEN))
        self._write(self._paint("> Finished chain.", _BOLD))


def _indent(text: str) -> str:
    return "\n".join("     " + line for line in text.splitlines())
