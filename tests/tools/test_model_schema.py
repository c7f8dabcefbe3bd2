"""A model class's JSON schema is generated once (`model_schema`), and every caller (a tool's
``args``, its OpenAI definition, a token count) gets a copy of its own to change."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from pydantic import BaseModel, Field, PydanticUserError

from leanchain._model_schema import model_schema
from leanchain.tools import StructuredTool, convert_to_openai_tool


class Point(BaseModel):
    x: int = Field(description="across")
    tags: list[str] = []


class Shape(BaseModel):
    """A shape."""

    corners: list[Point]
    name: str | None = None


class Counted(BaseModel):
    calls: int = 0

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        COUNT.append(1)
        return super().model_json_schema(*args, **kwargs)


COUNT: list[int] = []


def test_the_schema_is_pydantics() -> None:
    for model in (Point, Shape):
        assert model_schema(model) == model.model_json_schema()


def test_it_is_generated_once_per_class() -> None:
    COUNT.clear()
    first, second = model_schema(Counted), model_schema(Counted)
    assert (
        first
        == second
        == {
            "properties": {"calls": {"default": 0, "title": "Calls", "type": "integer"}},
            "title": "Counted",
            "type": "object",
        }
    )
    assert COUNT == [1]


def test_every_call_gets_its_own_copy() -> None:
    first = model_schema(Shape)
    first["properties"]["corners"]["items"]["$ref"] = "changed"
    first["$defs"]["Point"]["required"].append("y")
    first["title"] = "changed"
    assert model_schema(Shape) == Shape.model_json_schema()


def test_a_tools_args_and_definition_changed_by_a_caller_are_not_kept() -> None:
    def move(x: int) -> str:
        """Move."""
        return str(x)

    tool = StructuredTool.from_function(move, args_schema=Point)
    tool.args["x"]["type"] = "string"
    assert tool.args == {
        "x": {"description": "across", "title": "X", "type": "integer"},
        "tags": {"default": [], "items": {"type": "string"}, "title": "Tags", "type": "array"},
    }
    definition = convert_to_openai_tool(tool)
    definition["function"]["parameters"]["properties"].clear()
    assert convert_to_openai_tool(tool) == {
        "type": "function",
        "function": {
            "name": "move",
            "description": "Move.",
            "parameters": {
                "properties": {
                    "x": {"description": "across", "type": "integer"},
                    "tags": {"default": [], "items": {"type": "string"}, "type": "array"},
                },
                "required": ["x"],
                "type": "object",
            },
        },
    }


def test_a_class_not_yet_complete_raises_as_pydantic_does_and_is_not_remembered() -> None:
    class Later(BaseModel):
        box: Box  # (defined below: the class waits for `model_rebuild`)

    with pytest.raises(PydanticUserError, match="is not fully defined"):
        model_schema(Later)

    class Box(BaseModel):
        size: int

    Later.model_rebuild(_types_namespace={"Box": Box})
    assert model_schema(Later) == Later.model_json_schema()
    assert model_schema(Later)["properties"] == {"box": {"$ref": "#/$defs/Box"}}


def test_the_class_is_not_kept_alive() -> None:
    made = type("Made", (BaseModel,), {"__annotations__": {"v": int}})
    assert model_schema(made)["required"] == ["v"]
    ref = weakref.ref(made)
    del made
    gc.collect()
    assert ref() is None
