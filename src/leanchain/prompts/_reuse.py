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
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from operator import is_
from typing import Any, Final

from leanchain.messages import BaseMessage
from leanchain.prompts._template import CompiledTemplate

__all__ = ["Snapshot", "fixed", "head_key", "same", "snapshot", "split_at_last"]

Snapshot = tuple[Any, ...]
"""The values a prompt's head read, flattened (a list, its length and its items)."""

_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_ABSENT: Final = object()


def head_key(prompt: object) -> Hashable:
    """The memo key of `prompt`'s kept head: its id (the memo's other keys are formatters
    and tuples, never ints; the caller's run holds the prompt, so the id stays its own)."""
    return id(prompt)


def snapshot(
    values: Mapping[str, Any], names: Iterable[str], placeholders: frozenset[str]
) -> Snapshot | None:
    """The values of `names` to compare by identity next time, or ``None`` if one of them
    could change in place (then nothing is kept). A list of messages is allowed for a
    name only `placeholders` read (they put its messages in the result as they are)."""
    flat: list[Any] = []
    for name in names:
        value = values.get(name, _ABSENT)
        if type(value) in _SCALARS or value is _ABSENT:
            flat.append(value)
        elif type(value) is list and name in placeholders:
            for item in value:
                if not isinstance(item, BaseMessage):
                    return None
            flat += (value, len(value), *value)
        else:
            return None
    return tuple(flat)


def same(kept: Snapshot, now: Snapshot) -> bool:
    """Whether two snapshots hold the very same objects, in order."""
    return len(kept) == len(now) and all(map(is_, kept, now))


def fixed(partials: Mapping[str, Any]) -> bool:
    """Whether the partial values are values (a callable one is called on every format)."""
    return not any(callable(value) for value in partials.values())


def split_at_last(template: CompiledTemplate, varying: str) -> tuple[CompiledTemplate, str] | None:
    """`template` as (what comes before `varying`, the literal text after it), when
    `varying` is its last field, used once and with no format spec; else ``None``."""
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
