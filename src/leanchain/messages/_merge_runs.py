"""`merge_message_runs`: join consecutive messages of the same kind into one message.

Some providers reject two user (or two assistant) turns in a row; merging them first is
LangChain's ``merge_message_runs``. Two messages are joined directly, field by field, not by a
round trip through chunks: tool calls and invalid tool calls are kept exactly as they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, overload

from ._ai import AIMessage, _preferred_id
from ._base import BaseMessage, BaseMessageChunk
from ._convert import convert_to_messages, message_chunk_to_message
from ._merge import merge_content, merge_dicts
from ._runnable import MessagesInput, messages_runnable
from ._simple import ChatMessage, FunctionMessage
from ._tool import ToolMessage
from ._usage import add_usage

if TYPE_CHECKING:
    from leanchain.runnables import Runnable

__all__ = ["merge_message_runs"]


@overload
def merge_message_runs(
    messages: None = None, *, chunk_separator: str = "\n"
) -> Runnable[Any, list[BaseMessage]]: ...
@overload
def merge_message_runs(
    messages: MessagesInput, *, chunk_separator: str = "\n"
) -> list[BaseMessage]: ...
def merge_message_runs(
    messages: MessagesInput | None = None, *, chunk_separator: str = "\n"
) -> list[BaseMessage] | Runnable[Any, list[BaseMessage]]:
    """The conversation with each run of consecutive same-kind messages merged into one.

    Tool messages are never merged (each answers its own call); chat messages merge only
    with the same ``role``, function messages only with the same ``name``. A chunk counts as
    its kind (an ``AIMessageChunk`` merges with an ``AIMessage``), and a merged message is a
    whole message, not a chunk.

    In a merged message: text contents are joined with `chunk_separator` (list contents are
    concatenated, a text becoming the list's first element, as chunks add up);
    ``additional_kwargs`` merge as streamed chunks' do; ``response_metadata`` is the first
    message's; the ``name`` is kept when all messages share it, else ``None``. AI messages
    keep every tool call and invalid tool call in order, add up their usage, and keep the
    first provider id (an id not starting ``lc_``); other kinds keep the first id.

    Args:
        messages: the conversation (messages, anything `convert_to_messages` reads, or a
            prompt value). ``None`` returns a runnable that merges its input.
        chunk_separator: put between two text contents that are both non-empty.

    Returns:
        The merged conversation (messages in no run are the same objects), or, when
        `messages` is ``None``, a runnable doing this to its input.

    Raises:
        ValueError: a `chunk_separator` that is not a str.
        TypeError: two merged messages whose ``additional_kwargs`` hold the same key with
            values of different types (see `merge_dicts`).
    """
    if not isinstance(chunk_separator, str):
        raise ValueError(f"chunk_separator must be a str, got {chunk_separator!r}")
    if messages is None:

        def merge(messages: MessagesInput) -> list[BaseMessage]:
            return _merge_runs(messages, chunk_separator)

        return messages_runnable("merge_message_runs", merge, in_thread=False)
    return _merge_runs(messages, chunk_separator)


def _merge_runs(messages: MessagesInput, separator: str) -> list[BaseMessage]:
    merged: list[BaseMessage] = []
    previous: Any = None
    for message in convert_to_messages(messages):
        key = _run_key(message)
        if key is not None and key == previous:
            merged[-1] = _join(merged[-1], message, separator)
        else:
            merged.append(message)
        previous = key
    return merged


def _run_key(message: BaseMessage) -> Any:
    """What two neighbours must share to merge; ``None`` for a message that never merges."""
    if isinstance(message, ToolMessage):
        return None
    whole = _whole_class(type(message))
    if isinstance(message, ChatMessage):
        return whole, message.role
    if isinstance(message, FunctionMessage):
        return whole, message.name
    return whole


_WHOLE: dict[type[BaseMessage], type[BaseMessage]] = {}


def _whole_class(cls: type[BaseMessage]) -> type[BaseMessage]:
    """The message class a chunk class is a piece of (the class itself for a message)."""
    whole = _WHOLE.get(cls)
    if whole is None:
        whole = next(
            base
            for base in cls.__mro__
            if issubclass(base, BaseMessage) and not issubclass(base, BaseMessageChunk)
        )
        _WHOLE[cls] = whole
    return whole


def _join(left: BaseMessage, right: BaseMessage, separator: str) -> BaseMessage:
    left = message_chunk_to_message(left)
    right = message_chunk_to_message(right)
    first = left.content
    if isinstance(first, str) and isinstance(right.content, str) and first and right.content:
        first += separator
    fields = {
        key: value.copy() if isinstance(value, (list, dict)) else value
        for key, value in left.__dict__.items()
    }
    fields["content"] = merge_content(first, right.content)
    fields["additional_kwargs"] = merge_dicts(left.additional_kwargs, right.additional_kwargs)
    if left.name != right.name:
        fields["name"] = None
    if isinstance(left, AIMessage) and isinstance(right, AIMessage):
        fields["id"] = _preferred_id([left.id, right.id])
        fields["tool_calls"] = [*left.tool_calls, *right.tool_calls]
        fields["invalid_tool_calls"] = [*left.invalid_tool_calls, *right.invalid_tool_calls]
        usage = left.usage_metadata
        if right.usage_metadata:
            usage = add_usage(usage, right.usage_metadata) if usage else right.usage_metadata
        fields["usage_metadata"] = usage
    return type(left)._construct(fields)
