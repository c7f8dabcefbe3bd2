"""Which parts of a chat prompt can be kept between two formats (`_reuse`).

`ChatPromptTemplate.format_prompt_reusing` keeps the messages before its last part, and the
last part's text before the varying variable when that part is a plain turn ending with it,
in the run's memo. What may be kept is decided once per prompt, not once per run
(`ReusePlan`): only parts whose output depends on nothing but the values they read (no
subclass, no callable partial, no nested prompt). The parts that read nothing but the
prompt's own partial values are formatted then too, once for every run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from leanchain.messages import BaseMessage
from leanchain.prompts._build import message_builder
from leanchain.prompts._message import (
    AIMessagePromptTemplate,
    BaseStringMessagePromptTemplate,
    ChatMessagePromptTemplate,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    SystemMessagePromptTemplate,
)
from leanchain.prompts._reuse import SCALARS, fixed, split_at_last
from leanchain.prompts._string import PromptTemplate
from leanchain.prompts._template import CompiledTemplate, compile_template

__all__ = ["Part", "ReusePlan", "Split", "head_reads", "part_reads", "plan_reuse", "split_last"]

Part = tuple[Any, tuple[BaseMessage, ...] | None, frozenset[str], list[Any] | None]
"""A part of a chat prompt's head in a `ReusePlan`: the part, the messages it formatted to
from partial values alone (``None``: formatted on each run), the names of those values, and
the empty list it read (an optional history's), if any."""

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


class ReusePlan:
    """What formatting one chat prompt again and again, with `varying` changing, may keep:
    decided once per prompt (`plan_reuse`) and kept on it.

    `keeps` says whether anything is kept at all (else every format is a fresh one). Then
    `names` and `placeholders` are what a run's memo snapshots (the head's variables and the
    last turn's before `varying`); `last` splits the last turn as `split_last` does (its
    text before `varying`, the text after it, what builds its message; ``None``: no split);
    and `parts` is the head (`Part`): each part that reads nothing but partial values that
    cannot change in place (a fixed text, the rendered tools, an optional history left out)
    with the messages it formatted to when the plan was made, which every run shares
    (messages are frozen values), and each other part to be formatted once per run. A
    part's shared messages stand while no value given overrides a partial value it read and
    the empty list it read is still empty; else that run formats the part.

    The plan holds while the prompt's parts are what they were (`fits`): the same messages
    list and partial values, parts equal to the ones planned with the same template texts,
    each turn with or without ``additional_kwargs`` as it was. The prompt's in-place changes,
    `append` and `extend`, build a new list, so they are seen; so are the edits a prompt's
    contract does not allow but a user might make anyway.
    """

    __slots__ = (
        "keeps",
        "last",
        "messages",
        "names",
        "partials",
        "parts",
        "placeholders",
        "varying",
        "watched",
    )

    def __init__(self, messages: list[Any], partials: dict[str, Any], varying: str) -> None:
        self.messages = messages
        self.partials = partials
        self.varying = varying
        self.watched = _watch(messages)
        self.keeps = False
        self.names: tuple[str, ...] = ()
        self.placeholders: frozenset[str] = frozenset()
        self.parts: tuple[Part, ...] = ()
        self.last: tuple[CompiledTemplate, str, Callable[[str], BaseMessage]] | None = None

    def fits(self, messages: list[Any], partials: dict[str, Any], varying: str) -> bool:
        """Whether the plan still holds for a prompt with these parts."""
        return (
            messages is self.messages
            and partials is self.partials
            and varying == self.varying
            and _watch(messages) == self.watched
        )

    def head(self, values: Mapping[str, Any], merged: Mapping[str, Any]) -> list[BaseMessage]:
        """The head's messages for `values` (`merged`: over the partial values)."""
        out: list[BaseMessage] = []
        for item, kept, read, empty in self.parts:
            if kept is not None and not empty and read.isdisjoint(values):
                out.extend(kept)
            else:  # (a message is always kept: it reads nothing)
                item._format_into(merged, out)
        return out


def plan_reuse(
    messages: list[Any], partials: dict[str, Any], varying: str, plain: bool
) -> ReusePlan:
    """Decide what formatting a chat prompt of `messages` over `partials` keeps, with
    `varying` changing (`plain`: its class formats as `ChatPromptTemplate` does)."""
    plan = ReusePlan(messages, partials, varying)
    last: Any = messages[-1] if messages else None
    if not (plain and part_reads(last, varying) and fixed(partials)):
        return plan
    read = head_reads(messages[:-1], varying)
    if read is None:
        return plan
    names, placeholders = read
    found = split_last(last, varying)
    if found is not None:
        lead, rest = found
        names = (*names, *(name for name in lead.variables if name not in names))
        placeholders = placeholders - set(lead.variables)
        plan.last = (lead, rest, message_builder(last._kind))
    plan.names, plan.placeholders = names, placeholders
    plan.parts = tuple(_settle(item, partials) for item in messages[:-1])
    plan.keeps = True
    return plan


def _settle(item: Any, partials: dict[str, Any]) -> Part:
    """`item` with its messages formatted now when it reads nothing but partial values that
    cannot change in place, and what it read; else `item` alone, formatted on each run."""
    if isinstance(item, BaseMessage):
        return (item, (item,), frozenset(), None)
    kind = type(item)
    if kind is MessagesPlaceholder:
        value = partials.get(item.variable_name)
        if type(value) is list and not value:  # an optional history's own ``[]``
            return (item, (), frozenset((item.variable_name,)), value)
    elif (
        kind in _PLAIN_TURNS
        and type(item.prompt) is PromptTemplate
        and not item.prompt._partials
        and not item.additional_kwargs
    ):
        read = compile_template(item.prompt.template).variables
        if all(name in partials and type(partials[name]) in SCALARS for name in read):
            out: list[BaseMessage] = []
            try:
                item._format_into(partials, out)
            except Exception:  # (a spec its partial value does not take: each run says so)
                return (item, None, frozenset(), None)
            return (item, tuple(out), frozenset(read), None)
    return (item, None, frozenset(), None)


def _watch(messages: list[Any]) -> tuple[Any, ...]:
    """What a plan depends on in each of the prompt's parts, to compare by value (a part of
    another kind is never kept: the plan depends only on which object it is)."""
    seen: list[Any] = []
    for item in messages:
        kind = type(item)
        if kind is MessagesPlaceholder:
            seen.append((item, item.variable_name, item.optional, item.n_messages))
        elif kind in _ROLE_TEMPLATES:
            prompt = item.prompt
            text = prompt.template if type(prompt) is PromptTemplate else None
            seen.append((item, prompt, text, not item.additional_kwargs))
        else:
            seen.append(item)
    return tuple(seen)
