"""leanchain messages to an OpenAI Chat Completions request (provider-wire.md §5.1).

One dict per message, in place; AI tool calls with JSON-string ``arguments`` and ``content:
null`` when there is no text (never null without tool calls); one ``tool`` message per result.
Tools, ``tool_choice`` and the ``json_schema`` ``response_format`` are written in OpenAI's form
too.

The tool calls are spelled by `leanchain.messages`' own `openai_tool_calls`; the rest of the
walk stays here because the wire rules differ from `convert_to_openai_messages` on purpose:
null content beside tool calls, system lists as text parts, AI text joined with ``""``, and
blocks the API may know passed on instead of rejected.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from leanchain.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    openai_tool_calls,
)
from leanchain.tools import convert_to_openai_function, convert_to_openai_tool

from ._content import read_image, text_blocks

__all__ = [
    "openai_response_format",
    "openai_tool_choice",
    "openai_tools",
    "to_openai_messages",
]

_CHOICE_WORDS: Final = {"auto": "auto", "none": "none", "required": "required", "any": "required"}


def to_openai_messages(
    messages: Sequence[BaseMessage], *, tool_call_content: str | None = None
) -> list[dict[str, Any]]:
    """The ``messages`` parameter for `messages`.

    Args:
        messages: the conversation, oldest first.
        tool_call_content: the ``content`` of an AI message that has tool calls but no text:
            ``None`` (JSON null, the OpenAI spec) or ``""`` (for servers such as Ollama).

    Raises:
        TypeError: a message kind the Chat Completions API has no role for.
    """
    return [_message(message, tool_call_content) for message in messages]


_ROLE_KEY: Final = "__openai_role__"


def _message(message: BaseMessage, tool_call_content: str | None) -> dict[str, Any]:
    if isinstance(message, AIMessage):
        result = _assistant(message, tool_call_content)
    elif isinstance(message, ToolMessage):
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id,
            "content": _tool_content(message.content),
        }
    elif isinstance(message, HumanMessage):
        result = {"role": "user", "content": _user_content(message.content)}
    elif isinstance(message, SystemMessage):
        # "developer" only when the message asks for it (a ("developer", ...) tuple marks it):
        # many compatible servers reject the role (provider-wire.md, pitfall 22).
        role = "developer" if message.additional_kwargs.get(_ROLE_KEY) == "developer" else "system"
        result = {"role": role, "content": _text_content(message.content)}
    elif isinstance(message, ChatMessage):
        result = {"role": message.role, "content": _user_content(message.content)}
    elif isinstance(message, FunctionMessage):
        return {"role": "function", "name": message.name, "content": message.text}
    else:
        raise TypeError(f"ChatOpenAI cannot send a {type(message).__name__}: {message!r}")
    if message.name:
        result["name"] = message.name
    return result


def _assistant(message: AIMessage, tool_call_content: str | None) -> dict[str, Any]:
    text = "".join(text_blocks(message.content))
    calls = openai_tool_calls(message)
    if not calls:
        return {"role": "assistant", "content": text}
    content: str | None = text or tool_call_content
    return {"role": "assistant", "content": content, "tool_calls": calls}


def _text_content(content: str | list[Any]) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    return [{"type": "text", "text": text} for text in text_blocks(content)]


def _user_content(content: str | list[Any]) -> str | list[dict[str, Any]]:
    return _parts(content, _user_part)


def _tool_content(content: str | list[Any]) -> str | list[dict[str, Any]]:
    return _parts(content, _json_text)  # a tool message takes text only


def _parts(
    content: str | list[Any], other: Callable[[Any], dict[str, Any]]
) -> str | list[dict[str, Any]]:
    """`content` as the API's parts: text as text, any other block as ``other`` makes it."""
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, str):
            parts.append({"type": "text", "text": block})
        elif block.get("type") == "text":
            parts.append({"type": "text", "text": block.get("text", "")})
        else:
            parts.append(other(block))
    return parts


def _user_part(block: Any) -> dict[str, Any]:
    image = read_image(block)
    if image is None:
        return dict(block)  # input_audio, file, ...: the API's own forms
    url: dict[str, Any] = {"url": image.data_url}
    detail = block.get("detail") or (block.get("image_url") or {}).get("detail")
    if detail:
        url["detail"] = detail
    return {"type": "image_url", "image_url": url}


