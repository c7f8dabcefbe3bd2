"""Tool-using agents: what an agent decides (`AgentAction`, `AgentFinish`, `AgentStep`), the
`create_*_agent` factories that build agents, and `AgentExecutor`, which runs them."""

from __future__ import annotations

from leanchain.agents._json_chat import create_json_chat_agent
from leanchain.agents.executor import AgentExecutor
from leanchain.agents.factories import (
    create_openai_tools_agent,
    create_react_agent,
    create_structured_chat_agent,
    create_tool_calling_agent,
    create_xml_agent,
)
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
    "create_json_chat_agent",
    "create_openai_tools_agent",
    "create_react_agent",
    "create_structured_chat_agent",
    "create_tool_calling_agent",
    "create_xml_agent",
]
