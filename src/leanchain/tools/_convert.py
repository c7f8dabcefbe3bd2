"""Tool definitions in the shapes the providers want: OpenAI function/tool and Anthropic tool.

Anything tool-like converts: a `BaseTool`, a pydantic model class (name = class name,
description = docstring), a `TypedDict` class, a typed Python function (Google-style docstring
for the descriptions), or a dict already in OpenAI, Anthropic or JSON-schema form.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from pydantic import BaseModel, TypeAdapter
from typing_extensions import is_typeddict

from leanchain._model_schema import model_schema
from leanchain.tools._base import BaseTool, single_input_parameters
from leanchain.tools._docstring import parse_google_docstring
from leanchain.tools._jsonschema import dereference_refs, remove_titles, to_strict
from leanchain.tools._schema import create_schema_from_function

__all__ = [
    "ToolLike",
    "convert_to_anthropic_tool",
    "convert_to_openai_function",
    "convert_to_openai_tool",
]

ToolLike: TypeAlias = BaseTool | type[BaseModel] | Callable[..., Any] | Mapping[str, Any]
"""What the converters accept (a `TypedDict` class is a callable type, so it is included)."""

_BUILT_IN_OPENAI_TOOLS = frozenset(
    {
        "file_search",
        "computer_use_preview",
        "code_interpreter",
        "mcp",
        "image_generation",
        "web_search",
        "web_search_preview",
        "custom",
    }
)
_OPENAI_FUNCTION_KEYS = ("name", "description", "parameters", "strict")


def _unsupported(function: object) -> ValueError:
    return ValueError(
        f"Unsupported function\n\n{function}\n\nFunctions must be passed in as Dict, "
        "pydantic.BaseModel, or Callable. If they're a dict they must either be in OpenAI "
        "function format or valid JSON schema with top-level 'title' and 'description' keys."
    )


def _from_json_schema(
    schema: Mapping[str, Any], name: str | None, description: str | None
) -> dict[str, Any]:
    """A function from a whole JSON schema: refs inlined, titles dropped."""
    body = dereference_refs(dict(schema))
    title = body.pop("title", "")
    default_description = body.pop("description", "")
    return {
        "name": name or title,
        "description": description or default_description,
        "parameters": remove_titles(body),
    }


def _from_model(
    model: type[BaseModel], name: str | None = None, description: str | None = None
) -> dict[str, Any]:
    return _from_json_schema(model_schema(model), name, description)


def _from_typed_dict(typed_dict: type[Any]) -> dict[str, Any]:
    schema = TypeAdapter(typed_dict).json_schema()
    description, arg_descriptions = parse_google_docstring(
        inspect.getdoc(typed_dict) if typed_dict.__doc__ else None, [], error_on_invalid=False
    )
    for field, text in arg_descriptions.items():
        prop = schema.get("properties", {}).get(field)
        if isinstance(prop, dict) and "description" not in prop:
            prop["description"] = text
    return _from_json_schema(schema, typed_dict.__name__, description)


def _from_tool(tool: BaseTool) -> dict[str, Any]:
    schema = tool._visible_schema()
    if schema is None:
        return {
            "name": tool.name,
            "description": tool.description,
            "parameters": single_input_parameters(),
        }
    if isinstance(schema, dict):
        return _from_json_schema(schema, tool.name, tool.description)
    return _from_model(schema, tool.name, tool.description)


def _from_function(function: Callable[..., Any]) -> dict[str, Any]:
    name = getattr(function, "__name__", None) or type(function).__name__
    model, _ = create_schema_from_function(name, function, parse_docstring=True)
    return _from_model(model, name, model.__doc__)


def _from_dict(function: Mapping[str, Any]) -> dict[str, Any]:
    if "name" in function and "input_schema" in function:
        converted = {"name": function["name"], "parameters": function["input_schema"]}
        if "description" in function:
            converted["description"] = function["description"]
        return converted
    if function.get("type") == "function" and isinstance(function.get("function"), Mapping):
        return _from_dict(function["function"])
    if "name" in function:
        return {k: v for k, v in function.items() if k in _OPENAI_FUNCTION_KEYS}
    if "title" in function:
        rest = dict(function)
        converted = {"name": rest.pop("title")}
        if "description" in rest:
            converted["description"] = rest.pop("description")
        if rest and "properties" in rest:
            converted["parameters"] = rest
        return converted
    raise _unsupported(function)


def convert_to_openai_function(function: ToolLike, *, strict: bool | None = None) -> dict[str, Any]:
    """``{"name", "description", "parameters"}`` for OpenAI, from anything tool-like.

    Args:
        function: a tool, a pydantic model class, a TypedDict class, a typed function, or a
            dict in OpenAI (function or tool), Anthropic or JSON-schema form.
        strict: ``True`` adds ``"strict": true`` and rewrites the parameters for OpenAI's
            strict mode (``additionalProperties: false`` and every property required, at
            every level); ``False`` adds ``"strict": false``; ``None`` leaves it out.

    Raises:
        ValueError: `function` is none of the above, or it says ``strict`` differently.
    """
    if isinstance(function, BaseTool):
        converted = _from_tool(function)
    elif isinstance(function, Mapping):
        converted = _from_dict(function)
    elif isinstance(function, type) and issubclass(function, BaseModel):
        converted = _from_model(function)
    elif isinstance(function, type) and is_typeddict(function):
        converted = _from_typed_dict(function)
    elif callable(function):
        converted = _from_function(function)
    else:
        raise _unsupported(function)
    if strict is not None:
        if "strict" in converted and converted["strict"] != strict:
            raise ValueError(
                f"Tool/function strict value {converted['strict']} does not match provided "
                f"strict value {strict}"
            )
        converted["strict"] = strict
        if strict and "parameters" in converted:
            converted["parameters"] = to_strict(converted["parameters"])
    return converted


def convert_to_openai_tool(tool: ToolLike, *, strict: bool | None = None) -> dict[str, Any]:
    """``{"type": "function", "function": {...}}`` for OpenAI, from anything tool-like.

    A dict that is one of OpenAI's built-in tools (``file_search``, ``web_search``, ...)
    passes through unchanged. See `convert_to_openai_function` for `strict`.
    """
    if isinstance(tool, Mapping):
        kind = tool.get("type")
        if isinstance(kind, str) and (
            kind in _BUILT_IN_OPENAI_TOOLS or kind.startswith("web_search_preview")
        ):
            return dict(tool)
    return {"type": "function", "function": convert_to_openai_function(tool, strict=strict)}


def convert_to_anthropic_tool(tool: ToolLike, *, strict: bool | None = None) -> dict[str, Any]:
    """``{"name", "description", "input_schema"}`` for Anthropic, from anything tool-like.

    With ``strict=True`` the schema is rewritten as for OpenAI's strict mode and the tool
    gets ``"strict": true`` (Anthropic's guaranteed schema validation).
    """
    if isinstance(tool, Mapping) and "name" in tool and "input_schema" in tool:
        converted = dict(tool)
        if strict:
            converted["input_schema"] = to_strict(converted["input_schema"])
            converted["strict"] = True
        return converted
    function = convert_to_openai_function(tool, strict=strict or None)
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    converted = {"name": function["name"]}
    if "description" in function:
        converted["description"] = function["description"]
    converted["input_schema"] = parameters
    if function.get("strict"):
        converted["strict"] = True
    return converted
