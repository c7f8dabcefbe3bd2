"""`convert_runnable_to_tool`: a runnable as a tool, as LangChain's ``Runnable.as_tool``."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage, HumanMessage, ToolMessage
from leanchain.prompts import PromptTemplate
from leanchain.runnables import RunnableConfig, RunnableLambda
from leanchain.tools import StructuredTool, Tool, convert_runnable_to_tool

UNTYPED = (
    "Tool input must be str or dict. If dict, dict arguments must be typed. Either annotate "
    "types (e.g., with TypedDict) or pass args_schema or arg_types to specify."
)


class Order(TypedDict):
    item: str
    count: int


def describe_order(order: Order) -> str:
    return f"{order['count']} x {order['item']}"


def shout(text: str) -> str:
    return text.upper()


class SearchArgs(BaseModel):
    """Search the catalogue."""

    query: str
    limit: int = 2


def test_args_schema_gives_a_structured_tool_over_it() -> None:
    tool = convert_runnable_to_tool(
        RunnableLambda(lambda d: d), SearchArgs, name="search", description="Search it."
    )
    assert isinstance(tool, StructuredTool)
    assert (tool.name, tool.description) == ("search", "Search it.")
    assert tool.args == {
        "query": {"title": "Query", "type": "string"},
        "limit": {"default": 2, "title": "Limit", "type": "integer"},
    }
    assert tool.invoke({"query": "tea"}) == {"query": "tea", "limit": 2}
    assert tool.invoke({"query": "tea", "limit": "5"}) == {"query": "tea", "limit": 5}


def test_defaults_are_the_runnable_name_and_a_generated_description() -> None:
    tool = convert_runnable_to_tool(RunnableLambda(lambda d: d), SearchArgs)
    assert tool.name == "RunnableLambda"
    assert tool.description == (
        "Takes {'description': 'Search the catalogue.', 'properties': {'query': {'title': "
        "'Query', 'type': 'string'}, 'limit': {'default': 2, 'title': 'Limit', 'type': "
        "'integer'}}, 'required': ['query'], 'title': 'SearchArgs', 'type': 'object'}."
    )


def test_a_prompt_gives_a_tool_over_its_variables() -> None:
    prompt = PromptTemplate.from_template("Tell me about {topic} in {lang}.")
    tool = convert_runnable_to_tool(prompt, name="about", description="d")
    assert isinstance(tool, StructuredTool)
    assert tool.args == {
        "lang": {"title": "Lang", "type": "string"},
        "topic": {"title": "Topic", "type": "string"},
    }
    assert tool.invoke({"topic": "tea", "lang": "French"}).to_string() == (
        "Tell me about tea in French."
    )


def test_a_typed_dict_input_gives_a_tool_over_its_keys() -> None:
    tool = convert_runnable_to_tool(RunnableLambda(describe_order), description="Order.")
    assert isinstance(tool, StructuredTool)
    assert tool.name == "describe_order"
    assert tool.args == {
        "item": {"title": "Item", "type": "string"},
        "count": {"title": "Count", "type": "integer"},
    }
    assert tool.invoke({"item": "tea", "count": "3"}) == "3 x tea"


def test_arg_types_type_an_untyped_dict_input() -> None:
    double = RunnableLambda(lambda d: d["n"] * 2)
    tool = convert_runnable_to_tool(double, name="double", arg_types={"n": int})
    assert tool.args == {"n": {"title": "N", "type": "integer"}}
    assert tool.description == (
        "Takes {'properties': {'n': {'title': 'N'}}, 'required': ['n'], "
        "'title': 'RunnableLambdaInput', 'type': 'object'}."
    )
    assert tool.invoke({"n": "21"}) == 42


def test_a_string_input_gives_a_single_input_tool() -> None:
    tool = convert_runnable_to_tool(RunnableLambda(shout))
    assert isinstance(tool, Tool)
    assert (tool.name, tool.description) == (
        "shout",
        "Takes {'title': 'shout_input', 'type': 'string'}.",
    )
    assert tool.args == {"tool_input": {"type": "string"}}
    assert tool.invoke("hey") == "HEY"
    assert tool.invoke({"text": "you"}) == "YOU"


def test_an_untyped_input_is_a_type_error() -> None:
    with pytest.raises(TypeError) as info:
        convert_runnable_to_tool(RunnableLambda(lambda d: d))
    assert str(info.value) == f"{UNTYPED} Got input type typing.Any."


def test_a_plain_dict_input_is_a_type_error_not_a_tool_without_arguments() -> None:
    def keys(d: dict[str, Any]) -> list[str]:
        return list(d)

    with pytest.raises(TypeError) as info:
        convert_runnable_to_tool(RunnableLambda(keys))
    assert str(info.value) == f"{UNTYPED} Got input type dict[str, typing.Any]."


def test_the_runnable_gets_the_tool_config() -> None:
    def seen(d: dict[str, Any], config: RunnableConfig) -> str:
        return f"{d['n']}:{config.get('tags')}:{config.get('configurable')}"

    tool = convert_runnable_to_tool(RunnableLambda(seen), name="seen", arg_types={"n": int})
    assert tool.invoke({"n": 1}, {"tags": ["t"], "configurable": {"k": 1}}) == "1:['t']:{'k': 1}"


async def test_ainvoke_awaits_the_runnable() -> None:
    calls: list[str] = []

    async def ashout(text: str) -> str:
        calls.append(text)
        return text.upper()

    text_tool = convert_runnable_to_tool(RunnableLambda(shout, afunc=ashout))
    assert await text_tool.ainvoke("hi") == "HI"

    async def adescribe(order: Order) -> str:
        calls.append(order["item"])
        return describe_order(order)

    order_tool = convert_runnable_to_tool(RunnableLambda(describe_order, afunc=adescribe))
    assert await order_tool.ainvoke({"item": "tea", "count": 2}) == "2 x tea"
    assert calls == ["hi", "tea"]


@pytest.mark.parametrize("use_async", [False, True])
async def test_an_agent_calls_the_runnable_tool(use_async: bool) -> None:
    tool = convert_runnable_to_tool(
        RunnableLambda(describe_order), name="order", description="Place an order."
    )
    model = ScriptedChatModel(
        [ScriptedChatModel.tool_call("order", {"item": "tea", "count": 2}), "Ordered."]
    )
    agent = create_tool_calling_agent(model, [tool], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[tool], return_intermediate_steps=True)
    request = {"input": "two teas please"}
    result = await executor.ainvoke(request) if use_async else executor.invoke(request)
    assert result["output"] == "Ordered."
    [(action, observation)] = result["intermediate_steps"]
    assert (action.tool, action.tool_input, observation) == (
        "order",
        {"item": "tea", "count": 2},
        "2 x tea",
    )
    assert model.requests[1].messages[-2:] == [
        AIMessage(
            content="",
            tool_calls=[
                {
                    "name": "order",
                    "args": {"item": "tea", "count": 2},
                    "id": "call_1",
                    "type": "tool_call",
                }
            ],
        ),
        ToolMessage(
            content="2 x tea",
            additional_kwargs={"name": "order"},
            name="order",
            tool_call_id="call_1",
        ),
    ]
    assert model.requests[1].messages[1] == HumanMessage(content="two teas please")
