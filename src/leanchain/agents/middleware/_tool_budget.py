"""A tool policy's failure budget: the failed calls of each tool in one run, and the tools it
switched off, as plain data in the run's state.

The state is ``{"failures": {tool: count}, "disabled": [tool, ...], "journal": [tool, ...]}``.
A call's wrapper runs on one of the step's worker threads, so it writes only by appending the
failed tool's name to ``"journal"`` (one ``list.append``, atomic; the state itself is made with
``dict.setdefault``, atomic too); `FailureBudget.fold`, called on the loop's thread once the
step's calls are done, moves the journal into the counts and switches tools off. A call that
starts while the journal holds failures sees them: a step's later calls of a tool are answered
once the budget is spent, even before the fold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from leanchain.agents.schema import AgentStep

if TYPE_CHECKING:
    from leanchain.agents.middleware._base import ToolCallRequest
    from leanchain.tools import BaseTool

__all__ = ["FailureBudget"]


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


class FailureBudget:
    """Switch a tool off after `limit` failed calls in a run (the state is the run's)."""

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def record(self, states: dict[str, Any], key: str, name: str) -> None:
        """Note a failed call of `name` in the run's `states` under `key` (any thread)."""
        state = states.get(key)
        if state is None:  # two first failures at once share the one state that is kept
            state = states.setdefault(key, {"failures": {}, "disabled": [], "journal": []})
        state["journal"].append(name)

    def fold(self, state: dict[str, Any] | None, iteration: int) -> list[dict[str, Any]]:
        """Count the step's failed calls; the events of the tools it switched off."""
        if state is None or not state["journal"]:
            return []
        journal: list[str] = state["journal"]
        done = len(journal)
        names = journal[:done]
        del journal[:done]  # a call abandoned at the run's deadline may still append: it stays
        failures: dict[str, int] = state["failures"]
        disabled: list[str] = state["disabled"]
        events: list[dict[str, Any]] = []
        for name in names:
            failures[name] = count = failures.get(name, 0) + 1
            if count >= self.limit and name not in disabled:
                disabled.append(name)
                message = (
                    f"{name!r} failed {_times(count)} in this run (disable_after={self.limit}): "
                    "it is switched off and no longer offered to the model"
                )
                events.append(
                    {
                        "action": "disable",
                        "tool": name,
                        "iteration": iteration,
                        "failures": count,
                        "message": message,
                    }
                )
        return events

    def unavailable(
        self, state: dict[str, Any] | None, request: ToolCallRequest
    ) -> tuple[AgentStep, dict[str, Any]] | None:
        """The answer to a call of a switched-off tool, and its event (``None``: it may run)."""
        if state is None:
            return None
        name = request.action.tool
        if state["failures"].get(name, 0) + state["journal"].count(name) < self.limit:
            return None
        observation = (
            f"Tool {name!r} is unavailable: it failed {_times(self.limit)} in this run and was "
            "switched off. Do not call it again; use another tool or answer without it."
        )
        event = {
            "action": "unavailable",
            "tool": name,
            "iteration": request.iteration,
            "message": f"{name!r} is switched off in this run; the call did not run",
        }
        return AgentStep(request.action, observation), event

    def offered(
        self, state: dict[str, Any] | None, tools: Sequence[BaseTool]
    ) -> list[BaseTool] | None:
        """`tools` less the switched-off ones (``None``: none of them is off)."""
        if state is None or not state["disabled"]:
            return None
        disabled = state["disabled"]
        kept = [tool for tool in tools if tool.name not in disabled]
        return None if len(kept) == len(tools) else kept
