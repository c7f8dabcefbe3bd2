"""Formatting a prompt again when one variable changed: what comes before it is kept.

An agent formats its prompt once per step, and only the scratchpad differs from one step
to the next: the system text, the question and the rendered tools are the same objects
every time. `BasePromptTemplate.format_prompt_reusing` keeps the formatted part before the
varying variable in a memo the caller owns (an agent run's) and reuses it while every value
that part reads is still the very object it was, and one that cannot change in place: a
`str`, number, `bool` or `None`, or, for a messages placeholder, a list of messages whose
items are the same ones (a message changed in place is the same object in both results).
Anything else (a callable partial, a dict, a list a template turns into text) is formatted
anew on every call, so a reused result always equals a fresh one.

What does not depend on the values is decided when the head is first kept, not on every
reuse: whether the prompt's class formats as its base class does (a subclass that overrides
a formatting step is formatted anew every time), whether a partial is callable, which values
the head reads. A chat prompt decides it once for every run (`_chat_reuse.ReusePlan`), a
text prompt once per run. A reuse then checks only that the prompt's parts are the objects
they were (its template text, its partials, its messages) and that the values read are the
same.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from operator import is_
from typing import Any, Final

from leanchain.messages import BaseMessage
from leanchain.prompts._template import CompiledTemplate

__all__ = [
    "SCALARS",
    "Reads",
    "fixed",
    "formats_as",
    "head_key",
    "snapshot",
    "split_at_last",
    "unchanged",
]

SCALARS: Final = frozenset({str, int, float, bool, type(None)})
"""The types of the values that cannot change in place (kept and compared by identity)."""
_ABSENT: Final = object()

_FORMATTING_STEPS: Final = (
    "_invoke",
    "_validate_input",
    "_check_missing",
    "_merge_partials",
    "_format_prompt",
    "format_prompt",
    "_text",
    "_format_into",
)
"""The methods the traced path (``invoke``) and a fresh ``format_prompt`` go through."""


head_key: Final[Callable[[object], Hashable]] = id
"""The memo key of a prompt's kept head: its id (the memo's other keys are formatters and
tuples, never ints; the caller's run holds the prompt, so the id stays its own)."""


def formats_as(prompt: object, base: type) -> bool:
    """Whether `prompt`'s class formats as `base` does: no formatting step overridden (a
    subclass that stamps or rewrites its output must see every call)."""
    cls = type(prompt)
    return cls is base or all(
        getattr(cls, name, None) is getattr(base, name, None) for name in _FORMATTING_STEPS
    )


class Reads:
    """The values a kept head read, as `unchanged` compares them: the names given in the
    values with the objects they were, the names the partial values gave (which must
    still be theirs), each list of messages read with its items, and each list read empty
    (an optional chat history left out: the usual one, checked in one step)."""

    __slots__ = ("empty", "given", "lists", "partial")

    def __init__(
        self,
        given: tuple[tuple[str, Any], ...],
        partial: frozenset[str],
        lists: tuple[tuple[list[Any], tuple[Any, ...]], ...],
        empty: tuple[list[Any], ...],
    ) -> None:
        self.given = given
        self.partial = partial
        self.lists = lists
        self.empty = empty


def snapshot(
    values: Mapping[str, Any],
    partials: Mapping[str, Any],
    names: Iterable[str],
    placeholders: frozenset[str],
) -> Reads | None:
    """What `names` read (from `values`, else the partial values, which must not be
    callable), to compare by identity next time, or ``None`` if one of them could change
    in place (then nothing is kept). A list of messages is allowed for a name only
    `placeholders` read (they put its messages in the result as they are)."""
    given: list[tuple[str, Any]] = []
    partial: list[str] = []
    lists: list[tuple[list[Any], tuple[Any, ...]]] = []
    empty: list[list[Any]] = []
    for name in names:
        if name in values:
            value = values[name]
            given.append((name, value))
        else:
            value = partials.get(name, _ABSENT)
            partial.append(name)
        if type(value) in SCALARS or value is _ABSENT:
            continue
        if type(value) is not list or name not in placeholders:
            return None
        for item in value:
            if not isinstance(item, BaseMessage):
                return None
        if value:
            lists.append((value, tuple(value)))
        else:
            empty.append(value)
    return Reads(tuple(given), frozenset(partial), tuple(lists), tuple(empty))


def unchanged(kept: Reads, values: Mapping[str, Any]) -> bool:
    """Whether `values` (over the same partial values) read as `kept` was read: the same
    objects given, no partial value overridden, each list still holding the same items.
    (Plain loops: for the two or three names a prompt's head reads, `map` costs more.)"""
    if type(values) is not dict:  # another mapping's [] may do more than read
        values = dict(values)
    try:
        for name, value in kept.given:
            if values[name] is not value:
                return False
    except KeyError:
        return False
    if not kept.partial.isdisjoint(values) or (kept.empty and any(kept.empty)):
        return False
    for items, seen in kept.lists:
        if len(items) != len(seen) or not all(map(is_, items, seen)):
            return False
    return True


def fixed(partials: Mapping[str, Any]) -> bool:
    """Whether the partial values are values (a callable one is called on every format)."""
    return not any(callable(value) for value in partials.values())


def split_at_last(template: CompiledTemplate, varying: str) -> tuple[CompiledTemplate, str] | None:
    """`template` as (what comes before `varying`, the literal text after it), when
    `varying` is its last field, used once and with no format spec; else ``None``
    (derived once per template)."""
    key = (split_at_last, varying)
    try:
        return template.derived[key]  # type: ignore[no-any-return]
    except KeyError:
        split = template.derived[key] = _split(template, varying)
        return split


def _split(template: CompiledTemplate, varying: str) -> tuple[CompiledTemplate, str] | None:
    parts = template.parts
    at = [i for i, (_, name, _) in enumerate(parts) if name == varying]
    if (
        len(at) != 1
        or parts[at[0]][2]
        or any(name is not None for _, name, _ in parts[at[0] + 1 :])
    ):
        return None
    i = at[0]
    head = (*parts[:i], (parts[i][0], None, ""))
    rest = "".join(literal for literal, _, _ in parts[i + 1 :])
    names = tuple(name for name in template.variables if name != varying)
    return CompiledTemplate(head, names), rest
