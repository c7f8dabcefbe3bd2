"""`StdOutCallbackHandler`: LangChain's plain printer of chains, agent actions and observations.

It prints what LangChain's prints, in the same words and colours: ``> Entering new {name}
chain...`` and ``> Finished chain.`` (bold) around every chain run, an agent's action logs and
final log, and tool outputs. For a tree view of every run, use `ConsoleCallbackHandler`.
"""

from __future__ import annotations

import sys
from typing import Any

from leanchain.callbacks.base import BaseCallbackHandler

__all__ = ["StdOutCallbackHandler", "get_colored_text", "print_text"]

_COLORS = {"blue": "36;1", "yellow": "33;1", "pink": "38;5;200", "green": "32;1", "red": "31;1"}


def get_colored_text(text: str, color: str) -> str:
    """`text` in one of LangChain's colours (blue, yellow, pink, green, red).

    Raises:
        KeyError: an unknown colour.
    """
    return f"\x1b[{_COLORS[color]}m\x1b[1;3m{text}\x1b[0m"


def print_text(text: str, color: str | None = None, end: str = "") -> None:
    """Print `text` (coloured when `color` is given) to the current standard output."""
    sys.stdout.write((get_colored_text(text, color) if color else text) + end)


class StdOutCallbackHandler(BaseCallbackHandler):
    """Prints chain starts and ends, agent actions, tool outputs and text to standard output.

    Args:
        color: the colour of action logs, observations and text (``None``: plain).
    """

    def __init__(self, color: str | None = None) -> None:
        if color is not None and color not in _COLORS:
            raise ValueError(f"color must be one of {sorted(_COLORS)} or None, got {color!r}")
        self.color = color

    def on_chain_start(self, serialized: dict[str, Any] | None, inputs: Any, **kwargs: Any) -> None:
        """``> Entering new {name} chain...``"""
        name = kwargs.get("name") or (serialized or {}).get("name") or "<unknown>"
        print_text(f"\n\n\x1b[1m> Entering new {name} chain...\x1b[0m", end="\n")

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        """``> Finished chain.``"""
        print_text("\n\x1b[1m> Finished chain.\x1b[0m", end="\n")

    def on_agent_action(self, action: Any, color: str | None = None, **kwargs: Any) -> None:
        """The action's log."""
        print_text(str(getattr(action, "log", action)), color=color or self.color)

    def on_tool_end(
        self,
        output: Any,
        color: str | None = None,
        observation_prefix: str | None = None,
        llm_prefix: str | None = None,
        **kwargs: Any,
    ) -> None:
        """The tool's output, between the prefixes when they are given."""
        if observation_prefix is not None:
            print_text(f"\n{observation_prefix}")
        print_text(str(output), color=color or self.color)
        if llm_prefix is not None:
            print_text(f"\n{llm_prefix}")

    def on_text(self, text: str, color: str | None = None, end: str = "", **kwargs: Any) -> None:
        """Free text, as given."""
        print_text(text, color=color or self.color, end=end)

    def on_agent_finish(self, finish: Any, color: str | None = None, **kwargs: Any) -> None:
        """The finish's log, then a newline."""
        print_text(str(getattr(finish, "log", finish)), color=color or self.color, end="\n")
