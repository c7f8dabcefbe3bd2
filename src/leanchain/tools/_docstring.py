"""Google-style docstrings: the description and the per-argument descriptions.

LangChain's rules (``parse_docstring=True``): the docstring is split into blocks at blank
lines; the description is the blocks before the first ``Args:``/``Returns:``/``Example:``
block, joined with a space; each entry of the ``Args:`` block gives one argument's description
(``name: text`` or ``name (type): text``). leanchain reads the entries by indentation, so a
continuation line that happens to contain a colon stays part of the entry above it.
"""

from __future__ import annotations

__all__ = ["INVALID_DOCSTRING", "parse_google_docstring"]

INVALID_DOCSTRING = "Found invalid Google-Style docstring."

_SECTIONS_AFTER_DESCRIPTION = ("Returns:", "Example:")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _parse_args_block(block: str) -> dict[str, str]:
    descriptions: dict[str, str] = {}
    entry_indent: int | None = None
    current: str | None = None
    for line in block.split("\n")[1:]:
        if not line.strip():
            continue
        indent = _indent(line)
        if indent == 0:
            break  # the next section header ("Returns:") without a blank line before it
        if entry_indent is None:
            entry_indent = indent
        if indent <= entry_indent and ":" in line:
            head, text = line.split(":", 1)
            name, _, annotation = head.strip().partition(" ")
            current = name if annotation.startswith("(") and annotation.endswith(")") else head
            current = current.strip()
            descriptions[current] = text.strip()
        elif current is not None:
            descriptions[current] = f"{descriptions[current]} {line.strip()}".strip()
    return descriptions


def parse_google_docstring(
    docstring: str | None, arg_names: list[str], *, error_on_invalid: bool
) -> tuple[str, dict[str, str]]:
    """The description and the argument descriptions of a Google-style docstring.

    Args:
        docstring: the cleaned docstring (`inspect.getdoc`), or ``None``.
        arg_names: the arguments the schema will have; when there are any and
            `error_on_invalid` is set, the docstring must have an ``Args:`` block.
        error_on_invalid: raise instead of returning what could be read.

    Raises:
        ValueError: ``"Found invalid Google-Style docstring."`` when `error_on_invalid` is set
            and the docstring is missing or has no ``Args:`` block after its summary.
    """
    if not docstring:
        if error_on_invalid:
            raise ValueError(INVALID_DOCSTRING)
        return "", {}
    blocks = docstring.split("\n\n")
    if (
        error_on_invalid
        and arg_names
        and (len(blocks) < 2 or not any(b.startswith("Args:") for b in blocks[1:]))
    ):
        raise ValueError(INVALID_DOCSTRING)
    descriptors: list[str] = []
    args_block: str | None = None
    past_description = False
    for block in blocks:
        if block.startswith("Args:"):
            args_block = block
            break
        if block.startswith(_SECTIONS_AFTER_DESCRIPTION):
            past_description = True
        elif not past_description:
            descriptors.append(block)
    return " ".join(descriptors), _parse_args_block(args_block) if args_block else {}
