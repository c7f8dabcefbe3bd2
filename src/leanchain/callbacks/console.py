"""`ConsoleCallbackHandler`: the run tree as it happens, one indented line per event.

Each run prints a start line (``>``) and an end line (``<``, or ``x`` for an error) indented
by its depth in the run tree, with its kind (chain, prompt, chat_model, parser, tool) and
name, the input and output shortened to one line, the time it took and, for chat models,
the tokens used. Agent decisions print as ``->`` lines inside the agent's run. Colours are
ANSI escapes, on by default only for a terminal and never when ``NO_COLOR`` is set
(https://no-color.org); ``color=True``/``False`` decides outright.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, TextIO
from uuid import UUID

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


def _colour_default(stream: TextIO | None) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream if stream is not None else sys.stdout, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def _duration(seconds: float) -> str:
    if seconds < 1.0:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


def _message_text(message: Any) -> str:
    """``role: 'text'``, followed by the tool calls the message makes."""
    kind = str(getattr(message, "type", type(message).__name__))
    if kind.endswith("MessageChunk"):
        kind = kind[: -len("MessageChunk")].lower()
    text = getattr(message, "text", None)
    if not isinstance(text, str):
        text = str(message.content)
    calls = [f"{c.get('name')}({c.get('args')!r})" for c in getattr(message, "tool_calls", ())]
    said = [repr(text)] if text or not calls else []
    return f"{kind}: {' '.join(said + calls)}"


def _plain(value: Any) -> str:
    """One line saying what `value` is; messages and prompts as ``role: text``."""
    if isinstance(value, str):
        return repr(value)
    if hasattr(value, "to_messages"):
        value = value.to_messages()
    if hasattr(value, "content") and hasattr(value, "type"):
        return _message_text(value)
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        value = [m for batch in value for m in batch]
    if isinstance(value, list) and value and all(hasattr(v, "content") for v in value):
        return "[" + " | ".join(_message_text(m) for m in value) + "]"
    return repr(value)


def _usage(response: Any) -> str | None:
    """``"<in> in / <out> out"`` from a chat model's `LLMResult`, when the model said."""
    generations = getattr(response, "generations", None)
    if not generations or not generations[0]:
        return None
    usage = getattr(generations[0][0].message, "usage_metadata", None)
    if not usage:
        return None
    return f"{usage.get('input_tokens', 0)} in / {usage.get('output_tokens', 0)} out"


class _Run:
    __slots__ = ("depth", "kind", "name", "started")

    def __init__(self, depth: int, kind: str, name: str, started: float) -> None:
        self.depth = depth
        self.kind = kind
        self.name = name
        self.started = started


class ConsoleCallbackHandler(BaseCallbackHandler):
    """Prints every run as an indented, coloured tree to a stream (standard output by default).

    Args:
        stream: where to write; ``None`` means `sys.stdout` at the time of each line.
        color: ``True``/``False`` to force colours on or off; ``None`` colours a terminal
            unless the ``NO_COLOR`` environment variable is set.
        max_length: the longest an input or output may print before it is cut with ``...``.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        color: bool | None = None,
        *,
        max_length: int = 120,
    ) -> None:
        self.stream = stream
        self.color = _colour_default(stream) if color is None else color
        self.max_length = max_length
        self._runs: dict[UUID, _Run] = {}
        self._lock = threading.Lock()

    # -- writing ----------------------------------------------------------------------------

    def _paint(self, text: str, colour: str) -> str:
        return f"{colour}{text}{_RESET}" if self.color and colour else text

    def _short(self, value: Any) -> str:
        text = _plain(value).replace("\n", "\\n")
        limit = self.max_length
        return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."

    def _write(self, depth: int, text: str) -> None:
        out = self.stream if self.stream is not None else sys.stdout
        with self._lock:
            out.write("  " * depth + text + "\n")
            out.flush()

    def _label(self, run: _Run) -> str:
        return self._paint(f"{run.kind}:{run.name}", _KIND_COLOURS.get(run.kind, _BOLD))

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
        run = _Run(0 if parent is None else parent.depth + 1, kind, name, time.perf_counter())
        self._runs[run_id] = run
        text = f"> {self._label(run)}"
        if known:
            text += f"  input: {self._short(inputs)}"
        self._write(run.depth, text)

    def _end(self, run_id: UUID, output: Any, extra: str | None = None) -> None:
        run = self._runs.pop(run_id, None)
        if run is None:
            return
        took = self._paint(f"[{_duration(time.perf_counter() - run.started)}]", _DIM)
        parts = [f"< {self._label(run)}", took]
        if extra:
            parts.append(extra)
        parts.append(f"output: {self._short(output)}")
        self._write(run.depth, "  ".join(parts))

    def _error(self, run_id: UUID, error: BaseException) -> None:
        run = self._runs.pop(run_id, None)
        if run is None:
            return
        took = self._paint(f"[{_duration(time.perf_counter() - run.started)}]", _DIM)
        failure = self._paint(f"error: {type(error).__name__}: {error}", _RED)
        self._write(run.depth, f"x {self._label(run)}  {took}  {failure}")

    def _note(self, run_id: UUID, text: str, colour: str) -> None:
        run = self._runs.get(run_id)
        depth = 0 if run is None else run.depth + 1
        self._write(depth, self._paint(text, colour))

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
        usage = _usage(response)
        self._end(run_id, reply, None if usage is None else f"tokens: {usage}")

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
        """Print the tool call an agent decided on."""
        tool = getattr(action, "tool", "?")
        tool_input = self._short(getattr(action, "tool_input", None))
        self._note(run_id, f"-> action: {tool} {tool_input}", _GREEN)

    def on_agent_finish(
        self, finish: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Print an agent's final answer."""
        answer = self._short(getattr(finish, "return_values", finish))
        self._note(run_id, f"-> finish: {answer}", _GREEN)

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
