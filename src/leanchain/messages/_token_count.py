"""`count_tokens_approximately`: a conversation's size in tokens without a tokenizer, by
LangChain's rule (``langchain_core.messages.utils.count_tokens_approximately``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

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
) -> int:
    """About how many tokens `messages` take: characters over `chars_per_token`.

    A message counts the characters of its text (of the ``repr`` of its content blocks), of
    the ``repr`` of an AI message's tool calls when its content is text (block content holds
    them already), of a tool message's ``tool_call_id``, of its OpenAI role and, with
    `count_name`, of its name. Each message's characters are divided by `chars_per_token`
    and rounded up, then `extra_tokens_per_message` is added; the total is rounded up.
    ``trim_messages(..., token_counter="approximate")`` counts with this.

    Example: ``count_tokens_approximately([HumanMessage("Hello there")])`` is 7: 11
    characters of text and 4 of the role ``"user"`` make 15, that is 4 tokens, plus 3.
    """
    tokens = 0.0
    for message in convert_to_messages(messages):
        content = message.content
        chars = len(content) if isinstance(content, str) else _repr_length(content)
        if isinstance(message, AIMessage) and isinstance(content, str) and message.tool_calls:
            chars += _repr_length(message.tool_calls)
        if isinstance(message, ToolMessage):
            chars += len(message.tool_call_id)
        chars += len(openai_role(message))
        if count_name and message.name:
            chars += len(message.name)
        # Rounded up per message, so that the counts of parts add up to the count of all.
        tokens += math.ceil(chars / chars_per_token) + extra_tokens_per_message
    return math.ceil(tokens)


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
