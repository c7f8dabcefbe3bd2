"""The demo's readable trace of an agent run, drawn from `AgentExecutor.stream` chunks.

Each step shows what the model said (its raw text, so the agent type's format is visible:
tool calls, ReAct lines, a JSON blob, XML tags), the tool calls it asked for and the
observations that came back; the run ends with the final answer. Colours are used only on a
terminal and never when ``NO_COLOR`` is set.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Final, TextIO

from leanchain.agents import AgentAction, AgentStep, ToolAgentAction
from leanchain.agents.schema import observation_text

__all__ = ["Trace", "format_call", "use_colour"]

_RESET: Final = "\x1b[0m"
_BOLD: Final = "\x1b[1m"
_DIM: Final = "\x1b[2m"
_CYAN: Final = "\x1b[36m"
_YELLOW: Final = "\x1b[33m"
_GREEN: Final = "\x1b[32m"
_RED: Final = "\x1b[31m"
MAX_SHOWN: Final = 500


def use_colour(out: TextIO) -> bool:
    """Whether to colour output to `out`: a terminal, and ``NO_COLOR`` not set."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty())


def _shorten(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + f"... ({len(text)} chars)"


def format_call(tool: str, tool_input: Any) -> str:
    """A tool call as it reads in the trace: ``name(key='value', ...)`` or ``name('text')``."""
    if isinstance(tool_input, Mapping):
        arguments = ", ".join(f"{key}={value!r}" for key, value in tool_input.items())
    else:
        arguments = repr(tool_input)
    return f"{tool}({arguments})"


class Trace:
    """Writes one agent run to `out` as the executor's stream chunks arrive."""

    __slots__ = ("_colour", "_in_step", "_out", "_shown", "_step")

    def __init__(self, out: TextIO, *, colour: bool = False) -> None:
        self._out = out
        self._colour = colour
        self._step = 0
        self._in_step = False
        self._shown: set[int] = set()

    def _paint(self, text: str, colour: str) -> str:
        return f"{colour}{text}{_RESET}" if self._colour else text

    def _write(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    def _model_text(self, text: str) -> None:
        for line in text.strip().splitlines():
            self._write(self._paint(f"  | {line}", _DIM))

    def header(self, title: str, question: str) -> None:
        """The start of one agent's run."""
        self._write(self._paint(f"=== {title} ===", _BOLD))
        self._write(f"Question: {question}")

    def chunk(self, chunk: Mapping[str, Any]) -> None:
        """Show one chunk of `AgentExecutor.stream`."""
        if "actions" in chunk:
            for action in chunk["actions"]:
                self._action(action)
        elif "steps" in chunk:
            for step in chunk["steps"]:
                self._observation(step)
        elif "output" in chunk:
            self._in_step = False
            answer = observation_text(chunk["output"])
            self._write(self._paint(f"Final answer: {answer}", _GREEN))

    def _new_step(self) -> None:
        self._step += 1
        self._in_step = True
        self._write(self._paint(f"Step {self._step}", _BOLD))

    def _action(self, action: AgentAction) -> None:
        if not self._in_step:
            self._new_step()
        if isinstance(action, ToolAgentAction):
            # The several calls of one native tool-calling reply share its message.
            for message in action.message_log:
                if id(message) not in self._shown:
                    self._shown.add(id(message))
                    self._model_text(message.text)
        else:
            self._model_text(action.log)
        self._write(self._paint(f"  -> {format_call(action.tool, action.tool_input)}", _CYAN))

    def _observation(self, step: AgentStep) -> None:
        text = _shorten(observation_text(step.observation))
        if step.action.tool == "_Exception":
            self._new_step()
            self._model_text(step.action.log)
            self._write(
                self._paint(f"  !! the reply did not parse; the agent is told: {text}", _RED)
            )
        else:
            self._write(self._paint(f"  <- {step.action.tool}: {text}", _YELLOW))
        self._in_step = False
