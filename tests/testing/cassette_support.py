"""Shared pieces of the cassette tests: a multi-step agent over the fake provider server."""

from __future__ import annotations

from typing import Any

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import BaseChatModel
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply, ScriptedToolCall
from leanchain.tools import tool

API_KEY = "sk-test-CASSETTE-SECRET-0123456789abcdef"
"""The key every model of these tests holds; no cassette may contain it."""
HEADER_SECRET = "hdr-CASSETTE-SECRET-42"
"""A credential sent as a default header; no cassette may contain it either."""
QUESTION = "What is the weather in Paris and Tokyo, and the time in Tokyo?"
ANSWER = "Paris: sunny, 21 C. Tokyo: rain, 14 C, 18:30."


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return {"Paris": "sunny, 21 C", "Tokyo": "rain, 14 C"}[city]


@tool
def get_time(zone: str) -> str:
    """Get the local time in a time zone."""
    return "18:30"


TOOLS = [get_weather, get_time]


def script(server: FakeProviderServer) -> None:
    """Three rounds: two parallel tool calls, one more tool call with text, the answer."""
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
        ScriptedReply(text=ANSWER),
    )


def base_url(server: FakeProviderServer, provider: str) -> str:
    """The URL `provider`'s SDK reaches `server` at."""
    return server.openai_base_url if provider == "openai" else server.anthropic_base_url


def provider_model(provider: str, base_url: str) -> BaseChatModel:
    """A real-SDK model of `provider` at `base_url`, holding the secret key and header."""
    headers = {"X-Org-Api-Key": HEADER_SECRET}
    if provider == "openai":
        return ChatOpenAI(
            model="gpt-fake",
            base_url=base_url,
            api_key=API_KEY,
            max_retries=0,
            default_headers=headers,
        )
    return ChatAnthropic(
        model="claude-fake",
        base_url=base_url,
        api_key=API_KEY,
        max_retries=0,
        default_headers=headers,
    )


def executor(model: BaseChatModel) -> AgentExecutor:
    """The tool-calling agent over `model` with the weather and time tools."""
    agent = create_tool_calling_agent(model, TOOLS, TOOL_CALLING_PROMPT)
    return AgentExecutor(agent=agent, tools=TOOLS, return_intermediate_steps=True)


def without_ids(events: list[Any]) -> list[dict[str, Any]]:
    """Events with their run ids and parent ids left out."""
    return [{k: v for k, v in e.items() if k not in ("run_id", "parent_ids")} for e in events]
