"""`convert_runnable_to_tool`: a tool that invokes a runnable (LangChain's ``as_tool``).

It lives with the tools, not in `leanchain.runnables`: the runnables layer never imports
the tools layer (DESIGN §1).
"""

from __future__ import annotations

from typing import Any, get_type_hints

from pydantic import BaseModel

from leanchain.runnables import Runnable, RunnableConfig
from leanchain.tools._base import BaseTool
from leanchain.tools._simple import Tool
from leanchain.tools._structured import StructuredTool

__all__ = ["convert_runnable_to_tool"]

_UNTYPED = (
    "Tool input must be str or dict. If dict, dict arguments must be typed. Either annotate "
    "types (e.g., with TypedDict) or pass args_schema or arg_types to specify."
)


def _typed_fields(runnable: Runnable[Any, Any], arg_types: dict[str, Any] | None) -> dict[str, Any]:
    """The argument types: `arg_types`, or the type hints of a typed dict input."""
    if arg_types:
        return arg_types
    input_type = runnable.InputType
    try:
        hints = get_type_hints(input_type)
    except TypeError as exc:
        raise TypeError(f"{_UNTYPED} Got input type {input_type!r}.") from exc
    if not hints:
        # LangChain makes a tool without arguments here (a plain ``dict`` input); such a tool
        # can never pass the model's arguments on, so leanchain says so instead.
        raise TypeError(f"{_UNTYPED} Got input type {input_type!r}.")
    return hints


def convert_runnable_to_tool(
    runnable: Runnable[Any, Any],
    args_schema: type[BaseModel] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    arg_types: dict[str, Any] | None = None,
) -> BaseTool:
    """A tool whose call invokes `runnable` (``ainvoke`` for the async call), as LangChain's.

    The tool is a `StructuredTool` that invokes the runnable with the validated arguments as a
    dict: over `args_schema` when given; else over the runnable's input schema when that is an
    object with properties (a prompt's variables); else over `arg_types`, or the type hints of
    a typed-dict input. A runnable whose input schema is a string gives a single-input `Tool`.
    The runnable gets the tool's config (callbacks, tags, configurable), not only its callbacks.

    Args:
        runnable: what the tool runs.
        args_schema: the arguments, as a pydantic model.
        name: defaults to ``runnable.get_name()``.
        description: defaults to LangChain's ``"Takes {input JSON schema}."``.
        arg_types: argument name → type, for a dict input without a typed schema.

    Raises:
        TypeError: the input is neither a string nor a dict whose keys have known types.
    """
    if args_schema is not None:
        runnable = runnable.with_types(input_type=args_schema)
    input_schema = runnable.get_input_schema()
    schema = input_schema.model_json_schema()
    name = name or runnable.get_name()
    description = description or f"Takes {schema}."
    bound = runnable

    if schema.get("type") == "string":

        def invoke_text(text: str, config: RunnableConfig) -> Any:
            return bound.invoke(text, config)

        async def ainvoke_text(text: str, config: RunnableConfig) -> Any:
            return await bound.ainvoke(text, config)

        return Tool(name, invoke_text, description, coroutine=ainvoke_text)

    def invoke_args(config: RunnableConfig, **kwargs: Any) -> Any:
        return bound.invoke(kwargs, config)

    async def ainvoke_args(config: RunnableConfig, **kwargs: Any) -> Any:
        return await bound.ainvoke(kwargs, config)

    model: type[BaseModel]
    if arg_types is None and schema.get("type") == "object" and schema.get("properties"):
        model = input_schema
    else:
        # Imported here: it imports pydantic's RootModel and create_model, whose first import
        # builds schemas (and loads pydantic's plugins), a cost only this path needs.
        from leanchain.runnables.schema import object_schema

        fields = _typed_fields(runnable, arg_types)
        model = object_schema(name, fields)
    return StructuredTool(
        name=name,
        description=description,
        args_schema=model,
        func=invoke_args,
        coroutine=ainvoke_args,
        # The runnable gets the keys it knows: a prompt's schema aliases its fields.
        arg_names=tuple((field, info.alias or field) for field, info in model.model_fields.items()),
    )
