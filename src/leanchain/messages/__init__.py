"""Messages exchanged with chat models, their streamed chunks, and the helpers around them.

Layer 1: depends on nothing in leanchain but ``leanchain.errors``, the partial-JSON parser and
(only when a message utility is asked for its runnable form) ``leanchain.runnables``.

The names are imported on first use (module ``__getattr__``): a program that never trims,
filters or counts messages does not import those helpers.
"""

from __future__ import annotations

import typing as _typing
from importlib import import_module as _import_module
from typing import Any as _Any

_EXPORTS: dict[str, str] = {
    "AIMessage": "leanchain.messages._ai",
    "AIMessageChunk": "leanchain.messages._ai",
    "BaseMessage": "leanchain.messages._base",
    "BaseMessageChunk": "leanchain.messages._base",
    "get_msg_title_repr": "leanchain.messages._base",
    "Annotation": "leanchain.messages._block_types",
    "AudioContentBlock": "leanchain.messages._block_types",
    "Citation": "leanchain.messages._block_types",
    "ContentBlock": "leanchain.messages._block_types",
    "DataContentBlock": "leanchain.messages._block_types",
    "FileContentBlock": "leanchain.messages._block_types",
    "ImageContentBlock": "leanchain.messages._block_types",
    "NonStandardAnnotation": "leanchain.messages._block_types",
    "NonStandardContentBlock": "leanchain.messages._block_types",
    "PlainTextContentBlock": "leanchain.messages._block_types",
    "ReasoningContentBlock": "leanchain.messages._block_types",
    "RefusalContentBlock": "leanchain.messages._block_types",
    "ServerToolCall": "leanchain.messages._block_types",
    "ServerToolCallChunk": "leanchain.messages._block_types",
    "ServerToolResult": "leanchain.messages._block_types",
    "TextContentBlock": "leanchain.messages._block_types",
    "VideoContentBlock": "leanchain.messages._block_types",
    "MessageLikeRepresentation": "leanchain.messages._convert",
    "convert_to_messages": "leanchain.messages._convert",
    "get_buffer_string": "leanchain.messages._convert",
    "message_chunk_to_message": "leanchain.messages._convert",
    "message_to_dict": "leanchain.messages._convert",
    "messages_from_dict": "leanchain.messages._convert",
    "messages_to_dict": "leanchain.messages._convert",
    "content_text": "leanchain.messages._encodable",
    "display_text": "leanchain.messages._encodable",
    "filter_messages": "leanchain.messages._filter",
    "Content": "leanchain.messages._merge",
    "merge_content": "leanchain.messages._merge",
    "merge_dicts": "leanchain.messages._merge",
    "merge_lists": "leanchain.messages._merge",
    "merge_obj": "leanchain.messages._merge",
    "merge_message_runs": "leanchain.messages._merge_runs",
    "convert_to_openai_messages": "leanchain.messages._openai",
    "openai_tool_calls": "leanchain.messages._openai",
    "MessageTypes": "leanchain.messages._select",
    "ChatMessage": "leanchain.messages._simple",
    "ChatMessageChunk": "leanchain.messages._simple",
    "FunctionMessage": "leanchain.messages._simple",
    "FunctionMessageChunk": "leanchain.messages._simple",
    "HumanMessage": "leanchain.messages._simple",
    "HumanMessageChunk": "leanchain.messages._simple",
    "SystemMessage": "leanchain.messages._simple",
    "SystemMessageChunk": "leanchain.messages._simple",
    "count_tokens_approximately": "leanchain.messages._token_count",
    "InvalidToolCall": "leanchain.messages._tool",
    "ToolCall": "leanchain.messages._tool",
    "ToolCallChunk": "leanchain.messages._tool",
    "ToolMessage": "leanchain.messages._tool",
    "ToolMessageChunk": "leanchain.messages._tool",
    "default_tool_chunk_parser": "leanchain.messages._tool",
    "default_tool_parser": "leanchain.messages._tool",
    "invalid_tool_call": "leanchain.messages._tool",
    "parse_tool_call_args": "leanchain.messages._tool",
    "tool_call": "leanchain.messages._tool",
    "tool_call_chunk": "leanchain.messages._tool",
    "SupportsTokenCount": "leanchain.messages._trim",
    "TokenCounter": "leanchain.messages._trim",
    "list_token_counter": "leanchain.messages._trim",
    "trim_messages": "leanchain.messages._trim",
    "InputTokenDetails": "leanchain.messages._usage",
    "OutputTokenDetails": "leanchain.messages._usage",
    "UsageMetadata": "leanchain.messages._usage",
    "add_usage": "leanchain.messages._usage",
    "subtract_usage": "leanchain.messages._usage",
}

