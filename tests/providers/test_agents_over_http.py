"""Agents end to end over HTTP: the factories and AgentExecutor driving both real SDKs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from providers_support import anthropic, openai

from leanchain.agents import (
    AgentExecutor,
    create_openai_tools_agent,
    create_react_agent,
    create_tool_calling_agent,
)
from leanchain.agents.prompts import REACT_PROMPT, TOOL_CALLING_PROMPT, TOOL_CALLING_SYSTEM
from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import BaseChatModel
from leanchain.testing import FakeProviderServer, ScriptedReply, ScriptedToolCall
from leanchain.tools import tool

Factory = Callable[..., BaseChatModel]
QUESTION = "What is the weather in Paris and Tokyo, and the time in Tokyo?"


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return {"Paris": "sunny, 21 C", "Tokyo": "rain, 14 C"}[city]


@tool
def get_time(zone: str) -> str:
    """Get the local time in a time zone."""
    return "18:30"


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make(provider: str) -> Factory:
    return openai if provider == "openai" else anthropic


def script(server: FakeProviderServer) -> None:
    server.enqueue(
        ScriptedReply(
            tool_calls=[
                ScriptedToolCall("get_weather", {"city": "Paris"}, id="call_P"),
                ScriptedToolCall("get_weather", {"city": "Tokyo"}, id="call_T"),
            ]
        ),
        ScriptedReply(
            text="Now the time.",
            tool_calls=[ScriptedToolCall("get_time", {"zone": "Asia/Tokyo"}, id="call_Z")],
        ),
        ScriptedReply(text="Paris: sunny. Tokyo: rain, 18:30."),
    )


def turn_three_openai() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": TOOL_CALLING_SYSTEM},
        {"role": "user", "content": QUESTION},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_P",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "call_T",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Tokyo"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_P", "content": "sunny, 21 C"},
        {"role": "tool", "tool_call_id": "call_T", "content": "rain, 14 C"},
        {
            "role": "assistant",
            "content": "Now the time.",
            "tool_calls": [
                {
                    "id": "call_Z",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": '{"zone": "Asia/Tokyo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_Z", "content": "18:30"},
    ]


def turn_three_anthropic() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": QUESTION},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "call_P",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                },
                {
                    "type": "tool_use",
                    "id": "call_T",
                    "name": "get_weather",
                    "input": {"city": "Tokyo"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_P", "content": "sunny, 21 C"},
                {"type": "tool_result", "tool_use_id": "call_T", "content": "rain, 14 C"},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Now the time."},
                {
                    "type": "tool_use",
                    "id": "call_Z",
                    "name": "get_time",
                    "input": {"zone": "Asia/Tokyo"},
                },
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_Z", "content": "18:30"}],
        },
    ]


def check_run(server: FakeProviderServer, provider: str, result: dict[str, Any]) -> None:
    assert result["output"] == "Paris: sunny. Tokyo: rain, 18:30."
    steps = [(a.tool, a.tool_input, a.tool_call_id, obs) for a, obs in result["intermediate_steps"]]
    assert steps == [
        ("get_weather", {"city": "Paris"}, "call_P", "sunny, 21 C"),
        ("get_weather", {"city": "Tokyo"}, "call_T", "rain, 14 C"),
        ("get_time", {"zone": "Asia/Tokyo"}, "call_Z", "18:30"),
    ]
    bodies = [request.body for request in server.requests]
    assert len(bodies) == 3
    if provider == "openai":
        assert bodies[2]["messages"] == turn_three_openai()
        assert [tool["function"]["name"] for tool in bodies[0]["tools"]] == [
            "get_weather",
            "get_time",
        ]
    else:
        assert bodies[2]["system"] == TOOL_CALLING_SYSTEM
        assert bodies[2]["messages"] == turn_three_anthropic()
        assert [tool["name"] for tool in bodies[0]["tools"]] == ["get_weather", "get_time"]


def test_tool_calling_agent_parallel_calls_then_another_turn(
    server: FakeProviderServer, make: Factory, provider: str
) -> None:
    script(server)
    agent = create_tool_calling_agent(make(server), [get_weather, get_time], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(
        agent=agent, tools=[get_weather, get_time], return_intermediate_steps=True
    )
    check_run(server, provider, executor.invoke({"input": QUESTION}))


class Tokens(BaseCallbackHandler):
    """Asks chat models to stream (``wants_tokens``) and keeps the tokens."""

    wants_tokens = True

    def __init__(self) -> None:
        self.tokens: list[str] = []

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.tokens.append(token)


async def test_tool_calling_agent_async_and_streamed(
    server: FakeProviderServer, make: Factory, provider: str
) -> None:
    script(server)
    agent = create_tool_calling_agent(make(server), [get_weather, get_time], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(
        agent=agent, tools=[get_weather, get_time], return_intermediate_steps=True
    )
    tokens = Tokens()
    result = await executor.ainvoke({"input": QUESTION}, config={"callbacks": [tokens]})
    check_run(server, provider, result)
    assert all(request.stream for request in server.requests)
    assert "".join(tokens.tokens) == "Now the time.Paris: sunny. Tokyo: rain, 18:30."


def test_openai_tools_agent_works_with_both(
    server: FakeProviderServer, make: Factory, provider: str
) -> None:
    # create_openai_tools_agent binds OpenAI schemas; ChatAnthropic converts them per request.
    script(server)
    agent = create_openai_tools_agent(make(server), [get_weather, get_time], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(
        agent=agent, tools=[get_weather, get_time], return_intermediate_steps=True
    )
    check_run(server, provider, executor.invoke({"input": QUESTION}))


def test_malformed_tool_json_is_an_invalid_call_the_agent_recovers_from(
    server: FakeProviderServer, make: Factory, provider: str
) -> None:
    server.enqueue(
        ScriptedReply(tool_calls=[ScriptedToolCall("get_weather", '{"city": Paris}', id="call_X")]),
        ScriptedReply(tool_calls=[ScriptedToolCall("get_weather", {"city": "Paris"}, id="call_Y")]),
        ScriptedReply(text="Sunny in Paris."),
    )
    agent = create_tool_calling_agent(make(server), [get_weather], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(
        agent=agent, tools=[get_weather], handle_parsing_errors=True, return_intermediate_steps=True
    )
    result = executor.invoke({"input": "Weather in Paris?"})
    assert result["output"] == "Sunny in Paris."
    (bad, observation), (good, answer) = result["intermediate_steps"]
    assert bad.tool == "_Exception"
    assert observation.startswith(
        "Your tool call arguments were not valid JSON, so no tool of your last reply was run:\n"
        "- `get_weather` (id call_X): Expecting value: line 1 column 10 (char 9)\n"
    )
    assert (good.tool, good.tool_input, answer) == ("get_weather", {"city": "Paris"}, "sunny, 21 C")
    # The model saw its failed attempt and why it failed, as plain turns (no dangling call).
    second = server.requests[1].body["messages"]
    if provider == "openai":
        assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
        assert second[3]["content"] == observation
    else:
        assert [m["role"] for m in second] == ["user", "assistant", "user"]
        assert second[2]["content"] == observation


def test_react_agent_sends_its_stop_sequence(
    server: FakeProviderServer, make: Factory, provider: str
) -> None:
    server.enqueue(
        ScriptedReply(text=" I need the weather.\nAction: get_weather\nAction Input: Paris"),
        ScriptedReply(text=" I now know the answer.\nFinal Answer: It is sunny in Paris."),
    )
    agent = create_react_agent(make(server), [get_weather], REACT_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[get_weather], return_intermediate_steps=True)
    result = executor.invoke({"input": "Weather in Paris?"})
    assert result["output"] == "It is sunny in Paris."
    assert [(a.tool, a.tool_input, obs) for a, obs in result["intermediate_steps"]] == [
        ("get_weather", "Paris", "sunny, 21 C")
    ]
    stop_key = "stop" if provider == "openai" else "stop_sequences"
    first, second = (request.body for request in server.requests)
    assert first[stop_key] == second[stop_key] == ["\nObservation"]
    prompt = second["messages"][-1]["content"]
    assert prompt.endswith(
        "Question: Weather in Paris?\nThought: I need the weather.\nAction: get_weather\n"
        "Action Input: Paris\nObservation: sunny, 21 C\nThought: "
    )
