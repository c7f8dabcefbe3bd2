"""`leanchain.agents`' face: `__all__` lists exactly its public names, and each one resolves."""

from __future__ import annotations

import types

import leanchain.agents

EXPECTED = [
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


def test_all_lists_the_public_names() -> None:
    assert sorted(leanchain.agents.__all__) == EXPECTED
    assert all(getattr(leanchain.agents, name) is not None for name in EXPECTED)


def test_every_public_non_module_name_is_in_all() -> None:
    public = {
        name
        for name, value in vars(leanchain.agents).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and name != "annotations"
    }
    assert public == set(EXPECTED)
