"""`filter_messages`: keep the messages of a conversation that match given names, kinds or ids."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

from ._ai import AIMessage, AIMessageChunk
from ._base import BaseMessage
from ._convert import convert_to_messages
from ._runnable import MessagesInput, messages_runnable
from ._select import MessageTypes, string_set, type_matcher
from ._tool import ToolMessage

if TYPE_CHECKING:
    from leanchain.runnables import Runnable

__all__ = ["filter_messages"]


@overload
def filter_messages(
    messages: None = None,
    *,
    include_names: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    include_types: MessageTypes | None = None,
    exclude_types: MessageTypes | None = None,
    include_ids: Sequence[str] | None = None,
    exclude_ids: Sequence[str] | None = None,
    exclude_tool_calls: Sequence[str] | bool | None = None,
) -> Runnable[Any, list[BaseMessage]]: ...
@overload
def filter_messages(
    messages: MessagesInput,
    *,
    include_names: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    include_types: MessageTypes | None = None,
    exclude_types: MessageTypes | None = None,
    include_ids: Sequence[str] | None = None,
    exclude_ids: Sequence[str] | None = None,
    exclude_tool_calls: Sequence[str] | bool | None = None,
) -> list[BaseMessage]: ...
def filter_messages(
    messages: MessagesInput | None = None,
    *,
    include_names: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    include_types: MessageTypes | None = None,
    exclude_types: MessageTypes | None = None,
    include_ids: Sequence[str] | None = None,
    exclude_ids: Sequence[str] | None = None,
    exclude_tool_calls: Sequence[str] | bool | None = None,
) -> list[BaseMessage] | Runnable[Any, list[BaseMessage]]:
    """The messages that pass the given filters, in order (LangChain's ``filter_messages``).

    A message is dropped if it matches any ``exclude_*`` filter. Of the rest, all are kept
    when no ``include_*`` filter is given, else those that match at least one of them.

    Example::

        filter_messages(history, include_types=["system", "human"], exclude_ids=["m3"])

    Args:
        messages: the conversation (messages, or anything `convert_to_messages` reads, or a
            prompt value). ``None`` returns a runnable that applies the filters to its input.
        include_names: keep messages with one of these names.
        exclude_names: drop messages with one of these names.
        include_types: keep messages of these kinds: type tags (``"human"``, ``"ai"``,
            ``"system"``, ``"tool"``; a tag matches the kind's chunks too) or classes.
        exclude_types: drop messages of these kinds.
        include_ids: keep messages with one of these ids.
        exclude_ids: drop messages with one of these ids.
        exclude_tool_calls: ``True`` drops every AI message with tool calls and every tool
            message. A list of tool-call ids drops the tool messages answering them and
            removes those calls from AI messages (and their ``tool_use`` content blocks); an
            AI message left with no tool calls is dropped.

    Returns:
        The kept messages (the same objects, except AI messages that lost tool calls), or,
        when `messages` is ``None``, a runnable doing this to its input.

    Raises:
        ValueError: a ``*_types`` entry that is neither a type tag nor a message class.
    """
    rule = _Filter(
        include_names,
        exclude_names,
        include_types,
        exclude_types,
        include_ids,
        exclude_ids,
        exclude_tool_calls,
    )
    if messages is None:
        return messages_runnable("filter_messages", rule, in_thread=False)
    return rule(messages)


class _Filter:
    """The filters, checked once; calling it filters a conversation."""

    __slots__ = (
        "all_calls",
        "call_ids",
        "drop_types",
        "exclude_ids",
        "exclude_names",
        "include",
        "include_ids",
        "include_names",
        "keep_types",
    )

    def __init__(
        self,
        include_names: Sequence[str] | None,
        exclude_names: Sequence[str] | None,
        include_types: MessageTypes | None,
        exclude_types: MessageTypes | None,
        include_ids: Sequence[str] | None,
        exclude_ids: Sequence[str] | None,
        exclude_tool_calls: Sequence[str] | bool | None,
    ) -> None:
        self.include_names = string_set(include_names)
        self.exclude_names = string_set(exclude_names)
        self.keep_types = type_matcher(include_types, "include_types")
        self.drop_types = type_matcher(exclude_types, "exclude_types")
        self.include_ids = string_set(include_ids)
        self.exclude_ids = string_set(exclude_ids)
        self.include = bool(self.include_names or self.keep_types or self.include_ids)
        self.all_calls = exclude_tool_calls is True
        self.call_ids = (
            None if isinstance(exclude_tool_calls, bool) else string_set(exclude_tool_calls)
        )

    def __call__(self, messages: MessagesInput) -> list[BaseMessage]:
        kept: list[BaseMessage] = []
        for message in convert_to_messages(messages):
            if self._excluded(message):
                continue
            if self.all_calls or self.call_ids:
                trimmed = self._without_calls(message)
                if trimmed is None:
                    continue
                message = trimmed
            if not self.include or self._included(message):
                kept.append(message)
        return kept

    def _excluded(self, message: BaseMessage) -> bool:
        return bool(
            (self.exclude_names and message.name in self.exclude_names)
            or (self.drop_types and self.drop_types(message))
            or (self.exclude_ids and message.id in self.exclude_ids)
        )

    def _included(self, message: BaseMessage) -> bool:
        return bool(
            (self.include_names and message.name in self.include_names)
            or (self.keep_types and self.keep_types(message))
            or (self.include_ids and message.id in self.include_ids)
        )

    def _without_calls(self, message: BaseMessage) -> BaseMessage | None:
        """The message with the excluded tool calls taken out, or ``None`` to drop it."""
        if self.all_calls:
            if isinstance(message, ToolMessage) or (
                isinstance(message, AIMessage) and message.tool_calls
            ):
                return None
            return message
        drop = self.call_ids or frozenset()
        if isinstance(message, ToolMessage):
            return None if message.tool_call_id in drop else message
        if not (isinstance(message, AIMessage) and message.tool_calls):
            return message
        calls = [call for call in message.tool_calls if call["id"] not in drop]
        if not calls:
            return None
        if len(calls) == len(message.tool_calls):
            return message
        update: dict[str, Any] = {"tool_calls": calls}
        if isinstance(message.content, list):
            # Anthropic-style replies carry each call as a tool_use block in the content too.
            update["content"] = [
                block
                for block in message.content
                if not (
                    isinstance(block, dict)
                    and block.get("type") == "tool_use"
                    and block.get("id") in drop
                )
            ]
        if isinstance(message, AIMessageChunk):
            update["tool_call_chunks"] = [
                chunk for chunk in message.tool_call_chunks if chunk["id"] not in drop
            ]
        return message.model_copy(update=update)
