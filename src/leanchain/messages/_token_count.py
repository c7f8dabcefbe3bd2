"""`count_tokens_approximately`: a conversation's size in tokens without a tokenizer, by
LangChain's rule (``langchain_core.messages.utils.count_tokens_approximately``)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from leanchain._model_schema import model_schema

from ._ai import AIMessage
from ._convert import MessageLikeRepresentation, convert_to_messages
from ._openai import openai_role
from ._tool import ToolMessage

__all__ = ["count_tokens_approximately"]


def count_tokens_approximately(
    messages: Iterable[MessageLikeRepresentation] | Any,
    *,
    chars_per_token: float = 4.0,
    extra_tokens_per_message: float = 3.0,
    count_name: bool = True,
    tokens_per_image: int = 85,
    use_usage_metadata_scaling: bool = False,
    tools: Sequence[Any] | None = None,
) -> int:
    """About how many tokens `messages` take: characters over `chars_per_token`.

    A message counts the characters of its text, of the ``repr`` of an AI message's tool
    calls when its content is text (block content holds them already), of a tool message's
    ``tool_call_id``, of its OpenAI role and, with `count_name`, of its name. In block
    content, a string or a text block counts its text, an image block (``image``,
    ``image_url``) counts `tokens_per_image` tokens whatever its size (its base64 data is
    not text the model reads), and any other block the ``repr`` of it. Each message's
    characters are divided by `chars_per_token` and rounded up, then
    `extra_tokens_per_message` is added; the total is rounded up.
    ``trim_messages(..., token_counter="approximate")`` counts with this.

    Args:
        messages: the messages, or anything `convert_to_messages` reads.
        chars_per_token: characters per token (about 4 for English text).
        extra_tokens_per_message: tokens added per message (its framing).
        count_name: whether a message's name counts.
        tokens_per_image: the tokens of one image (85: OpenAI's low-resolution cost).
        use_usage_metadata_scaling: scale the estimate by the most recent AI message's
            reported ``usage_metadata["total_tokens"]`` over the estimate up to it (between 1
            and 1.25), when there are several messages and every AI message names the same
            ``model_provider``.
        tools: tool definitions the request sends, counted as their JSON: dicts, or tools
            (``name``, ``description`` and ``tool_call_schema``).

    Example: ``count_tokens_approximately([HumanMessage("Hello there")])`` is 7: 11
    characters of text and 4 of the role ``"user"`` make 15, that is 4 tokens, plus 3.
    """
    converted = convert_to_messages(messages)
    tokens = 0.0
    if tools:
        tokens += math.ceil(sum(_tool_chars(tool) for tool in tools) / chars_per_token)
    provider: Any = None
    mixed = False
    last_total: int | None = None
    estimate_then: float | None = None
    for message in converted:
        content = message.content
        if isinstance(content, str):
            chars = len(content)
        else:
            chars = 0
            for block in content:
                if isinstance(block, str):
                    chars += len(block)
                elif not isinstance(block, Mapping):
                    chars += _repr_length(block)
                elif block.get("type") in _IMAGE_TYPES:
                    tokens += tokens_per_image
                elif block.get("type") == "text":
                    text = block.get("text", "")
                    chars += len(text) if isinstance(text, str) else _repr_length(text)
                else:
                    chars += _repr_length(block)
        if isinstance(message, AIMessage) and isinstance(content, str) and message.tool_calls:
            chars += _repr_length(message.tool_calls)
        if isinstance(message, ToolMessage):
            chars += len(message.tool_call_id)
        chars += len(openai_role(message))
        if count_name and message.name:
            chars += len(message.name)
        # Rounded up per message, so that the counts of parts add up to the count of all.
        tokens += math.ceil(chars / chars_per_token) + extra_tokens_per_message
        if use_usage_metadata_scaling and isinstance(message, AIMessage):
            own = message.response_metadata.get("model_provider")
            if provider is None:
                provider = own
            elif own != provider:
                mixed = True
            usage = message.usage_metadata
            total = usage.get("total_tokens") if usage else None
            if isinstance(total, int):
                last_total, estimate_then = total, tokens
    if (
        use_usage_metadata_scaling
        and len(converted) > 1
        and not mixed
        and provider is not None
        and last_total is not None
        and estimate_then
    ):
        tokens *= min(1.25, max(1.0, last_total / estimate_then))
    return math.ceil(tokens)


_IMAGE_TYPES: Final = frozenset({"image", "image_url"})


def _tool_chars(tool: Any) -> int:
    """The length of a tool definition's JSON, as LangChain counts it."""
    if isinstance(tool, Mapping):
        definition: Any = tool
    else:
        schema = tool.tool_call_schema
        parameters = dict(schema if isinstance(schema, Mapping) else model_schema(schema))
        # The schema's own title and description repeat the tool's.
        parameters.pop("title", None)
        parameters.pop("description", None)
        definition = {"name": tool.name, "description": tool.description, "parameters": parameters}
    try:
        return len(json.dumps(definition))
    except (TypeError, ValueError, RecursionError):
        return _repr_length(definition)


def _repr_length(value: Any) -> int:
    """``len(repr(value))``; estimated without `repr` for a value it cannot write (an int of
    5,000 digits, nesting 5,000 deep): an estimate must not fail."""
    try:
        return len(repr(value))
    except (ValueError, RecursionError):
        pass
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, bool) or item is None:
            total += 4
        elif isinstance(item, int):
            total += int(item.bit_length() * _DIGITS_PER_BIT) + 1
        elif isinstance(item, Mapping):
            total += 2 + 4 * len(item)
            for key, val in item.items():
                stack.append(key)
                stack.append(val)
        elif isinstance(item, list | tuple | set | frozenset):
            total += 2 + 2 * len(item)
            stack.extend(item)
        else:
            try:
                total += len(repr(item))
            except (ValueError, RecursionError):
                total += 2
    return total


_DIGITS_PER_BIT = math.log10(2)
