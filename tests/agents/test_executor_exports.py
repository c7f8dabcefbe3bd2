"""`leanchain.agents`' face: `__all__` lists exactly its public names, and each one resolves."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

import leanchain.agents

EXPECTED = [
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


def test_all_lists_the_public_names() -> None:
    assert sorted(leanchain.agents.__all__) == EXPECTED
    assert all(getattr(leanchain.agents, name) is not None for name in EXPECTED)


def test_every_public_non_module_name_is_in_all() -> None:
    for name in EXPECTED:
        getattr(leanchain.agents, name)  # the names are imported on first use
    public = {
        name
        for name, value in vars(leanchain.agents).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and name not in ("annotations", "import_module", "TYPE_CHECKING", "Any")
    }
    assert public == set(EXPECTED)
    assert sorted(n for n in dir(leanchain.agents) if n in EXPECTED) == EXPECTED


def test_unknown_names_raise_attribute_error() -> None:
    message = r"^module 'leanchain.agents' has no attribute 'NoSuchThing'$"
    with pytest.raises(AttributeError, match=message):
        leanchain.agents.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018


def test_importing_the_package_imports_none_of_its_modules() -> None:
    code = (
        "import sys, leanchain, leanchain.agents\n"
        "print(sorted(m for m in sys.modules if m.startswith('leanchain.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # The face, and the module of the lazy faces themselves.
    assert out.stdout.strip() == "['leanchain._lazy', 'leanchain.agents']"
