"""InjectedToolArg and InjectedToolCallId: arguments the model never sees (LangChain's behaviour).

The schema the model is shown (``tool_call_schema``, ``args``, every provider format) leaves
them out; the input schema keeps them; the caller, ``config["configurable"]`` or the tool
call's id fills them in.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import ToolMessage
from leanchain.tools import (
    BaseTool,
    InjectedToolArg,
    InjectedToolCallId,
    ToolInputValidationError,
    convert_to_anthropic_tool,
    convert_to_openai_tool,
    render_text_description_and_args,
    tool,
)

NEEDS_CALL = (
    "When tool includes an InjectedToolCallId argument, tool must always be invoked with a "
    "full model ToolCall of the form: {'args': {...}, 'name': '...', 'type': 'tool_call', "
    "'tool_call_id': '...'}"
)

VISIBLE = {
    "description": "Look up something for a user.",
    "properties": {"query": {"title": "Query", "type": "string"}},
    "required": ["query"],
    "title": "lookup",
    "type": "object",
}


@tool
def lookup(query: str, user_id: Annotated[str, InjectedToolArg]) -> str:
    """Look up something for a user."""
    return f"{user_id}:{query}"


@tool
def reply(text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Reply."""
    return f"{tool_call_id}:{text}"


def _call(name: str, args: dict[str, Any], call_id: str = "c1") -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "id": call_id, "args": args}


def test_injected_argument_leaves_the_model_schema_but_not_the_input_schema() -> None:
    assert lookup.args == {"query": {"title": "Query", "type": "string"}}
    schema = lookup.tool_call_schema
    assert isinstance(schema, type)
    assert schema.model_json_schema() == VISIBLE
    assert lookup.get_input_schema().model_json_schema() == {
        **VISIBLE,
        "properties": {
            "query": {"title": "Query", "type": "string"},
            "user_id": {"title": "User Id", "type": "string"},
        },
        "required": ["query", "user_id"],
    }


def test_provider_formats_and_text_rendering_leave_injected_arguments_out() -> None:
    parameters = {
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
        "type": "object",
    }
    assert convert_to_openai_tool(lookup) == {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look up something for a user.",
            "parameters": parameters,
        },
    }
    assert convert_to_anthropic_tool(reply)["input_schema"] == {
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "type": "object",
    }
    # leanchain: the signature in a prompt's tool list leaves them out too (LangChain shows it).
    assert render_text_description_and_args([lookup]) == (
        "lookup(query: str) -> str - Look up something for a user., "
        "args: {'query': {'title': 'Query', 'type': 'string'}}"
    )


def test_caller_passes_injected_argument_with_the_others() -> None:
    assert lookup.invoke({"query": "q", "user_id": "u1"}) == "u1:q"
    message = lookup.invoke(_call("lookup", {"query": "q", "user_id": "u2"}))
    assert message == ToolMessage(content="u2:q", name="lookup", tool_call_id="c1")


def test_missing_injected_argument_is_a_validation_error_naming_it() -> None:
    with pytest.raises(ToolInputValidationError) as caught:
        lookup.invoke({"query": "q"})
    assert str(caught.value) == "Tool 'lookup' got invalid arguments: 'user_id': Field required"


def test_configurable_fills_injected_argument_and_wins_over_the_call() -> None:
    config: Any = {"configurable": {"user_id": "session-7"}}
    assert lookup.invoke({"query": "q"}, config) == "session-7:q"
    forged = lookup.invoke(_call("lookup", {"query": "q", "user_id": "admin"}), config)
    assert forged.content == "session-7:q"


def test_string_input_goes_to_the_first_visible_argument() -> None:
    @tool
    def greet(session: Annotated[str, InjectedToolArg], name: str) -> str:
        """Greet."""
        return f"{session}/{name}"

    assert greet.invoke("Ada", {"configurable": {"session": "s1"}}) == "s1/Ada"


def test_tool_call_id_is_injected_from_the_call() -> None:
    assert reply.args == {"text": {"title": "Text", "type": "string"}}
    message = reply.invoke(_call("reply", {"text": "hi"}, "c9"))
    assert message == ToolMessage(content="c9:hi", name="reply", tool_call_id="c9")
    assert reply.run({"text": "hi"}, tool_call_id="c3", as_message=False) == "c3:hi"


