"""A recorded multi-step agent for the cassette report tests (no tests here)."""

from __future__ import annotations

import os
from typing import Any, Final

from report_support import INJECTED, MODEL, usage

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import ScriptedChatModel
from leanchain.testing import CassetteMode, cassette
from leanchain.tools import BaseTool, tool

QUESTION: Final = "Compare Paris and Rome, then read the page."
ANSWER: Final = "Both are capitals; the page says: " + INJECTED
"""The final reply: it holds a script, which the page must show as text."""
SYSTEM: Final = (
    TOOL_CALLING_PROMPT.invoke({"input": QUESTION, "agent_scratchpad": []}).to_messages()[0].text
)


@tool
def lookup(city: str) -> str:
    """Facts about a city."""
    return f"{city}: a capital"


@tool
def fetch_page(url: str) -> str:
    """The text of a web page."""
    return INJECTED


TOOLS: Final[list[BaseTool]] = [lookup, fetch_page]


def script() -> list[Any]:
    """Three model calls: two lookups at once, a page fetch, the answer."""
    return [
        ScriptedChatModel.tool_calls(
            ("lookup", {"city": "Paris"}),
            ("lookup", {"city": "Rome"}),
            content="I look both up.",
            usage=usage(120, 30),
        ),
        ScriptedChatModel.tool_call("fetch_page", {"url": "page"}, usage=usage(200, 12)),
        ScriptedChatModel.reply(ANSWER, usage=usage(300, 8)),
    ]


def executor(items: list[Any] | None = None) -> AgentExecutor:
    """The tool-calling agent over a scripted model named like a priced one."""
    model = ScriptedChatModel(script() if items is None else items, name=MODEL)
    agent = create_tool_calling_agent(model, TOOLS, TOOL_CALLING_PROMPT)
    return AgentExecutor(agent=agent, tools=TOOLS)


def run(
    path: str | os.PathLike[str],
    mode: CassetteMode = "record",
    *,
    report: str | os.PathLike[str] | None = None,
    stream: bool = False,
) -> Any:
    """The agent run inside a cassette; its final output."""
    with cassette(path, mode, report=report):
        if stream:
            return [chunk for chunk in executor().stream({"input": QUESTION})][-1]["output"]
        return executor().invoke({"input": QUESTION})["output"]
