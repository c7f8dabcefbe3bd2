"""create_agent: LangChain 1.x's {"messages": [...]} contract over the executor and middleware."""

from __future__ import annotations

from typing import Any

import pytest

import leanchain
from leanchain.agents import LoopGuard, create_agent
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from leanchain.tools import tool


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


CALL = {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_1", "type": "tool_call"}


def _model() -> ScriptedChatModel:
    return ScriptedChatModel([ScriptedChatModel.tool_calls(("add", {"a": 1, "b": 2})), "It is 3."])


def test_messages_in_messages_out() -> None:
    model = _model()
    agent = create_agent(model, [add], system_prompt="Be exact.")
    state = agent.invoke({"messages": [("human", "1+2?")]})
    assert state == {
        "messages": [
            HumanMessage("1+2?"),
            AIMessage("", tool_calls=[CALL]),
            ToolMessage("3", tool_call_id="call_1", name="add", additional_kwargs={"name": "add"}),
            AIMessage("It is 3."),
        ]
    }
    assert model.requests[0].messages == [SystemMessage("Be exact."), HumanMessage("1+2?")]
    assert model.requests[0].tool_names == ["add"]


def test_the_conversation_goes_on_from_the_returned_state() -> None:
    model = ScriptedChatModel(["Hi Ada.", "You are Ada."])
    agent = create_agent(model, [])
    state = agent.invoke({"messages": [HumanMessage("I am Ada.")]})
    state["messages"].append(HumanMessage("Who am I?"))
    final = agent.invoke(state)
    assert final["messages"][-1] == AIMessage("You are Ada.")
    assert [m.type for m in model.requests[1].messages] == ["human", "ai", "human"]


async def test_async_invoke() -> None:
    agent = create_agent(_model(), [tool(add)])
    state = await agent.ainvoke({"messages": [{"role": "user", "content": "1+2?"}]})
    assert [m.type for m in state["messages"]] == ["human", "ai", "tool", "ai"]


def test_middleware_goes_to_the_executor() -> None:
    guard = LoopGuard()
    agent = create_agent(_model(), [add], middleware=[guard])
    assert agent.executor.middleware == (guard,)
    assert agent.invoke({"messages": [("human", "1+2?")]})["messages"][-1].text == "It is 3."


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("openai:gpt-4o", "create_agent needs a chat model, got str (make it with leanchain"),
        (object(), "create_agent needs a chat model, got object"),
    ],
)
def test_a_model_that_is_not_a_chat_model_is_refused(given: Any, message: str) -> None:
    with pytest.raises(TypeError) as caught:
        create_agent(given, [])
    assert str(caught.value).startswith(message)


def test_the_input_must_be_a_messages_state() -> None:
    with pytest.raises(TypeError, match=r'takes \{"messages": \[...\]\}, got str'):
        create_agent(_model(), [add]).invoke("1+2?")  # type: ignore[arg-type]


def test_top_level_export() -> None:
    assert leanchain.create_agent is create_agent
