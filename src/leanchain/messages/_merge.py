"""How streamed pieces of message data combine: content, metadata dicts and indexed lists.

These are LangChain's ``merge_content``/``merge_dicts``/``merge_lists``/``merge_obj`` rules
(``langchain-behaviour.md`` §2.4), with three repairs: no input is ever mutated, a ``None`` on
the right never breaks a merge, and an indexed element merges into the *last* element with the
same index and consistent ids (when a provider reuses an index, the pieces that follow belong to
the call that came last, not the first).
"""

from __future__ import annotations

from typing import Any, Final, TypeAlias

__all__ = ["Content", "merge_content", "merge_dicts", "merge_lists", "merge_obj"]

Content: TypeAlias = str | list[str | dict[str, Any]]
"""A message's content: text, or a list of strings and content-block dicts."""

_KEEP_IF_EQUAL: Final = frozenset({"id", "output_version", "model_provider"})
_LAST_WINS: Final = frozenset({"index", "created", "timestamp"})


def merge_dicts(left: dict[str, Any], *others: dict[str, Any]) -> dict[str, Any]:
    """Merge streamed metadata dicts (``additional_kwargs``, ``response_metadata``) left to right.

    A key missing on the left, or ``None`` there, takes the right value; a right ``None`` is
    ignored. Strings concatenate (an ``lc_``-prefixed ``index``, and equal ``id``,
    ``output_version`` and ``model_provider`` values, are kept instead); dicts merge
    recursively; lists merge with :func:`merge_lists`; equal values are kept; ints add up,
    except ``index``, ``created`` and ``timestamp``, where the right value wins.

    Raises:
        TypeError: a key holds values of different types, or unequal values that cannot be
            combined (booleans, floats, other objects).
    """
    merged = left.copy()
    for right in others:
        for key, value in right.items():
            if value is None:
                merged.setdefault(key, None)
                continue
            current = merged.get(key)
            if current is None:
                merged[key] = value
            elif type(current) is not type(value):
                raise TypeError(
                    f'additional_kwargs["{key}"] already exists in this message,'
                    " but with a different type."
                )
            elif isinstance(current, str):
                if (key == "index" and current.startswith("lc_")) or (
                    key in _KEEP_IF_EQUAL and current == value
                ):
                    continue
                merged[key] = current + value
            elif isinstance(current, dict):
                merged[key] = merge_dicts(current, value)
            elif isinstance(current, list):
                merged[key] = merge_lists(current, value)
            elif current == value:
                continue
            elif isinstance(current, int) and not isinstance(current, bool):
                merged[key] = value if key in _LAST_WINS else current + value
            else:
                raise TypeError(
                    f"Additional kwargs key {key} already exists in left dict and value has"
                    f" unsupported type {type(current)}."
                )
    return merged


def merge_lists(left: list[Any] | None, *others: list[Any] | None) -> list[Any] | None:
    """Merge streamed lists: dicts with an int ``index`` merge into their earlier piece.

    A right-hand dict whose ``index`` equals that of an element already merged, and whose
    ``id`` does not contradict it (either is ``None`` or empty, or they are equal), is merged
    into that element with :func:`merge_dicts` (its ``type`` key is not repeated). Every other
    element is appended. ``None`` lists are skipped; the result is ``None`` only if all are.
    """
    merged = None if left is None else left.copy()
    for other in others:
        if other is None:
            continue
        if merged is None:
            merged = other.copy()
            continue
        for element in other:
            target = _matching_index(merged, element)
            if target is None:
                merged.append(element)
            else:
                piece = {k: v for k, v in element.items() if k != "type"}
                merged[target] = merge_dicts(merged[target], piece)
    return merged


def _matching_index(merged: list[Any], element: Any) -> int | None:
    """Position of the last element of ``merged`` that ``element`` continues, if any."""
    if not isinstance(element, dict):
        return None
    index = element.get("index")
    if not isinstance(index, int):
        return None
    element_id = element.get("id")
    for position in range(len(merged) - 1, -1, -1):
        candidate = merged[position]
        if isinstance(candidate, dict) and candidate.get("index") == index:
            candidate_id = candidate.get("id")
            if not candidate_id or not element_id or candidate_id == element_id:
                return position
    return None


def merge_obj(left: Any, right: Any) -> Any:
    """Merge two streamed values of any kind (a tool message's ``artifact``, for one).

    Raises:
        TypeError: the values have different types.
        ValueError: they are unequal and not str, dict or list.
    """
    if left is None or right is None:
        return left if left is not None else right
    if type(left) is not type(right):
        raise TypeError(
            f"left and right are of different types. Left type:  {type(left)}."
            f" Right type: {type(right)}."
        )
    if isinstance(left, str):
        return left + right
    if isinstance(left, dict):
        return merge_dicts(left, right)
    if isinstance(left, list):
        return merge_lists(left, right)
    if left == right:
        return left
    raise ValueError(
        f"Unable to merge {left=} and {right=}. Both must be of type str, dict, or list,"
        " or else be two equal objects."
    )


def merge_content(first: Content, *contents: Content) -> Content:
    """Concatenate message contents, left to right.

    str + str concatenates. str + list puts the string first (an empty string is dropped).
    list + list merges with :func:`merge_lists`, so blocks with the same ``index`` join up.
    list + str appends the text to a trailing string element, or as a new element.
    """
    if isinstance(first, str) and all(isinstance(c, str) for c in contents):
        # The streaming case: one join, linear in the total length.
        return "".join((first, *contents))  # type: ignore[arg-type]
    merged = first
    for content in contents:
        merged = _merge_two(merged, content)
    return merged


def _merge_two(merged: Content, content: Content) -> Content:
    if isinstance(merged, str):
        if isinstance(content, str):
            return merged + content
        return [merged, *content] if merged else list(content)
    if isinstance(content, list):
        return merge_lists(merged, content)  # type: ignore[return-value]
    if not content:
        return list(merged)
    if merged and isinstance(merged[-1], str):
        return [*merged[:-1], merged[-1] + content]
    return [*merged, content]