__all__ = [
    "AIMessage",
    "AIMessageChunk",
    "Annotation",
    "AudioContentBlock",
    "BaseMessage",
    "BaseMessageChunk",
    "ChatMessage",
    "ChatMessageChunk",
    "Citation",
    "Content",
    "ContentBlock",
    "DataContentBlock",
    "FileContentBlock",
    "FunctionMessage",
    "FunctionMessageChunk",
    "HumanMessage",
    "HumanMessageChunk",
    "ImageContentBlock",
    "InputTokenDetails",
    "InvalidToolCall",
    "MessageLikeRepresentation",
    "MessageTypes",
    "NonStandardAnnotation",
    "NonStandardContentBlock",
    "OutputTokenDetails",
    "PlainTextContentBlock",
    "ReasoningContentBlock",
    "RefusalContentBlock",
    "ServerToolCall",
    "ServerToolCallChunk",
    "ServerToolResult",
    "SupportsTokenCount",
    "SystemMessage",
    "SystemMessageChunk",
    "TextContentBlock",
    "TokenCounter",
    "ToolCall",
    "ToolCallChunk",
    "ToolMessage",
    "ToolMessageChunk",
    "UsageMetadata",
    "VideoContentBlock",
    "add_usage",
    "content_text",
    "convert_to_messages",
    "convert_to_openai_messages",
    "count_tokens_approximately",
    "default_tool_chunk_parser",
    "default_tool_parser",
    "display_text",
    "filter_messages",
    "get_buffer_string",
    "get_msg_title_repr",
    "invalid_tool_call",
    "list_token_counter",
    "merge_content",
    "merge_dicts",
    "merge_lists",
    "merge_message_runs",
    "merge_obj",
    "message_chunk_to_message",
    "message_to_dict",
    "messages_from_dict",
    "messages_to_dict",
    "openai_tool_calls",
    "parse_tool_call_args",
    "subtract_usage",
    "tool_call",
    "tool_call_chunk",
    "trim_messages",
]


def __getattr__(name: str) -> _Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'leanchain.messages' has no attribute {name!r}")
    value = getattr(_import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if _typing.TYPE_CHECKING:
    from leanchain.messages._ai import AIMessage, AIMessageChunk
    from leanchain.messages._base import BaseMessage, BaseMessageChunk, get_msg_title_repr
    from leanchain.messages._block_types import (
        Annotation,
        AudioContentBlock,
        Citation,
        ContentBlock,
        DataContentBlock,
        FileContentBlock,
        ImageContentBlock,
        NonStandardAnnotation,
        NonStandardContentBlock,
        PlainTextContentBlock,
        ReasoningContentBlock,
        RefusalContentBlock,
        ServerToolCall,
        ServerToolCallChunk,
        ServerToolResult,
        TextContentBlock,
        VideoContentBlock,
    )
    from leanchain.messages._convert import (
        MessageLikeRepresentation,
        convert_to_messages,
        get_buffer_string,
        message_chunk_to_message,
        message_to_dict,
        messages_from_dict,
        messages_to_dict,
    )
    from leanchain.messages._encodable import content_text, display_text
    from leanchain.messages._filter import filter_messages
    from leanchain.messages._merge import (
        Content,
        merge_content,
        merge_dicts,
        merge_lists,
        merge_obj,
    )
    from leanchain.messages._merge_runs import merge_message_runs
    from leanchain.messages._openai import convert_to_openai_messages, openai_tool_calls
    from leanchain.messages._select import MessageTypes
    from leanchain.messages._simple import (
        ChatMessage,
        ChatMessageChunk,
        FunctionMessage,
        FunctionMessageChunk,
        HumanMessage,
        HumanMessageChunk,
        SystemMessage,
        SystemMessageChunk,
    )
    from leanchain.messages._token_count import count_tokens_approximately
    from leanchain.messages._tool import (
        InvalidToolCall,
        ToolCall,
        ToolCallChunk,
        ToolMessage,
        ToolMessageChunk,
        default_tool_chunk_parser,
        default_tool_parser,
        invalid_tool_call,
        parse_tool_call_args,
        tool_call,
        tool_call_chunk,
    )
    from leanchain.messages._trim import (
        SupportsTokenCount,
        TokenCounter,
        list_token_counter,
        trim_messages,
    )
    from leanchain.messages._usage import (
        InputTokenDetails,
        OutputTokenDetails,
        UsageMetadata,
        add_usage,
        subtract_usage,
    )