@pytest.mark.parametrize("given", [{"text": "hi"}, {"text": "hi", "tool_call_id": "x"}])
def test_tool_call_id_tool_refuses_a_plain_input(given: dict[str, Any]) -> None:
    with pytest.raises(ValueError) as caught:
        reply.invoke(given)
    assert str(caught.value) == NEEDS_CALL


async def test_async_tools_get_their_injected_values() -> None:
    @tool
    async def areply(text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Reply."""
        return f"{tool_call_id}:{text}"

    message = await areply.ainvoke(_call("areply", {"text": "hi"}, "c9"))
    assert message == ToolMessage(content="c9:hi", name="areply", tool_call_id="c9")
    config: Any = {"configurable": {"user_id": "u5"}}
    assert await lookup.ainvoke({"query": "q"}, config) == "u5:q"
    with pytest.raises(ValueError, match="InjectedToolCallId"):
        await areply.ainvoke({"text": "hi"})


class Search(BaseModel):
    a: int = Field(description="how many")
    sid: Annotated[str, InjectedToolArg()]


class SchemaTool(BaseTool):
    name: str = "t"
    description: str = "d"
    args_schema: type[BaseModel] = Search

    def _run(self, a: int, sid: str) -> str:
        return f"{a}{sid}"


class SignatureTool(BaseTool):
    name: str = "t2"
    description: str = "d"

    def _run(self, a: int, sid: Annotated[str, InjectedToolArg]) -> str:
        return f"{a}{sid}"


@pytest.mark.parametrize(
    ("made", "properties"),
    [
        (SchemaTool, {"a": {"description": "how many", "title": "A", "type": "integer"}}),
        (SignatureTool, {"a": {"title": "A", "type": "integer"}}),
    ],
)
def test_subclasses_mark_injected_fields_in_schema_or_signature(
    made: type[BaseTool], properties: dict[str, Any]
) -> None:
    instance = made()
    schema = instance.tool_call_schema
    assert isinstance(schema, type)
    assert schema.model_json_schema() == {
        "description": "d",
        "properties": properties,
        "required": ["a"],
        "title": instance.name,
        "type": "object",
    }
    assert convert_to_openai_tool(instance)["function"]["parameters"]["required"] == ["a"]
    assert instance.invoke({"a": 1, "sid": "s"}) == "1s"


def test_a_tool_without_injected_arguments_shows_its_whole_schema() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    assert add.tool_call_schema is add.args_schema


@tool
def whoami(
    question: str,
    user_id: Annotated[str, InjectedToolArg],
    call: Annotated[str, InjectedToolCallId],
) -> str:
    """Answer a question about the current user."""
    return f"{question} -> {user_id} ({call})"


def _agent_run(model: ScriptedChatModel) -> AgentExecutor:
    agent = create_tool_calling_agent(model, [whoami], TOOL_CALLING_PROMPT)
    return AgentExecutor(agent=agent, tools=[whoami], return_intermediate_steps=True)


def test_executor_fills_call_id_and_configurable_session() -> None:
    model = ScriptedChatModel(
        [ScriptedChatModel.tool_calls(("whoami", {"question": "name?", "user_id": "admin"})), "ok"]
    )
    result = _agent_run(model).invoke({"input": "who am I"}, {"configurable": {"user_id": "ada"}})
    assert [obs for _, obs in result["intermediate_steps"]] == ["name? -> ada (call_1)"]
    [tool_def] = model.requests[0].tools
    assert convert_to_openai_tool(tool_def)["function"]["parameters"] == {
        "properties": {"question": {"type": "string"}},
        "required": ["question"],
        "type": "object",
    }


async def test_async_executor_fills_call_id_and_configurable_session() -> None:
    model = ScriptedChatModel(
        [ScriptedChatModel.tool_calls(("whoami", {"question": "name?"})), "ok"]
    )
    result = await _agent_run(model).ainvoke(
        {"input": "who am I"}, {"configurable": {"user_id": "ada"}}
    )
    assert [obs for _, obs in result["intermediate_steps"]] == ["name? -> ada (call_1)"]
