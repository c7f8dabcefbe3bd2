"""An agent never runs a tool on a reply the model did not finish.

Two ways a reply is cut off: its JSON blob stops mid-value (the structured-chat and JSON-chat
agents), or the model ran out of output tokens (``finish_reason="length"``), which a ReAct or
XML reply's text cannot show. Either way the step is a parse error that goes back to the model
with ``handle_parsing_errors``, and raises without it; the tool does not run. The last tests
drive the real OpenAI and Anthropic SDKs against the local fake server.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_executor_support import MODES, Mode, run

from leanchain.agents import (
    AgentAction,
    AgentExecutor,
    create_json_chat_agent,
    create_react_agent,
    create_structured_chat_agent,
    create_xml_agent,
)
from leanchain.agents.output_parsers.base import CUT_OFF_OBSERVATION
from leanchain.agents.prompts import (
    JSON_CHAT_PROMPT,
    REACT_PROMPT,
    STRUCTURED_CHAT_PROMPT,
    XML_PROMPT,
)
from leanchain.errors import OutputParserException
from leanchain.language_models import ScriptedChatModel
from leanchain.providers import ChatAnthropic, ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply
from leanchain.tools import tool

S = ScriptedChatModel
RAN: list[str] = []


@tool
def lookup(word: str) -> str:
    """Look a word up."""
    RAN.append(word)
    return f"{word}: a fruit"


@pytest.fixture(autouse=True)
def _nothing_ran() -> None:
    RAN.clear()


CUT_BLOB = '{"action": "lookup", "action_input": {"word": "ban'
FINAL_BLOB = '{"action": "Final Answer", "action_input": "A fruit."}'
JSON_FACTORIES = {
    "structured chat": lambda model: create_structured_chat_agent(
        model, [lookup], STRUCTURED_CHAT_PROMPT
    ),
    "json chat": lambda model: create_json_chat_agent(model, [lookup], JSON_CHAT_PROMPT),
}


@pytest.mark.parametrize("factory", JSON_FACTORIES.values(), ids=JSON_FACTORIES.keys())
@pytest.mark.parametrize("mode", MODES)
async def test_cut_off_json_goes_back_to_the_model(factory: Any, mode: Mode) -> None:
    model = S([CUT_BLOB, FINAL_BLOB])
    executor = AgentExecutor(
        agent=factory(model),
        tools=[lookup],
        handle_parsing_errors=True,
        return_intermediate_steps=True,
    )
    result = await run(executor, "What is a banana?", mode)
    log = f"Could not parse LLM output: {CUT_BLOB}"
    error = AgentAction("_Exception", "Invalid or incomplete response", log)
    assert result == {
        "input": "What is a banana?",
        "output": "A fruit.",
        "intermediate_steps": [(error, "Invalid or incomplete response")],
    }
    assert RAN == []


@pytest.mark.parametrize("factory", JSON_FACTORIES.values(), ids=JSON_FACTORIES.keys())
def test_cut_off_json_without_the_handler_raises(factory: Any) -> None:
    executor = AgentExecutor(agent=factory(S([CUT_BLOB])), tools=[lookup])
    with pytest.raises(OutputParserException) as info:
        executor.invoke("What is a banana?")
    assert str(info.value).endswith(f"This is the error: Could not parse LLM output: {CUT_BLOB}")
    assert RAN == []


@pytest.mark.parametrize("factory", JSON_FACTORIES.values(), ids=JSON_FACTORIES.keys())
def test_streaming_the_cut_off_json_runs_no_tool(factory: Any) -> None:
    executor = AgentExecutor(
        agent=factory(S([CUT_BLOB, FINAL_BLOB])), tools=[lookup], handle_parsing_errors=True
    )
    chunks = list(executor.stream("What is a banana?"))
    assert [list(c) for c in chunks] == [["steps", "messages"], ["output", "messages"]]
    assert [s.action.tool for s in chunks[0]["steps"]] == ["_Exception"]
    assert chunks[1]["output"] == "A fruit."
    assert RAN == []


TEXT_AGENTS = {
    "react": (
        lambda model: create_react_agent(model, [lookup], REACT_PROMPT),
        "I will look it up.\nAction: lookup\nAction Input: ban",
        "Final Answer: A fruit.",
    ),
    "xml": (
        lambda model: create_xml_agent(model, [lookup], XML_PROMPT),
        "<tool>lookup</tool><tool_input>ban",
        "<final_answer>A fruit.</final_answer>",
    ),
    "structured chat": (
        JSON_FACTORIES["structured chat"],
        '{"action": "lookup", "action_input": {"word": "ban"}}',
        FINAL_BLOB,
    ),
}


@pytest.mark.parametrize(("factory", "cut", "final"), TEXT_AGENTS.values(), ids=TEXT_AGENTS.keys())
@pytest.mark.parametrize("mode", MODES)
async def test_a_reply_cut_at_the_token_limit_goes_back_to_the_model(
    factory: Any, cut: str, final: str, mode: Mode
) -> None:
    # The text reads as a whole action; only the metadata says the model was cut off.
    model = S([S.reply(cut, response_metadata={"finish_reason": "length"}), final])
    executor = AgentExecutor(
        agent=factory(model),
        tools=[lookup],
        handle_parsing_errors=True,
        return_intermediate_steps=True,
    )
    result = await run(executor, "What is a banana?", mode)
    error = AgentAction("_Exception", CUT_OFF_OBSERVATION, cut)
    assert result["intermediate_steps"] == [(error, CUT_OFF_OBSERVATION)]
    assert result["output"] == "A fruit."
    assert RAN == []


REACT_CUT = "I will look it up.\nAction: lookup\nAction Input: ban"


def _over_http(model: ChatOpenAI | ChatAnthropic, server: FakeProviderServer) -> list[Any]:
    server.enqueue(
        ScriptedReply(text=REACT_CUT, finish_reason="length"),
        ScriptedReply(text="Final Answer: A fruit."),
    )
    executor = AgentExecutor(
        agent=create_react_agent(model, [lookup], REACT_PROMPT),
        tools=[lookup],
        handle_parsing_errors=True,
        return_intermediate_steps=True,
    )
    result = executor.invoke("What is a banana?")
    assert result["output"] == "A fruit."
    return list(result["intermediate_steps"])


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_provider_reply_cut_at_max_tokens_runs_no_tool(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with FakeProviderServer() as server:
        model: ChatOpenAI | ChatAnthropic
        if provider == "openai":
            model = ChatOpenAI(
                model="gpt-fake", base_url=server.openai_base_url, api_key="sk-x", max_retries=0
            )
        else:
            model = ChatAnthropic(
                model="claude-fake",
                base_url=server.anthropic_base_url,
                api_key="sk-x",
                max_retries=0,
            )
        try:
            steps = _over_http(model, server)
        finally:
            model.close()
        # The model is told why; the scratchpad it sees next holds the observation.
        second = str(server.requests[1].body)
        assert CUT_OFF_OBSERVATION in second
    assert steps == [
        (AgentAction("_Exception", CUT_OFF_OBSERVATION, REACT_CUT), CUT_OFF_OBSERVATION)
    ]
    assert RAN == []
