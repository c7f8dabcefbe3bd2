"""`ConsoleCallbackHandler`: the run tree as it happens, one indented line per event.

Each run prints a start line (``>``) and an end line (``<``, or ``x`` for an error) indented
by its depth in the run tree, with its kind (chain, prompt, chat_model, parser, tool) and
name, the input and output shortened to one line, the time it took and, for chat models,
the tokens used. Colours are ANSI escapes, on by default only for a terminal and never when
``NO_COLOR`` is set (https://no-color.org); ``color=True``/``False`` decides outright.

Inside an agent run (``agent:``) the trace shows what a person follows: the agent's thoughts
(``thought:``, the text the model wrote before its tool call or answer), its decisions
(``-> action:``, ``-> finish:``), each tool run (its input and its output, the observation)
and a nested agent the same way. The runs each planning step is made of (scratchpad, prompt,
model, parser) and the runs inside a tool are left out, except a planning step's error; the
tokens of the models left out are added up on the agent's end line. ``nested=True`` prints
every run.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, TextIO
from uuid import UUID

from leanchain.callbacks._console_text import duration, plain, thought, tokens, usage
from leanchain.callbacks.base import BaseCallbackHandler

__all__ = ["ConsoleCallbackHandler"]

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_RED = "\x1b[31m"
_GREEN = "\x1b[32m"
_KIND_COLOURS = {
    "chain": _BOLD,
    "prompt": "\x1b[34m",
    "chat_model": "\x1b[35m",
    "parser": "\x1b[33m",
    "tool": "\x1b[36m",
}
_SHOWN_IN_AGENTS = frozenset({"agent", "tool"})
"""The run kinds printed inside an agent run unless ``nested=True``."""


def _colour_default(stream: TextIO | None) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream if stream is not None else sys.stdout, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


class _Run:
    """What the handler keeps about a run between its start and its end."""

    __slots__ = (
        "anchor",
        "depth",
        "kind",
        "name",
        "quiet",
        "started",
        "thought",
        "tokens",
        "top",
    )

    def __init__(
        self,
        depth: int,
        kind: str,
        name: str,
        *,
        quiet: bool = False,
        anchor: _Run | None = None,
        top: bool = False,
    ) -> None:
        self.depth = depth  # where its lines print (a hidden run: where they would)
        self.kind = kind
        self.name = name
        self.started = time.perf_counter()
        self.quiet = quiet  # inside an agent: below it only agent and tool runs print
        self.anchor = anchor  # a hidden run's nearest printed ancestor; None when printed
        self.top = top  # hidden, under a printed run
        self.tokens: tuple[int, int] | None = None  # of the hidden model runs below it
        self.thought: Any = None  # the message last printed as a thought (parallel calls)

    @property
    def visible(self) -> bool:
        return self.anchor is None

    @property
    def child_depth(self) -> int:
        return self.depth + 1 if self.anchor is None else self.depth


class ConsoleCallbackHandler(BaseCallbackHandler):
    """Prints runs as an indented, coloured tree to a stream (standard output by default).

    Inside an agent run it prints the agent's thoughts, decisions, tool runs and answer, and
    leaves out the runs each step is made of (see the module docstring).

    Args:
        stream: where to write; ``None`` means `sys.stdout` at the time of each line.
        color: ``True``/``False`` to force colours on or off; ``None`` colours a terminal
            unless the ``NO_COLOR`` environment variable is set.
        max_length: the longest an input, output or thought may print before it is cut with
            ``...``.
        nested: also print the runs inside an agent's steps and tools (scratchpad, prompt,
            model, parser, a tool's own chain), each with its own line and tokens.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        color: bool | None = None,
        *,
        max_length: int = 120,
        nested: bool = False,
    ) -> None:
        self.stream = stream
        self.color = _colour_default(stream) if color is None else color
        self.max_length = max_length
        self.nested = nested
        self._runs: dict[UUID, _Run] = {}
        self._lock = threading.Lock()

    # -- writing ----------------------------------------------------------------------------

    def _paint(self, text: str, colour: str) -> str:
        return f"{colour}{text}{_RESET}" if self.color and colour else text

    def _cut(self, text: str) -> str:
        text = text.replace("\n", "\\n")
        limit = self.max_length
        return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."

    def _short(self, value: Any) -> str:
        return self._cut(plain(value))

    def _write(self, depth: int, text: str) -> None:
        out = self.stream if self.stream is not None else sys.stdout
        with self._lock:
            out.write("  " * depth + text + "\n")
            out.flush()

    def _label(self, run: _Run) -> str:
        return self._paint(f"{run.kind}:{run.name}", _KIND_COLOURS.get(run.kind, _BOLD))

    def _took(self, run: _Run) -> str:
        return self._paint(f"[{duration(time.perf_counter() - run.started)}]", _DIM)

    def _start(
        self,
        run_id: UUID,
        parent_run_id: UUID | None,
        kind: str,
        name: str,
        inputs: Any,
        known: bool = True,
    ) -> None:
        parent = self._runs.get(parent_run_id) if parent_run_id is not None else None
        quiet = kind == "agent" and not self.nested
        if parent is None:
            run = _Run(0, kind, name, quiet=quiet)
        elif parent.visible and (not parent.quiet or kind in _SHOWN_IN_AGENTS):
            run = _Run(parent.child_depth, kind, name, quiet=quiet or parent.quiet)
        else:
            anchor = parent.anchor or parent
            run = _Run(parent.child_depth, kind, name, anchor=anchor, top=parent.visible)
        self._runs[run_id] = run
        if run.visible:
            text = f"> {self._label(run)}"
            if known:
                text += f"  input: {self._short(inputs)}"
            self._write(run.depth, text)

    def _end(self, run_id: UUID, output: Any, used: tuple[int, int] | None = None) -> None:
        run = self._runs.pop(run_id, None)
        if run is None:
            return
        if run.anchor is not None:
            if used is not None:
                with self._lock:
                    had = run.anchor.tokens or (0, 0)
                    run.anchor.tokens = (had[0] + used[0], had[1] + used[1])
            return
        parts = [f"< {self._label(run)}", self._took(run)]
        if used is None:
            used = run.tokens
        if used is not None:
            parts.append(f"tokens: {usage(used)}")
        parts.append(f"output: {self._short(output)}")
        self._write(run.depth, "  ".join(parts))

    def _error(self, run_id: UUID, error: BaseException) -> None:
        run = self._runs.pop(run_id, None)
        if run is None:
            return
        # Of a hidden part of the tree only its top run's error prints: a planning step
        # that failed (a reply that did not parse) shows, the model run inside it does not.
        if run.anchor is not None and not run.top:
            return
        failure = self._paint(f"error: {type(error).__name__}: {error}", _RED)
        self._write(run.depth, f"x {self._label(run)}  {self._took(run)}  {failure}")

    def _note(self, run_id: UUID, text: str, colour: str) -> None:
        run = self._runs.get(run_id)
        depth = 0 if run is None else run.child_depth
        self._write(depth, self._paint(text, colour))

    def _thought(self, run_id: UUID, decision: Any) -> None:
        """Print what the model wrote before `decision`, once per reply."""
        text = thought(decision)
        if not text:
            return
        run = self._runs.get(run_id)
        messages = getattr(decision, "message_log", None)
        if run is not None and messages:
            with self._lock:
                if run.thought is messages[-1]:
                    return  # another call of the same reply
                run.thought = messages[-1]
        self._note(run_id, f"thought: {self._cut(text)}", _DIM)

    # -- the handler protocol ---------------------------------------------------------------

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Print the start of a chain, prompt or parser run."""
        kind = kwargs.get("run_type") or "chain"
        name = kwargs.get("name") or (serialized or {}).get("name") or "chain"
        # A streaming run starts before its input is known ("").
        known = not (type(inputs) is str and not inputs)
        self._start(run_id, parent_run_id, kind, str(name), inputs, known)

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Print the end of a chain run."""
        self._end(run_id, outputs)

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Print a chain's error."""
        self._error(run_id, error)

    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Print the start of a chat model call with its messages."""
        name = kwargs.get("name") or (serialized or {}).get("name") or "chat_model"
        self._start(run_id, parent_run_id, "chat_model", str(name), messages)

    def on_llm_end(
        self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Print the reply and the tokens used."""
        generations = getattr(response, "generations", None)
        reply = generations[0][0].message if generations and generations[0] else response
        self._end(run_id, reply, tokens(response))

    def on_llm_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Print a chat model's error."""
        self._error(run_id, error)

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Print the start of a tool run with its arguments."""
        name = kwargs.get("name") or (serialized or {}).get("name") or "tool"
        self._start(
            run_id, parent_run_id, "tool", str(name), input_str if inputs is None else inputs
        )

    def on_tool_end(
        self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Print what a tool returned."""
        self._end(run_id, getattr(output, "content", output))

    def on_tool_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Print a tool's error."""
        self._error(run_id, error)

    def on_agent_action(
        self, action: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Print the agent's thought, then the tool call it decided on."""
        tool = getattr(action, "tool", "?")
        if tool != "_Exception":  # a parse error's log is the error, not a thought
            self._thought(run_id, action)
        tool_input = self._short(getattr(action, "tool_input", None))
        self._note(run_id, f"-> action: {tool} {tool_input}", _GREEN)

    def on_agent_finish(
        self, finish: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Print the agent's last thought, then its final answer."""
        values = getattr(finish, "return_values", finish)
        said = thought(finish)
        # A tool-calling agent's answer is its whole reply: no thought apart from it.
        if said and not (isinstance(values, dict) and said in map(str, values.values())):
            self._note(run_id, f"thought: {self._cut(said)}", _DIM)
        self._note(run_id, f"-> finish: {self._short(values)}", _GREEN)

    def on_retry(
        self,
        retry_state: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Print that a failed attempt is retried."""
        attempt = kwargs.get("attempt")
        what = f"{type(retry_state).__name__}: {retry_state}"
        label = "retry" if attempt is None else f"retry after attempt {attempt}"
        self._note(run_id, f"~ {label}: {what}", _RED)

    def on_text(
        self, text: str, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Print free text inside its run."""
        self._note(run_id, text, "")

    def on_custom_event(
        self,
        name: str,
        data: Any,
        *,
        run_id: UUID,
        tags: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Print a user event inside the run that sent it."""
        self._note(run_id, f"* {name}: {self._short(data)}", _DIM)
