"""pydantic-ai's side of the agent workloads, written as its documentation writes agents.

The scripted model is pydantic-ai's own `FunctionModel` (a function that answers each call);
the SDK workloads use its `OpenAIChatModel` over an `AsyncOpenAI` client pointed at the fake
server. pydantic-ai is imported inside the factories, so that this module (and its workload
keys) loads where pydantic-ai is not installed; a factory then fails with ImportError.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Final

from benchmarks.compare.fake_server import API_KEY, MODEL, script_one_run, start_server
from benchmarks.compare.shared import (
    AGENT_INPUT,
    AGENT_OUTPUT,
    ITERATIONS,
    TOOL_CALL_ARGS,
    TOOL_CALLING_SYSTEM,
    echo_text,
)
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
    "from pydantic_ai import Agent\n"
    "from pydantic_ai.models.openai import OpenAIChatModel\n"
    "from pydantic_ai.providers.openai import OpenAIProvider\n"
    f"OpenAIChatModel({MODEL!r}, provider=OpenAIProvider(api_key={API_KEY!r}))\n"
)
"""The agent program's imports and its model object (the openai SDK comes with them)."""


def _agent(model: Any) -> Any:
    from pydantic_ai import Agent

    return Agent(model, instructions=TOOL_CALLING_SYSTEM, tools=[echo_text])


def _scripted_model() -> Any:
    """A `FunctionModel` that answers 9 tool calls, then the answer, round and round."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    calls = [0]

    def answer(messages: list[Any], info: AgentInfo) -> ModelResponse:
        calls[0] += 1
        if calls[0] % ITERATIONS:
            return ModelResponse(
                parts=[ToolCallPart("echo_text", TOOL_CALL_ARGS, tool_call_id="call_1")]
            )
        return ModelResponse(parts=[TextPart(AGENT_OUTPUT)])

    return FunctionModel(answer)


def _scripted(settings: Settings) -> Case:
    agent = _agent(_scripted_model())
    return Call(lambda: agent.run_sync(AGENT_INPUT).output, AGENT_OUTPUT)


def _openai_model(client: Any) -> Any:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    return OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=client))


def _openai_sync(settings: Settings) -> Case:
    import openai

    server = start_server()
    client = openai.AsyncOpenAI(base_url=server.openai_base_url, api_key=API_KEY)
    agent = _agent(_openai_model(client))

    def run() -> Any:
        script_one_run(server)
        return agent.run_sync(AGENT_INPUT).output

    return Call(run, AGENT_OUTPUT, server.stop)


def _openai_async(settings: Settings) -> Case:
    import openai

    server = start_server()
    loop = asyncio.new_event_loop()
    client = openai.AsyncOpenAI(base_url=server.openai_base_url, api_key=API_KEY)
    agent = _agent(_openai_model(client))

    async def run() -> Any:
        script_one_run(server)
        return (await agent.run(AGENT_INPUT)).output

    def close() -> None:
        loop.run_until_complete(client.close())
        loop.close()
        server.stop()

    return Call(lambda: loop.run_until_complete(run()), AGENT_OUTPUT, close)


def concurrent_agent(base_url: str) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """The concurrent workload's agent: ``Agent.run`` over one `AsyncOpenAI` client."""
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key=API_KEY, timeout=CONCURRENT_TIMEOUT)
    agent = _agent(_openai_model(client))

    async def run() -> Any:
        return (await agent.run(AGENT_INPUT)).output

    return run, client.close


CASES: Final[dict[str, CaseFactory]] = {
    "import_agent_time": lambda _settings: Import(IMPORT),
    "import_agent_memory": lambda _settings: Import(IMPORT),
    "agent_tool_calling": _scripted,
    "agent_openai": _openai_sync,
    "agent_openai_async": _openai_async,
    "concurrent_time": lambda _settings: Concurrent("pydantic_ai"),
    "concurrent_memory": lambda _settings: Concurrent("pydantic_ai"),
}
"""Workload key → case factory (the agent workloads pydantic-ai can do)."""
