"""The shape of an agent's intermediate steps, as every formatter accepts them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeAlias

from leanchain.agents.schema import AgentAction, AgentStep

__all__ = ["Steps", "pairs"]

Steps: TypeAlias = Sequence[tuple[AgentAction, Any] | AgentStep]
"""``(action, observation)`` pairs as the executor keeps them, or `AgentStep` values."""


def pairs(steps: Steps) -> Iterator[tuple[AgentAction, Any]]:
    """The steps as ``(action, observation)`` pairs."""
    for step in steps:
        if isinstance(step, AgentStep):
            yield step.action, step.observation
        else:
            yield step
