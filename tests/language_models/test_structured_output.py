"""with_structured_output: a forced tool call parsed into a pydantic object or a dict."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from leanchain.errors import OutputParserException
from leanchain.language_models import FakeListChatModel, ScriptedChatModel
from leanchain.messages import AIMessage, HumanMessage


class Person(BaseModel):
    """A person."""

    name: str = Field(description="Their name")
    age: int


class PersonDict(TypedDict):
    """A person, as a dict."""

    name: str
    age: int


PERSON_SCHEMA: dict[str, Any] = {
    "title": "Person",
    "description": "A person.",
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}


def test_pydantic_schema_gives_a_validated_instance() -> None:
    model = ScriptedChatModel([ScriptedChatModel.tool_call("Person", {"name": "Ann", "age": "3"})])
    structured = model.with_structured_output(Person)
    assert structured.invoke("Ann is 3") == Person(name="Ann", age=3)
    (request,) = model.requests
    assert request.messages == [HumanMessage("Ann is 3")]
    assert request.tool_choice == "any"
    assert request.tools == [
        {
            "type": "function",
            "function": {
                "name": "Person",
                "description": "A person.",
                "parameters": {
                    "properties": {
                        "name": {"description": "Their name", "type": "string"},
                        "age": {"type": "integer"},
                    },
                    "required": ["name", "age"],
                    "type": "object",
                },
            },
        }
    ]


def test_typed_dict_schema_gives_a_validated_dict() -> None:
    model = ScriptedChatModel([ScriptedChatModel.tool_call("PersonDict", {"name": "Bo", "age": 4})])
    assert model.with_structured_output(PersonDict).invoke("q") == {"name": "Bo", "age": 4}
    assert model.requests[0].tool_names == ["PersonDict"]


def test_dict_schema_gives_the_arguments() -> None:
    model = ScriptedChatModel([ScriptedChatModel.tool_call("Person", {"name": "Cy", "age": 5})])
    assert model.with_structured_output(PERSON_SCHEMA).invoke("q") == {"name": "Cy", "age": 5}


def test_the_first_call_of_the_schema_tool_wins() -> None:
    reply = ScriptedChatModel.tool_calls(
        ("Other", {"x": 1}),
        ("Person", {"name": "A", "age": 1}),
        ("Person", {"name": "B", "age": 2}),
    )
    structured = ScriptedChatModel([reply]).with_structured_output(Person)
    assert structured.invoke("q") == Person(name="A", age=1)


def test_include_raw_success() -> None:
    reply = ScriptedChatModel.tool_call("Person", {"name": "Ann", "age": 3}, id="c1")
    structured = ScriptedChatModel([reply]).with_structured_output(Person, include_raw=True)
    assert structured.invoke("q") == {
        "raw": reply,
        "parsed": Person(name="Ann", age=3),
        "parsing_error": None,
    }


def test_include_raw_failure_keeps_the_error() -> None:
    reply = ScriptedChatModel.tool_call("Person", {"name": "Ann"}, id="c1")
    structured = ScriptedChatModel([reply]).with_structured_output(Person, include_raw=True)
    result = structured.invoke("q")
    assert result["raw"] == reply
    assert result["parsed"] is None
    assert isinstance(result["parsing_error"], OutputParserException)
    assert str(result["parsing_error"]).startswith(
        'Failed to parse Person from the arguments {"name": "Ann"}: 1 validation error for Person'
    )


def test_validation_failure_raises_output_parser_exception() -> None:
    reply = ScriptedChatModel.tool_call("Person", {"name": "Ann", "age": "old"})
    with pytest.raises(OutputParserException) as info:
        ScriptedChatModel([reply]).with_structured_output(Person).invoke("q")
    assert info.value.llm_output == '{"name": "Ann", "age": "old"}'
    assert "age\n  Input should be a valid integer" in str(info.value)


def test_text_reply_raises_output_parser_exception() -> None:
    with pytest.raises(OutputParserException) as info:
        ScriptedChatModel(["I won't"]).with_structured_output(Person).invoke("q")
    assert str(info.value) == (
        "Expected the model to call the tool 'Person', but it answered with text: \"I won't\""
    )
    assert info.value.llm_output == "I won't"


def test_call_of_another_tool_raises() -> None:
    reply = ScriptedChatModel.tool_call("Other", {})
    with pytest.raises(
        OutputParserException,
        match=r"^Expected the model to call the tool 'Person', but it called \['Other'\]$",
    ):
        ScriptedChatModel([reply]).with_structured_output(Person).invoke("q")


def test_arguments_that_are_not_json_raise() -> None:
    reply = AIMessage(
        content="",
        invalid_tool_calls=[
            {
                "name": "Person",
                "args": '{"name": ',
                "id": "c1",
                "error": None,
                "type": "invalid_tool_call",
            }
        ],
    )
    with pytest.raises(OutputParserException) as info:
        ScriptedChatModel([reply]).with_structured_output(Person).invoke("q")
    assert str(info.value) == (
        "The model called 'Person' with arguments that are not a JSON object: '{\"name\": '"
    )


def test_streaming_yields_the_parsed_object_once() -> None:
    reply = ScriptedChatModel.tool_call("Person", {"name": "Ann Lee", "age": 30})
    structured = ScriptedChatModel([reply]).with_structured_output(Person)
    assert list(structured.stream("q")) == [Person(name="Ann Lee", age=30)]


async def test_async() -> None:
    reply = ScriptedChatModel.tool_call("Person", {"name": "Ann", "age": 3})
    structured = ScriptedChatModel([reply, reply]).with_structured_output(Person)
    assert await structured.ainvoke("q") == Person(name="Ann", age=3)
    assert [p async for p in structured.astream("q")] == [Person(name="Ann", age=3)]


def test_unsupported_arguments_and_methods() -> None:
    model = ScriptedChatModel([])
    with pytest.raises(ValueError, match=r"^Received unsupported arguments \{'strict': True\}$"):
        model.with_structured_output(Person, strict=True)
    with pytest.raises(
        ValueError,
        match=(
            r"^Unsupported method 'json_mode' for ScriptedChatModel\.with_structured_output; "
            r"expected 'function_calling'$"
        ),
    ):
        model.with_structured_output(Person, method="json_mode")
    with pytest.raises(ValueError, match=r"^with_structured_output takes a pydantic model class"):
        model.with_structured_output(int)


def test_model_without_tools_cannot_give_structured_output() -> None:
    with pytest.raises(
        NotImplementedError, match=r"^with_structured_output is not implemented for this model\.$"
    ):
        FakeListChatModel(["x"]).with_structured_output(Person)
