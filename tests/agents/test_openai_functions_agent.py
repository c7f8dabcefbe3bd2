"""create_openai_functions_agent, its parser and its scratchpad (LangChain's legacy agent)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leanchain.agents import (
    AgentActionMessageLog,
    AgentExecutor,
    AgentFinish,
    create_openai_functions_agent,
)
from leanchain.agents.format_scratchpad import (
    format_to_openai_function_messages,
    format_to_openai_functions,
)
from leanchain.agents.output_parsers import OpenAIFunctionsAgentOutputParser
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.agents.schema import AgentAction
from leanchain.errors import AgentConfigurationError, OutputParserException
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage, FunctionMessage, HumanMessage
from leanchain.prompts import ChatPromptTemplate
from leanchain.tools import tool

PARSER = OpenAIFunctionsAgentOutputParser()


def _action(message: AIMessage) -> AgentAction:
    decision = PARSER.invoke(message)
    assert isinstance(decision, AgentAction)
    return decision


def _call(name: str, arguments: str, content: str = "") -> AIMessage:
    return AIMessage(
        content, additional_kwargs={"function_call": {"name": name, "arguments": arguments}}
    )


def test_function_call_becomes_one_action_with_langchain_s_log() -> None:
    message = _call("add", '{"a": 1}')
    action = PARSER.invoke(message)
    assert action == AgentActionMessageLog(
        tool="add",
        tool_input={"a": 1},
        log="\nInvoking: `add` with `{'a': 1}`\n\n\n",
        message_log=[message],
    )


def test_arg1_is_unwrapped_and_empty_arguments_are_an_empty_dict() -> None:
    action = _action(_call("one", '{"__arg1": "x"}', "hmm"))
    assert (action.tool_input, action.log) == (
        "x",
        "\nInvoking: `one` with `x`\nresponded: hmm\n\n",
    )
    assert _action(_call("e", "  ")).tool_input == {}
    assert _action(_call("c", '{"t": "a\tb"}')).tool_input == {"t": "a\tb"}


def test_bad_json_text_and_plain_replies() -> None:
    with pytest.raises(OutputParserException) as caught:
        PARSER.invoke(_call("foo", "{42]"))
    assert str(caught.value) == (
        "Could not parse tool input: {'name': 'foo', 'arguments': '{42]'} because the "
        "`arguments` is not valid JSON."
    )
    assert PARSER.invoke(AIMessage("done")) == AgentFinish({"output": "done"}, "done")
    with pytest.raises(ValueError, match="only works on ChatGeneration output"):
        PARSER.invoke("x")


def test_native_tool_calls_are_read_too() -> None:
    message = ScriptedChatModel.tool_calls(("add", {"a": 2}), ("add", {"a": 3}))
    action = _action(message)
    assert (action.tool, action.tool_input) == ("add", {"a": 2})


@given(st.text(max_size=40))
def test_any_arguments_give_an_action_or_a_parse_error(arguments: str) -> None:
    try:
        decision = PARSER.invoke(_call("f", arguments))
    except OutputParserException:
        return
    assert isinstance(decision, AgentActionMessageLog)


def test_scratchpad_replays_calls_and_function_results() -> None:
    message = _call("add", '{"a": 1}')
    action = _action(message)
    steps: list[tuple[AgentAction, Any]] = [
        (action, {"x": "é"}),
        (AgentAction("t", "i", "log"), "obs"),
    ]
    assert format_to_openai_function_messages(steps) == [
        message,
        FunctionMessage(name="add", content='{"x": "é"}'),
        AIMessage("log"),
    ]
    assert format_to_openai_functions is format_to_openai_function_messages
    assert format_to_openai_function_messages([(action, object)])[1].content == str(object)


def test_prompt_without_scratchpad_is_langchain_s_error() -> None:
    with pytest.raises(AgentConfigurationError) as caught:
        create_openai_functions_agent(
            ScriptedChatModel([]), [], ChatPromptTemplate.from_messages([("human", "{input}")])
        )
    assert str(caught.value) == (
        "Prompt must have input variable `agent_scratchpad`, but wasn't found. "
        "Found ['input'] instead."
    )


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_the_agent_runs_under_an_executor() -> None:
    model = ScriptedChatModel([_call("add", '{"a": 2, "b": 3}'), "The sum is 5."])
    agent = create_openai_functions_agent(model, [add], TOOL_CALLING_PROMPT)
    result = AgentExecutor(agent=agent, tools=[add], return_intermediate_steps=True).invoke(
        {"input": "2+3?"}
    )
    assert result["output"] == "The sum is 5."
    assert [obs for _, obs in result["intermediate_steps"]] == [5]
    first, second = model.requests
    assert first.kwargs["functions"] == [
        {
            "name": "add",
            "description": "Add two integers.",
            "parameters": {
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
                "type": "object",
            },
        }
    ]
    assert second.messages[-2:] == [
        _call("add", '{"a": 2, "b": 3}'),
        FunctionMessage(name="add", content="5"),
    ]
    assert isinstance(second.messages[1], HumanMessage)
