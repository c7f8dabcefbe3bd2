"""Templates for list content: text blocks, image blocks and other dict blocks.

Every string value inside a block (at any depth) is an f-string template, validated like any
other template; keys are never formatted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from leanchain.prompts._string import check_template_format
from leanchain.prompts._template import compile_template

__all__ = ["BlocksTemplate"]


def _normalise(block: Any) -> dict[str, Any]:
    if isinstance(block, str):
        return {"type": "text", "text": block}
    if not isinstance(block, Mapping):
        raise ValueError(f"Invalid template: {block}")
    if "text" in block and set(block) <= {"type", "text"}:
        return {"type": "text", "text": block["text"]}
    if "image_url" in block:
        image = block["image_url"]
        url = {"url": image} if isinstance(image, str) else dict(image)
        return {**block, "type": "image_url", "image_url": url}
    return dict(block)


def _strings(value: Any, found: list[str]) -> None:
    if isinstance(value, str):
        found.append(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            _strings(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _strings(item, found)


def _fill(value: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        return compile_template(value).format(values)
    if isinstance(value, Mapping):
        return {key: _fill(item, values) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_fill(item, values) for item in value]
    return value


class BlocksTemplate:
    """A template for a message's list content: ``["hi {x}", {"type": "image_url", ...}]``.

    A string or a ``{"text": ...}`` dict becomes a text block; an ``image_url`` given as a
    string becomes ``{"url": ...}``; any other dict is kept, its string values formatted.

    Raises:
        TemplateValidationError: a string inside a block is not a safe template.
        ValueError: a block is neither a string nor a dict.
    """

    __slots__ = ("blocks", "template_format", "variables")

    def __init__(
        self, blocks: Sequence[str | Mapping[str, Any]], *, template_format: str = "f-string"
    ) -> None:
        check_template_format(template_format)
        self.blocks = [_normalise(block) for block in blocks]
        """The blocks, normalised; their string values are templates."""
        self.template_format = template_format
        """Always ``"f-string"``."""
        strings: list[str] = []
        _strings(self.blocks, strings)
        names: set[str] = set()
        for text in strings:
            names.update(compile_template(text).variables)
        self.variables = tuple(sorted(names))
        """The variables of every template in the blocks, sorted."""

    @property
    def input_variables(self) -> list[str]:
        """The variables of every template in the blocks, sorted."""
        return list(self.variables)

    def format_blocks(self, values: Mapping[str, Any]) -> list[Any]:
        """The content blocks filled in from `values`."""
        return [_fill(block, values) for block in self.blocks]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BlocksTemplate) and other.blocks == self.blocks

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"BlocksTemplate({self.blocks!r})"
