"""Tool-using agents: what an agent decides (`AgentAction`, `AgentFinish`, `AgentStep`), the
`create_*_agent` factories that build agents, and `AgentExecutor`, which runs them."""

from __future__ import annotations

from leanchain.agents.executor import AgentExecutor
from leanchain.agents.schema import (
    AgentAction,
    AgentActionMessageLog,
    AgentFinish,
    AgentStep,
    ToolAgentAction,
)

__all__ = [
    "AgentAction",
    "AgentActionMessageLog",
    "AgentExecutor",
    "AgentFinish",
    "AgentStep",
    "ToolAgentAction",
]