def _json_text(block: Any) -> dict[str, Any]:
    return {"type": "text", "text": json.dumps(block, ensure_ascii=False)}


def openai_tools(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """Tool definitions in OpenAI's form; definitions already in it pass unchanged."""
    return [
        tool
        if isinstance(tool, dict) and tool.get("type") == "function" and "function" in tool
        else convert_to_openai_tool(tool)
        for tool in tools
    ]


def openai_tool_choice(
    choice: Any, tools: Sequence[Mapping[str, Any]]
) -> str | dict[str, Any] | None:
    """OpenAI's ``tool_choice`` for any leanchain form of it; ``None`` to send none.

    A bound tool's name, ``"auto"``, ``"none"``, ``"required"`` or ``"any"`` (= required),
    ``True`` (= required), or a dict passed as is. ``None`` and ``False`` send no
    ``tool_choice`` (the model may call a tool or not), as LangChain does.

    Raises:
        ValueError: a name, or a dict's function name, that no tool in `tools` has.
        TypeError: anything else.
    """
    if choice is None or choice is False:
        return None
    if choice is True:
        return "required"
    if isinstance(choice, str):
        names = _names(tools)
        if choice in names:
            return {"type": "function", "function": {"name": choice}}
        word = _CHOICE_WORDS.get(choice)
        if word is not None:
            return word
        raise ValueError(
            f"tool_choice {choice!r} is neither 'auto', 'none', 'required', 'any' nor the "
            f"name of a bound tool; the tools are {names}"
        )
    if isinstance(choice, Mapping):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, Mapping) else None
        if choice.get("type") == "function" and name not in _names(tools):
            raise ValueError(
                f"tool_choice names the tool {name!r}, but the tools are {_names(tools)}"
            )
        return dict(choice)
    raise TypeError(f"tool_choice must be a str, bool or dict, got {choice!r}")


def _names(tools: Sequence[Mapping[str, Any]]) -> list[str]:
    names = []
    for tool in tools:
        function = tool.get("function")
        name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
        if isinstance(name, str):
            names.append(name)
    return names


def openai_response_format(
    schema: Any, *, strict: bool | None = None
) -> tuple[str, dict[str, Any]]:
    """The schema's name and ``{"response_format": {"type": "json_schema", ...}}`` for it.

    `schema` is a pydantic model class, a TypedDict class or a JSON schema dict (named by its
    ``title``); its name and description come out as for a tool. A ready-made response format
    (``{"type": "json_schema", "json_schema": {...}}``, or just its ``{"name", "schema"}``
    part) is sent as it is.

    Args:
        schema: what the reply must fit.
        strict: ``True`` asks for OpenAI's strict schema adherence, with the schema rewritten
            to its rules (``additionalProperties: false`` and every property required, at
            every level); ``False`` sends ``"strict": false``; ``None`` leaves it out.

    Raises:
        ValueError: `schema` cannot be converted, or `strict` is given with a ready-made
            response format.
    """
    ready = _ready_made(schema)
    if ready is not None:
        if strict is not None:
            raise ValueError(
                "strict is not applied to a ready-made response_format: set "
                "json_schema['strict'] in it instead"
            )
        return str(ready["json_schema"].get("name", "json_schema")), {"response_format": ready}
    function = convert_to_openai_function(schema, strict=strict)
    json_schema: dict[str, Any] = {"name": function["name"]}
    if function.get("description"):
        json_schema["description"] = function["description"]
    json_schema["schema"] = function.get("parameters", {"type": "object", "properties": {}})
    if strict is not None:
        json_schema["strict"] = strict
    return function["name"], {
        "response_format": {"type": "json_schema", "json_schema": json_schema}
    }


def _ready_made(schema: Any) -> dict[str, Any] | None:
    """`schema` as a whole ``json_schema`` response format, if it already is (part of) one."""
    if not isinstance(schema, Mapping):
        return None
    if schema.get("type") == "json_schema" and isinstance(schema.get("json_schema"), Mapping):
        return dict(schema)
    if isinstance(schema.get("name"), str) and isinstance(schema.get("schema"), Mapping):
        return {"type": "json_schema", "json_schema": dict(schema)}
    return None
