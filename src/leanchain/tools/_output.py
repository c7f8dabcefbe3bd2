"""What a tool run returns: handled errors as observations, and `ToolMessage`s for tool calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from leanchain.messages import ToolMessage, content_text

__all__ = [
    "ErrorHandler",
    "check_handler",
    "format_output",
    "handle_tool_error",
    "handle_validation_error",
    "split_artifact",
]

ErrorHandler: TypeAlias = bool | str | Callable[[Exception], Any] | None
"""``False``/``None`` re-raises; ``True`` gives a default text; a str is the text; a callable
maps the exception to the observation."""

_BLOCK_TYPES = frozenset(
    {
        "text",
        "image_url",
        "image",
        "json",
        "search_result",
        "custom_tool_call_output",
        "document",
        "file",
    }
)


def check_handler(setting: str, value: object) -> None:
    """Fail at construction for a handler setting that is not bool, str or callable."""
    if value is None or isinstance(value, (bool, str)) or callable(value):
        return
    raise TypeError(
        f"Got unexpected type of `{setting}`. Expected bool, str or callable. Received: {value}"
    )


def _apply(setting: str, flag: ErrorHandler, exc: Exception, default: Any) -> Any:
    if isinstance(flag, bool):
        return default
    if isinstance(flag, str):
        return flag
    if callable(flag):
        return flag(exc)
    raise ValueError(
        f"Got unexpected type of `{setting}`. Expected bool, str or callable. Received: {flag}"
    )


def handle_tool_error(exc: Exception, flag: ErrorHandler) -> Any:
    """The observation for a handled `ToolException` (``True``: its message)."""
    default = exc.args[0] if exc.args else "Tool execution error"
    return _apply("handle_tool_error", flag, exc, default)


def handle_validation_error(exc: Exception, flag: ErrorHandler) -> Any:
    """The observation for handled invalid arguments (``True``: a fixed text)."""
    return _apply("handle_validation_error", flag, exc, "Tool input validation error")


def split_artifact(response: Any) -> tuple[Any, Any]:
    """``(content, artifact)`` from a ``content_and_artifact`` tool's return value.

    Raises:
        ValueError: the tool did not return a two-tuple.
    """
    if isinstance(response, tuple) and len(response) == 2:
        return response[0], response[1]
    raise ValueError(
        "Since response_format='content_and_artifact' a two-tuple of the message content and "
        "raw tool output is expected. Instead, generated response is of type: "
        f"{type(response)}."
    )


def _is_block(item: Any) -> bool:
    return isinstance(item, str) or (isinstance(item, dict) and item.get("type") in _BLOCK_TYPES)


def _message_content(content: Any) -> str | list[Any]:
    # `content_text`: lone surrogates become U+FFFD, and a value no text can carry (an int of
    # 5,000 digits, nesting 5,000 deep) becomes a sentence saying so: the model gets a
    # readable observation, and sending it cannot fail.
    if isinstance(content, (list, tuple)) and all(_is_block(item) for item in content):
        return list(content)
    return content_text(content)


def format_output(
    content: Any, artifact: Any, tool_call_id: str | None, name: str, status: str
) -> Any:
    """The tool's result: `content` itself, or a `ToolMessage` when it answers a tool call.

    A tool that returns a `ToolMessage` itself, or a non-empty list of them (LangChain's
    "tool output" values), gets it back unchanged. For a tool call, content that is not text
    or a list of content blocks is JSON-encoded (``str()`` as a last resort).
    """
    if tool_call_id is None or isinstance(content, ToolMessage):
        return content
    if isinstance(content, list) and content and all(isinstance(m, ToolMessage) for m in content):
        return content
    return ToolMessage(
        _message_content(content),
        tool_call_id=tool_call_id,
        name=name,
        status=status,
        artifact=artifact,
    )
