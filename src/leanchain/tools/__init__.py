"""Tools: functions a model can call by name, their schemas, and their provider formats.

``@tool`` makes a `StructuredTool` of a typed function; `Tool` wraps a function of one
string; subclass `BaseTool` for anything else. `convert_to_openai_tool` and
`convert_to_anthropic_tool` give the definitions the providers expect, and
`render_text_description` the text that ReAct-style prompts show. Arguments annotated with
`InjectedToolArg` (or `InjectedToolCallId`) are filled in by the caller, never by the model.
`convert_runnable_to_tool` makes a tool of any runnable (LangChain's ``Runnable.as_tool``),
`create_retriever_tool` one of a retriever.
"""

from __future__ import annotations

from leanchain.errors import ToolException, ToolInputValidationError
from leanchain.tools._base import ArgsSchema, BaseTool, ResponseFormat, ToolInput
from leanchain.tools._convert import (
    ToolLike,
    convert_to_anthropic_tool,
    convert_to_openai_function,
    convert_to_openai_tool,
)
from leanchain.tools._decorator import tool
from leanchain.tools._from_runnable import convert_runnable_to_tool
from leanchain.tools._injected import InjectedToolArg, InjectedToolCallId
from leanchain.tools._output import handle_tool_error
from leanchain.tools._render import render_text_description, render_text_description_and_args
from leanchain.tools._retriever import RetrieverInput, create_retriever_tool
from leanchain.tools._schema import create_schema_from_function
from leanchain.tools._simple import Tool
from leanchain.tools._structured import StructuredTool

__all__ = [
    "ArgsSchema",
    "BaseTool",
    "InjectedToolArg",
    "InjectedToolCallId",
    "ResponseFormat",
    "RetrieverInput",
    "StructuredTool",
    "Tool",
    "ToolException",
    "ToolInput",
    "ToolInputValidationError",
    "ToolLike",
    "convert_runnable_to_tool",
    "convert_to_anthropic_tool",
    "convert_to_openai_function",
    "convert_to_openai_tool",
    "create_retriever_tool",
    "create_schema_from_function",
    "handle_tool_error",
    "render_text_description",
    "render_text_description_and_args",
    "tool",
]
