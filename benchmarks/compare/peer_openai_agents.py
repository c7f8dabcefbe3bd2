"""The OpenAI Agents SDK's side of the agent workloads, written as its documentation writes them.

The scripted model is the SDK's own `agents.testing.ScriptedModel` (a fresh one per run, given
through ``RunConfig(model=...)``, since a script is consumed); the SDK workloads use its
`OpenAIChatCompletionsModel` over an `AsyncOpenAI` client (the fake server speaks Chat
Completions, not the Responses API the SDK uses by default). Tracing is off, as it would export
every run. The SDK is imported inside the factories, so that this module loads where it is not
installed; a factory then fails with ImportError.
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
    "from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool\n"
    "import openai\n"
    f"OpenAIChatCompletionsModel(model={MODEL!r}, "
    f"openai_client=openai.AsyncOpenAI(api_key={API_KEY!r}))\n"
)
"""The agent program's imports and its model object (the SDK imports openai itself)."""

MAX_TURNS: Final = ITERATIONS + 1
"""Room for the 10 model calls of a run (the SDK's default limit is 10 turns)."""


def _agent(model: Any | None) -> Any:
    from agents import Agent, function_tool, set_tracing_disabled

    set_tracing_disabled(True)
    if model is None:
        return Agent(
            name="bench", instructions=TOOL_CALLING_SYSTEM, tools=[function_tool(echo_text)]
        )
    return Agent(
        name="bench",
        instructions=TOOL_CALLING_SYSTEM,
        tools=[function_tool(echo_text)],
        model=model,
    )


def _scripted(settings: Settings) -> Case:
    from agents.testing import ScriptedModel, assistant_message, function_call

    from agents import RunConfig, Runner

    steps = [[function_call("echo_text", TOOL_CALL_ARGS, call_id="call_1")]] * (ITERATIONS - 1)
    steps.append([assistant_message(AGENT_OUTPUT)])
    agent = _agent(None)

    def run() -> Any:
        config = RunConfig(model=ScriptedModel(steps))
        return Runner.run_sync(
            agent, AGENT_INPUT, run_config=config, max_turns=MAX_TURNS
        ).final_output

    return Call(run, AGENT_OUTPUT)


def _openai_model(client: Any) -> Any:
    from agents import OpenAIChatCompletionsModel

    return OpenAIChatCompletionsModel(model=MODEL, openai_client=client)


def _openai_sync(settings: Settings) -> Case:
    import openai

    from agents import Runner

    server = start_server()
    client = openai.AsyncOpenAI(base_url=server.openai_base_url, api_key=API_KEY)
    agent = _agent(_openai_model(client))

    def run() -> Any:
        script_one_run(server)
        return Runner.run_sync(agent, AGENT_INPUT, max_turns=MAX_TURNS).final_output

    return Call(run, AGENT_OUTPUT, server.stop)


def _openai_async(settings: Settings) -> Case:
    import openai

    from agents import Runner

    server = start_server()
    loop = asyncio.new_event_loop()
    client = openai.AsyncOpenAI(base_url=server.openai_base_url, api_key=API_KEY)
    agent = _agent(_openai_model(client))

    async def run() -> Any:
        script_one_run(server)
        return (await Runner.run(agent, AGENT_INPUT, max_turns=MAX_TURNS)).final_output

    def close() -> None:
        loop.run_until_complete(client.close())
        loop.close()
        server.stop()

    return Call(lambda: loop.run_until_complete(run()), AGENT_OUTPUT, close)


def concurrent_agent(base_url: str) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """The concurrent workload's agent: ``Runner.run`` over one `AsyncOpenAI` client."""
    import openai

    from agents import Runner

    client = openai.AsyncOpenAI(base_url=base_url, api_key=API_KEY, timeout=CONCURRENT_TIMEOUT)
    agent = _agent(_openai_model(client))

    async def run() -> Any:
        return (await Runner.run(agent, AGENT_INPUT, max_turns=MAX_TURNS)).final_output

    return run, client.close


CASES: Final[dict[str, CaseFactory]] = {
    "import_agent_time": lambda _settings: Import(IMPORT),
    "import_agent_memory": lambda _settings: Import(IMPORT),
    "agent_tool_calling": _scripted,
    "agent_openai": _openai_sync,
    "agent_openai_async": _openai_async,
    "concurrent_time": lambda _settings: Concurrent("openai_agents"),
    "concurrent_memory": lambda _settings: Concurrent("openai_agents"),
}
"""Workload key → case factory (the agent workloads the SDK can do)."""
