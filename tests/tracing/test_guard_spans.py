"""Middleware activity reaches OpenTelemetry: a guard's warning and stop are span events on the
agent's span (with their data when content is captured)."""

from __future__ import annotations

import json

import pytest
from tracing_support import named, pipeline

from leanchain.agents import AgentExecutor, LoopGuard, UsageLimits, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import ScriptedChatModel
from leanchain.tools import tool
from leanchain.tracing import OpenTelemetryCallbackHandler


@tool
def find(name: str) -> str:
    """Find a customer."""
    return "no match"


def _executor(middleware: list[object]) -> AgentExecutor:
    model = ScriptedChatModel([ScriptedChatModel.tool_call("find", {"name": "Ada"})] * 5)
    return AgentExecutor(
        agent=create_tool_calling_agent(model, [find], TOOL_CALLING_PROMPT),
        tools=[find],
        middleware=middleware,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_loop_guard_events_are_span_events_of_the_agent_span(mode: str) -> None:
    provider, exporter = pipeline()
    handler = OpenTelemetryCallbackHandler(provider, capture_content=True)
    executor = _executor([LoopGuard()])
    config = {"callbacks": [handler]}
    if mode == "sync":
        executor.invoke({"input": "Find Ada"}, config)  # type: ignore[arg-type]
    else:
        await executor.ainvoke({"input": "Find Ada"}, config)  # type: ignore[arg-type]
    agent = named(exporter.get_finished_spans(), "invoke_agent AgentExecutor")
    events = [(e.name, json.loads(str(e.attributes["leanchain.event.data"]))) for e in agent.events]
    assert [(name, data["action"], data["kind"]) for name, data in events] == [
        ("leanchain.loop_guard", "warn", "repeat"),
        ("leanchain.loop_guard", "stop", "repeat"),
    ]
    assert events[1][1]["message"] == (
        "the agent called find 3 times with the same arguments and got the same result."
    )


def test_a_usage_limit_stop_is_a_span_event_too() -> None:
    provider, exporter = pipeline()
    handler = OpenTelemetryCallbackHandler(provider)
    executor = _executor([UsageLimits(request_limit=2, on_exceed="force")])
    result = executor.invoke({"input": "Find Ada"}, {"callbacks": [handler]})
    assert result["stopped_reason"] == "usage_limit"
    agent = named(exporter.get_finished_spans(), "invoke_agent AgentExecutor")
    # Without capture_content the event carries no data, only its name.
    assert [(e.name, dict(e.attributes or {})) for e in agent.events] == [
        ("leanchain.usage_limits", {})
    ]
