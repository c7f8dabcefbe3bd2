"""Which parts of a chat prompt can be kept between two formats of one run (`_reuse`).

`ChatPromptTemplate.format_prompt_reusing` keeps the messages before its last part, and the
last part's text before the varying variable when that part is a plain turn ending with it.
These functions decide, once per run, what may be kept: only parts whose output depends on
nothing but the values they read (no subclass, no callable partial, no nested prompt).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from leanchain.messages import BaseMessage
from leanchain.prompts._message import (
    AIMessagePromptTemplate,
    BaseStringMessagePromptTemplate,
    ChatMessagePromptTemplate,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    SystemMessagePromptTemplate,
)
from leanchain.prompts._reuse import fixed, split_at_last
from leanchain.prompts._string import PromptTemplate
from leanchain.prompts._template import CompiledTemplate, compile_template

__all__ = ["Split", "head_reads", "part_reads", "split_last"]

Split = tuple[PromptTemplate, str, str, str, Callable[[str], BaseMessage]]
"""A kept last turn: its prompt, that prompt's template text, the text formatted before the
varying variable, the literal text after it and what builds its message from a text
(`message_builder`). The turn still formats so while its prompt and that prompt's template
are these objects and it has no ``additional_kwargs``."""

_PLAIN_TURNS: frozenset[type[BaseStringMessagePromptTemplate]] = frozenset(
    {HumanMessagePromptTemplate, AIMessagePromptTemplate, SystemMessagePromptTemplate}
)
"""The message templates that build their message class from the text alone."""
_ROLE_TEMPLATES: frozenset[type[BaseStringMessagePromptTemplate]] = frozenset(
    {*_PLAIN_TURNS, ChatMessagePromptTemplate}
)
"""The message templates whose message depends only on the values they read."""


def part_reads(item: Any, name: str) -> bool:
    """Whether `item` (a chat prompt's part) is a placeholder for `name` or a plain message
    template that reads it."""
    if type(item) is MessagesPlaceholder:
        return item.variable_name == name
    return type(item) in _ROLE_TEMPLATES and name in item.input_variables


def head_reads(head: list[Any], varying: str) -> tuple[tuple[str, ...], frozenset[str]] | None:
    """The variables `head` reads, and those only messages placeholders read; ``None`` if an
    item reads `varying` too or may format differently from the same values (a subclass, a
    callable partial, a nested prompt): then nothing is kept."""
    names: dict[str, bool] = {}  # name -> read by placeholders only
    for item in head:
        kind = type(item)
        if isinstance(item, BaseMessage):
            continue
        if kind is MessagesPlaceholder:  # (an optional one lists no input variables)
            only, read = True, [item.variable_name]
        elif kind in _ROLE_TEMPLATES and fixed(getattr(item.prompt, "_partials", {})):
            only, read = False, item.input_variables
        else:
            return None
        if varying in read:
            return None
        for name in read:
            names[name] = names.get(name, True) and only
    return tuple(names), frozenset(name for name, only in names.items() if only)


def split_last(last: Any, varying: str) -> tuple[CompiledTemplate, str] | None:
    """The last part's text template before `varying`, and the text after it, when the
    part is a plain human, AI or system turn whose text ends with `varying` (see
    `split_at_last`): its message is then built from the kept text and the new value."""
    if type(last) not in _PLAIN_TURNS or last.additional_kwargs:
        return None
    prompt = last.prompt
    if type(prompt) is not PromptTemplate or prompt._partials:
        return None
    return split_at_last(compile_template(prompt.template), varying)
