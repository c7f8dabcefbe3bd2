"""leanchain messages to an Anthropic Messages request (provider-wire.md §5.3).

One normaliser: system messages are hoisted into ``system``; AI messages become assistant turns
of text then ``tool_use`` blocks (ids kept, made safe for the API); tool results become
``tool_result`` blocks; empty text is dropped; consecutive turns of one role merge, and in a user
turn the tool results come first, so that every ``tool_use`` is answered by the very next
message. Tools and ``tool_choice`` are written in Anthropic's form too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from leanchain.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from leanchain.tools import convert_to_anthropic_tool

from ._content import read_image

__all__ = ["anthropic_tool_choice", "anthropic_tools", "safe_id", "to_anthropic_messages"]

_UNSAFE_ID: Final = re.compile(r"[^A-Za-z0-9_-]")
_KEEP_BLOCKS: Final = frozenset({"thinking", "redacted_thinking"})


def to_anthropic_messages(
    messages: Sequence[BaseMessage],
) -> tuple[str | list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """The ``system`` and ``messages`` parameters for `messages`.

    Raises:
        ValueError: no message is left besides system ones, or the first is not a user turn.
        TypeError: a message kind the Messages API has no role for.
    """
    system: list[dict[str, Any]] = []
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            system.extend(_text_content(message.content))
            continue
        role, blocks = _turn(message)
        if not blocks:
            continue
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    if not turns:
        raise ValueError("Anthropic needs at least one user message besides system messages")
    if turns[0][0] != "user":
        raise ValueError(
            "Anthropic needs the first message after the system messages to be a user "
            f"message, got an {turns[0][0]} message"
        )
    wire = [{"role": role, "content": _compact(role, blocks)} for role, blocks in turns]
    return _system(system), wire


def _system(blocks: list[dict[str, Any]]) -> str | list[dict[str, Any]] | None:
    if not blocks:
        return None
    if len(blocks) == 1 and blocks[0].keys() == {"type", "text"}:
        return str(blocks[0]["text"])
    return blocks


def _compact(role: str, blocks: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    if len(blocks) == 1 and blocks[0].keys() == {"type", "text"}:
        return str(blocks[0]["text"])
    if role == "user" and any(block.get("type") == "tool_result" for block in blocks):
        # Results first: the API wants them straight after the tool_use turn.
        results = [block for block in blocks if block.get("type") == "tool_result"]
        return results + [block for block in blocks if block.get("type") != "tool_result"]
    return blocks


def _turn(message: BaseMessage) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(message, AIMessage):
        return "assistant", _assistant_blocks(message)
    if isinstance(message, ToolMessage):
        return "user", [_tool_result(message)]
    if isinstance(message, HumanMessage):
        return "user", _user_blocks(message.content)
    if isinstance(message, ChatMessage) and message.role in ("user", "assistant"):
        return message.role, _user_blocks(message.content)
    raise TypeError(f"ChatAnthropic cannot send a {type(message).__name__}: {message!r}")


def safe_id(call_id: str | None) -> str:
    """A tool-call id the API accepts (letters, digits, ``_`` and ``-``), the same every time."""
    if not call_id:
        return "toolu_missing"
    return _UNSAFE_ID.sub("_", call_id)


def _text_content(content: str | list[Any]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, str):
            if block:
                blocks.append({"type": "text", "text": block})
        elif block.get("type") == "text" and block.get("text"):
            blocks.append(
                {k: v for k, v in block.items() if k in ("type", "text", "cache_control")}
            )
    return blocks


def _user_blocks(content: str | list[Any]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, str) or block.get("type") == "text":
            blocks.extend(_text_content([block]))
            continue
        image = read_image(block)
        if image is None:
            blocks.append(dict(block))  # document, search_result, ...: the API's own forms
        elif image.url is not None:
            blocks.append({"type": "image", "source": {"type": "url", "url": image.url}})
        else:
            source = {"type": "base64", "media_type": image.mime_type, "data": image.data}
            blocks.append({"type": "image", "source": source})
    return blocks


def _tool_result(message: ToolMessage) -> dict[str, Any]:
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": safe_id(message.tool_call_id)}
    content = message.content
    if isinstance(content, str):
        if content:
            result["content"] = content
    else:
        blocks = _user_blocks(content)
        if blocks:
            result["content"] = blocks
    if message.status == "error":
        result["is_error"] = True
    return result


def _assistant_blocks(message: AIMessage) -> list[dict[str, Any]]:
    calls: dict[str, dict[str, Any]] = {}
    for call in message.tool_calls:
        calls[safe_id(call["id"])] = _tool_use(call["id"], call["name"], call["args"])
    for bad in message.invalid_tool_calls:
        calls[safe_id(bad["id"])] = _tool_use(bad["id"], bad["name"], _partial_args(bad["args"]))
    content = message.content
    if isinstance(content, str):
        blocks = [{"type": "text", "text": content}] if content else []
        return blocks + list(calls.values())
    blocks = []
    for block in content:
        if isinstance(block, str) or block.get("type") == "text":
            blocks.extend(_text_content([block]))
        elif block.get("type") == "tool_use":
            # Rebuilt from the message's calls: SDK dumps carry fields the API rejects.
            key = safe_id(block.get("id"))
            rebuilt = calls.pop(key, None)
            blocks.append(rebuilt or _tool_use(block.get("id"), block["name"], block["input"]))
        elif block.get("type") in _KEEP_BLOCKS:
            blocks.append(dict(block))  # extended thinking goes back unchanged, signature too
    return blocks + list(calls.values())


def _tool_use(call_id: str | None, name: str | None, args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": safe_id(call_id), "name": name or "", "input": args}


def _partial_args(args: str | None) -> dict[str, Any]:
    try:
        value = json.loads(args or "{}")
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def anthropic_tools(tools: Sequence[Any], *, strict: bool | None = None) -> list[dict[str, Any]]:
    """Tool definitions in Anthropic's form; server tools (``web_search_...``) pass unchanged.

    Args:
        tools: tools, pydantic models, TypedDicts, functions, or dicts in Anthropic, OpenAI or
            JSON-schema form.
        strict: as for `convert_to_anthropic_tool`.
    """
    return [
        tool if _server_tool(tool) else convert_to_anthropic_tool(tool, strict=strict)
        for tool in tools
    ]


def _server_tool(tool: Any) -> bool:
    kind = tool.get("type") if isinstance(tool, dict) else None
    return (
        isinstance(kind, str)
        and kind not in ("function", "object", "custom")
        and "input_schema" not in tool
    )


def anthropic_tool_choice(
    choice: Any, tools: Sequence[Mapping[str, Any]], parallel: bool | None
) -> dict[str, Any] | None:
    """Anthropic's ``tool_choice`` for any leanchain form of it, or ``None`` to send none.

    A bound tool's name, ``"auto"``, ``"none"``, ``"any"``/``"required"``, ``True`` (= any),
    or a dict (Anthropic's form, or OpenAI's named form); ``None`` and ``False`` send none
    (as LangChain). ``parallel=False`` adds ``disable_parallel_tool_use`` (with ``auto`` when
    no choice is given).

    Raises:
        ValueError: a name that no tool in `tools` has.
        TypeError: anything else.
    """
    result: dict[str, Any]
    names = [tool.get("name") for tool in tools]
    if choice is None or choice is False:
        if parallel is not False:
            return None
        result = {"type": "auto"}
    elif choice is True or choice in ("any", "required"):
        result = {"type": "any"}
    elif choice == "none":
        return {"type": "none"}
    elif isinstance(choice, str) and choice in names:
        result = {"type": "tool", "name": choice}
    elif choice == "auto":
        result = {"type": "auto"}
    elif isinstance(choice, str):
        raise ValueError(
            f"tool_choice {choice!r} is neither 'auto', 'none', 'any', 'required' nor the name "
            f"of a bound tool; the tools are {names}"
        )
    elif isinstance(choice, Mapping):
        function = choice.get("function")
        if choice.get("type") == "function" and isinstance(function, Mapping):
            result = {"type": "tool", "name": function.get("name")}
        else:
            result = dict(choice)
        if result.get("type") == "tool" and result.get("name") not in names:
            raise ValueError(
                f"tool_choice names the tool {result.get('name')!r}, but the tools are {names}"
            )
    else:
        raise TypeError(f"tool_choice must be a str, bool or dict, got {choice!r}")
    if parallel is False:
        result["disable_parallel_tool_use"] = True
    return result
