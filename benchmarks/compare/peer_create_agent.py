"""LangChain 1.x's side of the agent workloads: ``langchain.agents.create_agent`` (a LangGraph
graph), as LangChain's documentation writes agents today.

The scripted model is the same minimal `BaseChatModel` subclass as the classic LangChain column
(`lang.CycleChatModel`: langchain-core ships no fake chat model that binds tools); the SDK
workloads use langchain-openai's `ChatOpenAI`. LangChain is imported inside the factories, so
that this module loads where it is not installed; a factory then fails with ImportError.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Final

from benchmarks.compare.fake_server import API_KEY, MODEL, script_one_run, start_server
from benchmarks.compare.shared import AGENT_INPUT, AGENT_OUTPUT, TOOL_CALLING_SYSTEM
from benchmarks.compare.spec import (
    CONCURRENT_TIMEOUT,
    Call,
    Case,
    CaseFactory,
    Concurrent,
    Import,
    Settings,
)

__all__ = ["CASES", "IMPORT", "concurrent_agent"]

IMPORT: Final = (
    "from langchain.agents import create_agent\n"
    "from langchain_core.tools import tool\n"
    "from langchain_openai import ChatOpenAI\n"
    f"ChatOpenAI(model={MODEL!r}, api_key={API_KEY!r})\n"
)
"""The agent program's imports and its model object (langchain-openai imports the SDK)."""

_INPUT: Final = {"messages": [{"role": "user", "content": AGENT_INPUT}]}


def _agent(model: Any) -> Any:
    from langchain.agents import create_agent

    from benchmarks.compare.lang import ECHO

    return create_agent(model, tools=[ECHO], system_prompt=TOOL_CALLING_SYSTEM)


def _answer(state: dict[str, Any]) -> Any:
    return state["messages"][-1].content


def _scripted(settings: Settings) -> Case:
    from benchmarks.compare.lang import REPLIES, CycleChatModel
    from benchmarks.compare.shared import Cycle

    agent = _agent(CycleChatModel(script=Cycle(*REPLIES["tool_calling"])))
    return Call(lambda: _answer(agent.invoke(_INPUT)), AGENT_OUTPUT)


def _openai_model(base_url: str, timeout: float | None = None) -> Any:
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    return ChatOpenAI(model=MODEL, api_key=SecretStr(API_KEY), base_url=base_url, timeout=timeout)


def _openai_sync(settings: Settings) -> Case:
    server = start_server()
    agent = _agent(_openai_model(server.openai_base_url))

    def run() -> Any:
        script_one_run(server)
        return _answer(agent.invoke(_INPUT))

    return Call(run, AGENT_OUTPUT, server.stop)


def _openai_async(settings: Settings) -> Case:
    server = start_server()
    agent = _agent(_openai_model(server.openai_base_url))
    loop = asyncio.new_event_loop()

    async def run() -> Any:
        script_one_run(server)
        return _answer(await agent.ainvoke(_INPUT))

    def close() -> None:
        loop.run_until_complete(loop.shutdown_asyncgens())  # the model's pooled connections
        loop.close()
        server.stop()

    return Call(lambda: loop.run_until_complete(run()), AGENT_OUTPUT, close)


def concurrent_agent(base_url: str) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """The concurrent workload's agent: the graph's ``ainvoke``."""
    agent = _agent(_openai_model(base_url, CONCURRENT_TIMEOUT))

    async def run() -> Any:
        return _answer(await agent.ainvoke(_INPUT))

    async def close() -> None:
        return None

    return run, close


CASES: Final[dict[str, CaseFactory]] = {
    "import_agent_time": lambda _settings: Import(IMPORT),
    "import_agent_memory": lambda _settings: Import(IMPORT),
    "agent_tool_calling": _scripted,
    "agent_openai": _openai_sync,
    "agent_openai_async": _openai_async,
    "concurrent_time": lambda _settings: Concurrent("create_agent"),
    "concurrent_memory": lambda _settings: Concurrent("create_agent"),
}
"""Workload key → case factory (the agent workloads create_agent can do)."""
