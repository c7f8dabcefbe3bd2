"""Argument schemas inferred from signatures and docstrings (exact JSON schemas)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from leanchain.runnables import RunnableConfig
from leanchain.tools import StructuredTool, create_schema_from_function, tool


class Address(BaseModel):
    """A postal address."""

    street: str = Field(description="street name")
    zip: str | None = None


def _schema(func: Any, **options: Any) -> dict[str, Any]:
    model, _ = create_schema_from_function(func.__name__, func, **options)
    return model.model_json_schema()


def test_langchain_reference_schema() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    assert isinstance(add.args_schema, type)
    assert add.args_schema.model_json_schema() == {
        "description": "Add two numbers.",
        "properties": {
            "a": {"title": "A", "type": "integer"},
            "b": {"title": "B", "type": "integer"},
        },
        "required": ["a", "b"],
        "title": "add",
        "type": "object",
    }


def test_defaults_optional_lists_literal_and_nested_models() -> None:
    def shape(
        name: str,
        count: int = 3,
        note: str | None = None,
        tags: list[str] | None = None,
        mode: Literal["fast", "slow"] = "fast",
        home: Address | None = None,
        scores: dict[str, float] | None = None,
    ) -> None:
        """Shapes."""

    assert _schema(shape) == {
        "$defs": {
            "Address": {
                "description": "A postal address.",
                "properties": {
                    "street": {"description": "street name", "title": "Street", "type": "string"},
                    "zip": {
                        "anyOf": [{"type": "string"}, {"type": "null"}],
                        "default": None,
                        "title": "Zip",
                    },
                },
                "required": ["street"],
                "title": "Address",
                "type": "object",
            }
        },
        "description": "Shapes.",
        "properties": {
            "name": {"title": "Name", "type": "string"},
            "count": {"default": 3, "title": "Count", "type": "integer"},
            "note": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "default": None,
                "title": "Note",
            },
            "tags": {
                "anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}],
                "default": None,
                "title": "Tags",
            },
            "mode": {
                "default": "fast",
                "enum": ["fast", "slow"],
                "title": "Mode",
                "type": "string",
            },
            "home": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": None},
            "scores": {
                "anyOf": [
                    {"additionalProperties": {"type": "number"}, "type": "object"},
                    {"type": "null"},
                ],
                "default": None,
                "title": "Scores",
            },
        },
        "required": ["name"],
        "title": "shape",
        "type": "object",
    }


def test_injected_and_variadic_parameters_are_left_out() -> None:
    def busy(
        q: str,
        *args: Any,
        config: RunnableConfig,
        callbacks: Any = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> None:
        """Busy."""

    assert _schema(busy) == {
        "description": "Busy.",
        "properties": {"q": {"title": "Q", "type": "string"}},
        "required": ["q"],
        "title": "busy",
        "type": "object",
    }


def test_unannotated_parameters_accept_anything() -> None:
    def loose(x, y=1):  # type: ignore[no-untyped-def]
        """Loose."""

    assert _schema(loose)["properties"] == {"x": {"title": "X"}, "y": {"default": 1, "title": "Y"}}


def test_annotated_string_metadata_is_the_description() -> None:
    def ann(city: Annotated[str, "the city name"], days: Annotated[int, Field(ge=1)] = 1) -> None:
        """Forecast."""

    assert _schema(ann)["properties"] == {
        "city": {"description": "the city name", "title": "City", "type": "string"},
        "days": {"default": 1, "minimum": 1, "title": "Days", "type": "integer"},
    }


def test_whole_docstring_is_the_description_without_parse_docstring() -> None:
    @tool
    def search(query: str) -> str:
        """Search the web.

        Use it for current events.

        Args:
            query: what to look for
        """
        return query

    assert search.description == (
        "Search the web.\n\nUse it for current events.\n\nArgs:\n    query: what to look for"
    )
    assert search.args == {"query": {"title": "Query", "type": "string"}}


def test_parse_docstring_gives_description_and_argument_descriptions() -> None:
    @tool(parse_docstring=True)
    def do(a: int, b: str = "x") -> str:
        """Do a thing.

        Longer description here.

        Args:
            a: the first
                argument, continued: with a colon.
            b (str): the second

        Returns:
            a result
        """
        return b * a

    assert do.description == "Do a thing. Longer description here."
    assert isinstance(do.args_schema, type)
    assert do.args_schema.model_json_schema() == {
        "description": "Do a thing. Longer description here.",
        "properties": {
            "a": {
                "description": "the first argument, continued: with a colon.",
                "title": "A",
                "type": "integer",
            },
            "b": {"default": "x", "description": "the second", "title": "B", "type": "string"},
        },
        "required": ["a"],
        "title": "do",
        "type": "object",
    }


def test_parse_docstring_rejects_a_docstring_without_args() -> None:
    with pytest.raises(ValueError) as info:

        @tool(parse_docstring=True)
        def bare(a: int) -> int:
            """Just a summary."""
            return a

    assert str(info.value) == "Found invalid Google-Style docstring."


def test_parse_docstring_can_tolerate_a_docstring_without_args() -> None:
    @tool(parse_docstring=True, error_on_invalid_docstring=False)
    def bare(a: int) -> int:
        """Just a summary."""
        return a

    assert bare.description == "Just a summary."
    assert bare.args == {"a": {"title": "A", "type": "integer"}}


def test_from_function_does_not_reject_invalid_docstrings_by_default() -> None:
    def bare(a: int) -> int:
        """Just a summary."""
        return a

    assert StructuredTool.from_function(bare, parse_docstring=True).description == (
        "Just a summary."
    )


def test_parse_docstring_rejects_documented_arguments_the_function_lacks() -> None:
    with pytest.raises(ValueError) as info:

        @tool(parse_docstring=True)
        def mismatch(a: int) -> int:
            """Summary.

            Args:
                a: the a
                c: not a parameter
            """
            return a

    assert str(info.value) == "Arg c in docstring not found in function signature."


def test_function_without_arguments_needs_no_args_section() -> None:
    @tool(parse_docstring=True)
    def now() -> str:
        """The current time."""
        return "noon"

    assert now.description == "The current time."


def test_missing_docstring_and_description() -> None:
    def nodoc(a: int) -> int:
        return a

    with pytest.raises(ValueError) as info:
        tool(nodoc)
    assert str(info.value) == "Function must have a docstring if description not provided."
    assert tool(nodoc, description="Given.").description == "Given."


def test_explicit_schema_docstring_is_the_fallback_description() -> None:
    class Args(BaseModel):
        """Look up a city."""

        city: str

    def lookup(city: str) -> str:
        return city

    t = tool(lookup, args_schema=Args)
    assert t.description == "Look up a city."
    assert t.args_schema is Args


def test_json_schema_dict_description_is_the_fallback_description() -> None:
    def raw(**kwargs: Any) -> Any:
        return kwargs

    schema = {"description": "Raw tool.", "type": "object", "properties": {"a": {"type": "string"}}}
    t = StructuredTool.from_function(raw, args_schema=schema)
    assert (t.description, t.args) == ("Raw tool.", {"a": {"type": "string"}})


def test_methods_leave_out_self() -> None:
    class Box:
        def put(self, item: str) -> str:
            """Put it in."""
            return item

    assert list(_schema(Box.put)["properties"]) == ["item"]
    assert tool(Box().put).invoke({"item": "x"}) == "x"


def test_unresolvable_type_hints_fail_clearly() -> None:
    def bad(x: NotAType) -> None:  # type: ignore[name-defined]  # noqa: F821
        """Bad."""

    with pytest.raises(TypeError) as info:
        create_schema_from_function("bad", bad)
    assert str(info.value).startswith(
        "Cannot build an argument schema for "
        "test_unresolvable_type_hints_fail_clearly.<locals>.bad: its type hints cannot be resolved"
    )
