"""Provider tool definitions: OpenAI tool/function and Anthropic tool, strict mode."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from leanchain.tools import (
    StructuredTool,
    Tool,
    convert_to_anthropic_tool,
    convert_to_openai_function,
    convert_to_openai_tool,
    tool,
)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


ADD_PARAMETERS = {
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "type": "object",
}


class Address(BaseModel):
    """A postal address."""

    street: str = Field(description="street name")
    zip: str | None = None


class Person(BaseModel):
    """A person to store."""

    name: str
    addresses: list[Address]
    kind: Literal["friend", "work"] = "friend"
    home: Address | None = None


ADDRESS = {
    "description": "A postal address.",
    "properties": {
        "street": {"description": "street name", "type": "string"},
        "zip": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
    },
    "required": ["street"],
    "type": "object",
}

STRICT_ADDRESS = {
    "description": "A postal address.",
    "properties": {
        "street": {"description": "street name", "type": "string"},
        "zip": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["street", "zip"],
    "type": "object",
    "additionalProperties": False,
}


def test_structured_tool() -> None:
    assert convert_to_openai_tool(add) == {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers.",
            "parameters": ADD_PARAMETERS,
        },
    }
    assert convert_to_openai_function(add) == {
        "name": "add",
        "description": "Add two numbers.",
        "parameters": ADD_PARAMETERS,
    }


def test_strict() -> None:
    assert convert_to_openai_tool(add, strict=True) == {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers.",
            "parameters": {**ADD_PARAMETERS, "additionalProperties": False},
            "strict": True,
        },
    }
    assert convert_to_openai_function(add, strict=False)["strict"] is False
    assert convert_to_openai_function(add, strict=False)["parameters"] == ADD_PARAMETERS


def test_pydantic_model_nested_refs_are_inlined_and_titles_removed() -> None:
    assert convert_to_openai_function(Person) == {
        "name": "Person",
        "description": "A person to store.",
        "parameters": {
            "properties": {
                "name": {"type": "string"},
                "addresses": {"items": ADDRESS, "type": "array"},
                "kind": {"default": "friend", "enum": ["friend", "work"], "type": "string"},
                "home": {"anyOf": [ADDRESS, {"type": "null"}], "default": None},
            },
            "required": ["name", "addresses"],
            "type": "object",
        },
    }


def test_strict_is_recursive_and_requires_every_property() -> None:
    assert convert_to_openai_function(Person, strict=True) == {
        "name": "Person",
        "description": "A person to store.",
        "parameters": {
            "properties": {
                "name": {"type": "string"},
                "addresses": {"items": STRICT_ADDRESS, "type": "array"},
                "kind": {"default": "friend", "enum": ["friend", "work"], "type": "string"},
                "home": {"anyOf": [STRICT_ADDRESS, {"type": "null"}]},
            },
            "required": ["name", "addresses", "kind", "home"],
            "type": "object",
            "additionalProperties": False,
        },
        "strict": True,
    }


def test_strict_leaves_mapping_types_alone() -> None:
    class Scores(BaseModel):
        by_name: dict[str, int]

    params = convert_to_openai_function(Scores, strict=True)["parameters"]
    assert params["properties"]["by_name"] == {
        "additionalProperties": {"type": "integer"},
        "type": "object",
    }


def test_model_without_docstring_has_an_empty_description() -> None:
    class Bare(BaseModel):
        x: int

    assert convert_to_openai_function(Bare) == {
        "name": "Bare",
        "description": "",
        "parameters": {
            "properties": {"x": {"type": "integer"}},
            "required": ["x"],
            "type": "object",
        },
    }


def test_property_named_title_is_kept() -> None:
    class Book(BaseModel):
        """A book."""

        title: str
        meta: dict[str, Any] = Field(default={"title": "kept in defaults"})

    assert convert_to_openai_function(Book)["parameters"] == {
        "properties": {
            "title": {"type": "string"},
            "meta": {
                "additionalProperties": True,
                "default": {"title": "kept in defaults"},
                "type": "object",
            },
        },
        "required": ["title"],
        "type": "object",
    }


def test_recursive_model_keeps_its_definitions() -> None:
    class Node(BaseModel):
        """A tree node."""

        value: int
        children: list[Node] = []

    Node.model_rebuild()
    node = {
        "properties": {
            "value": {"type": "integer"},
            "children": {"default": [], "items": {"$ref": "#/$defs/Node"}, "type": "array"},
        },
        "required": ["value"],
        "type": "object",
    }
    assert convert_to_openai_function(Node)["parameters"] == {
        **node,
        "$defs": {"Node": {"description": "A tree node.", **node}},
    }


def test_python_function_uses_its_google_docstring() -> None:
    def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
        """Get the weather.

        Uses a forecast service.

        Args:
            city: the city name
            unit: the temperature unit
        """
        return city

    assert convert_to_openai_tool(get_weather) == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the weather. Uses a forecast service.",
            "parameters": {
                "properties": {
                    "city": {"description": "the city name", "type": "string"},
                    "unit": {
                        "default": "c",
                        "description": "the temperature unit",
                        "enum": ["c", "f"],
                        "type": "string",
                    },
                },
                "required": ["city"],
                "type": "object",
            },
        },
    }


def test_typed_dict() -> None:
    class Lookup(TypedDict):
        """Look something up.

        Args:
            query: what to find
        """

        query: str
        limit: int

    assert convert_to_openai_function(Lookup) == {
        "name": "Lookup",
        "description": "Look something up.",
        "parameters": {
            "properties": {
                "query": {"description": "what to find", "type": "string"},
                "limit": {"type": "integer"},
            },
            "required": ["query", "limit"],
            "type": "object",
        },
    }


def test_single_input_tool_uses_arg1() -> None:
    calc = Tool("calc", lambda s: s, "Calculate.")
    assert convert_to_openai_function(calc)["parameters"] == {
        "properties": {"__arg1": {"title": "__arg1", "type": "string"}},
        "required": ["__arg1"],
        "type": "object",
    }


def test_tool_with_json_schema_args() -> None:
    schema = {
        "title": "ignored",
        "type": "object",
        "properties": {"q": {"title": "Q", "type": "string", "description": "query"}},
        "required": ["q"],
    }
    t = StructuredTool(name="find", description="Find.", args_schema=schema, func=lambda q: q)
    assert convert_to_openai_function(t) == {
        "name": "find",
        "description": "Find.",
        "parameters": {
            "type": "object",
            "properties": {"q": {"type": "string", "description": "query"}},
            "required": ["q"],
        },
    }
    assert schema["title"] == "ignored"


OPENAI_FUNCTION = {"name": "f", "description": "F.", "parameters": ADD_PARAMETERS}


@pytest.mark.parametrize(
    "given",
    [
        OPENAI_FUNCTION,
        {**OPENAI_FUNCTION, "extra": "dropped"},
        {"type": "function", "function": OPENAI_FUNCTION},
        {"name": "f", "description": "F.", "input_schema": ADD_PARAMETERS},
        {"title": "f", "description": "F.", **ADD_PARAMETERS},
    ],
)
def test_dicts_in_every_form(given: dict[str, Any]) -> None:
    assert convert_to_openai_function(given) == OPENAI_FUNCTION
    assert convert_to_openai_tool(given) == {"type": "function", "function": OPENAI_FUNCTION}
    assert convert_to_anthropic_tool(given) == {
        "name": "f",
        "description": "F.",
        "input_schema": ADD_PARAMETERS,
    }


def test_built_in_openai_tools_pass_through() -> None:
    assert convert_to_openai_tool({"type": "web_search_preview_2025_03_11"}) == {
        "type": "web_search_preview_2025_03_11"
    }
    assert convert_to_openai_tool({"type": "file_search", "vector_store_ids": ["v"]}) == {
        "type": "file_search",
        "vector_store_ids": ["v"],
    }


def test_strict_mismatch() -> None:
    with pytest.raises(ValueError) as info:
        convert_to_openai_function({**OPENAI_FUNCTION, "strict": True}, strict=False)
    assert str(info.value) == (
        "Tool/function strict value True does not match provided strict value False"
    )


def test_given_dicts_are_not_modified() -> None:
    given = {"name": "f", "description": "F.", "parameters": {"type": "object", "properties": {}}}
    convert_to_openai_tool(given, strict=True)
    assert given == {
        "name": "f",
        "description": "F.",
        "parameters": {"type": "object", "properties": {}},
    }


def test_unsupported() -> None:
    with pytest.raises(ValueError) as info:
        convert_to_openai_function({"nothing": 1})
    assert str(info.value) == (
        "Unsupported function\n\n{'nothing': 1}\n\nFunctions must be passed in as Dict, "
        "pydantic.BaseModel, or Callable. If they're a dict they must either be in OpenAI "
        "function format or valid JSON schema with top-level 'title' and 'description' keys."
    )


def test_anthropic_tool() -> None:
    assert convert_to_anthropic_tool(add) == {
        "name": "add",
        "description": "Add two numbers.",
        "input_schema": ADD_PARAMETERS,
    }
    assert convert_to_anthropic_tool(add, strict=True) == {
        "name": "add",
        "description": "Add two numbers.",
        "input_schema": {**ADD_PARAMETERS, "additionalProperties": False},
        "strict": True,
    }


def test_anthropic_tool_without_arguments_still_has_an_object_schema() -> None:
    @tool
    def now() -> str:
        """The time."""
        return "noon"

    assert convert_to_anthropic_tool(now) == {
        "name": "now",
        "description": "The time.",
        "input_schema": {"properties": {}, "type": "object"},
    }
    assert convert_to_anthropic_tool({"name": "x", "description": "X."}) == {
        "name": "x",
        "description": "X.",
        "input_schema": {"type": "object", "properties": {}},
    }
