"""Tool-using agents: what an agent decides (`AgentAction`, `AgentFinish`, `AgentStep`), the
`create_*_agent` factories that build agents, and `AgentExecutor`, which runs them.

The names are imported on first use (module ``__getattr__``), so ``import leanchain.agents``,
or importing one of its submodules, does not import the executor, the factories and the
parsers that a program may never touch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leanchain._lazy import lazy_face as _lazy_face

_EXPORTS: dict[str, str] = {
    "AgentAction": "leanchain.agents.schema",
    "AgentActionMessageLog": "leanchain.agents.schema",
    "AgentExecutor": "leanchain.agents.executor",
    "AgentFinish": "leanchain.agents.schema",
    "AgentMiddleware": "leanchain.agents.middleware",
    "AgentStep": "leanchain.agents.schema",
    "BaseCheckpointer": "leanchain.agents._checkpoint",
    "ClearToolResults": "leanchain.agents.middleware",
    "Decision": "leanchain.agents.middleware",
    "HumanApproval": "leanchain.agents.middleware",
    "InMemoryCheckpointer": "leanchain.agents._checkpoint",
    "LoopGuard": "leanchain.agents.middleware",
    "Resume": "leanchain.agents._resume",
    "RunState": "leanchain.agents._state",
    "SqliteCheckpointer": "leanchain.agents._checkpoint",
    "Summarization": "leanchain.agents.middleware",
    "ToolAgentAction": "leanchain.agents.schema",
    "ToolPolicy": "leanchain.agents.middleware",
    "ToolSelector": "leanchain.agents.middleware",
    "UsageLimits": "leanchain.agents.middleware",
    "create_agent": "leanchain.agents._create_agent",
    "create_json_chat_agent": "leanchain.agents._json_chat",
    "create_openai_functions_agent": "leanchain.agents.factories",
    "create_openai_tools_agent": "leanchain.agents.factories",
    "create_react_agent": "leanchain.agents.factories",
    "create_structured_chat_agent": "leanchain.agents.factories",
    "create_tool_calling_agent": "leanchain.agents.factories",
    "create_xml_agent": "leanchain.agents.factories",
}

__all__ = [
    "AgentAction",
    "AgentActionMessageLog",
    "AgentExecutor",
    "AgentFinish",
    "AgentMiddleware",
    "AgentStep",
    "BaseCheckpointer",
    "ClearToolResults",
    "Decision",
    "HumanApproval",
    "InMemoryCheckpointer",
    "LoopGuard",
    "Resume",
    "RunState",
    "SqliteCheckpointer",
    "Summarization",
    "ToolAgentAction",
    "ToolPolicy",
    "ToolSelector",
    "UsageLimits",
    "create_agent",
    "create_json_chat_agent",
    "create_openai_functions_agent",
    "create_openai_tools_agent",
    "create_react_agent",
    "create_structured_chat_agent",
    "create_tool_calling_agent",
    "create_xml_agent",
]


__getattr__, __dir__ = _lazy_face(__name__, _EXPORTS)


if TYPE_CHECKING:
    from leanchain.agents._checkpoint import (
        BaseCheckpointer,
        InMemoryCheckpointer,
        SqliteCheckpointer,
    )
    from leanchain.agents._create_agent import create_agent
    from leanchain.agents._json_chat import create_json_chat_agent
    from leanchain.agents._resume import Resume
    from leanchain.agents._state import RunState
    from leanchain.agents.executor import AgentExecutor
    from leanchain.agents.factories import (
        create_openai_functions_agent,
        create_openai_tools_agent,
        create_react_agent,
        create_structured_chat_agent,
        create_tool_calling_agent,
        create_xml_agent,
    )
    from leanchain.agents.middleware import (
        AgentMiddleware,
        ClearToolResults,
        Decision,
        HumanApproval,
        LoopGuard,
        Summarization,
        ToolPolicy,
        ToolSelector,
        UsageLimits,
    )
    from leanchain.agents.schema import (
        AgentAction,
        AgentActionMessageLog,
        AgentFinish,
        AgentStep,
        ToolAgentAction,
    )
