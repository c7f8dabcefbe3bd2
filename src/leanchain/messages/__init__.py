"""Messages exchanged with chat models, their streamed chunks, and the helpers around them.

Layer 1: depends on nothing in leanchain but ``leanchain.errors``, the partial-JSON parser and
(only when a message utility is asked for its runnable form) ``leanchain.runnables``.
"""

from __future__ import annotations

from ._ai import AIMessage, AIMessageChunk
from ._base import BaseMessage, BaseMessageChunk, get_msg_title_repr
from ._convert import (
    MessageLikeRepresentation,
    convert_to_messages,
    get_buffer_string,
    message_chunk_to_message,
    message_to_dict,
    messages_from_dict,
    messages_to_dict,
)
from ._filter import filter_messages
from ._merge import Content, merge_content, merge_dicts, merge_lists, merge_obj
from ._merge_runs import merge_message_runs
from ._openai import convert_to_openai_messages
from ._select import MessageTypes
from ._simple import (
    ChatMessage,
    ChatMessageChunk,
    FunctionMessage,
    FunctionMessageChunk,
    HumanMessage,
    HumanMessageChunk,
    SystemMessage,
    SystemMessageChunk,
)
from ._token_count import count_tokens_approximately
from ._tool import (
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
from ._trim import SupportsTokenCount, TokenCounter, trim_messages
from ._usage import (
    InputTokenDetails,
    OutputTokenDetails,
    UsageMetadata,
    add_usage,
    subtract_usage,
)

__all__ = [
    "AIMessage",
    "AIMessageChunk",
    "BaseMessage",
    "BaseMessageChunk",
    "ChatMessage",
    "ChatMessageChunk",
    "Content",
    "FunctionMessage",
    "FunctionMessageChunk",
    "HumanMessage",
    "HumanMessageChunk",
    "InputTokenDetails",
    "InvalidToolCall",
    "MessageLikeRepresentation",
    "MessageTypes",
    "OutputTokenDetails",
    "SupportsTokenCount",
    "SystemMessage",
    "SystemMessageChunk",
    "TokenCounter",
    "ToolCall",
    "ToolCallChunk",
    "ToolMessage",
    "ToolMessageChunk",
    "UsageMetadata",
    "add_usage",
    "convert_to_messages",
    "convert_to_openai_messages",
    "count_tokens_approximately",
    "default_tool_chunk_parser",
    "default_tool_parser",
    "filter_messages",
    "get_buffer_string",
    "get_msg_title_repr",
    "invalid_tool_call",
    "merge_content",
    "merge_dicts",
    "merge_lists",
    "merge_message_runs",
    "merge_obj",
    "message_chunk_to_message",
    "message_to_dict",
    "messages_from_dict",
    "messages_to_dict",
    "parse_tool_call_args",
    "subtract_usage",
    "tool_call",
    "tool_call_chunk",
    "trim_messages",
]
