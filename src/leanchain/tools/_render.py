"""Tools as text for the prompts of text-protocol agents (ReAct, structured chat)."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Sequence
from typing import Annotated, Any

from leanchain.tools._base import BaseTool
from leanchain.tools._injected import is_injected_marker

__all__ = ["render_text_description", "render_text_description_and_args"]


def _is_injected(param: inspect.Parameter) -> bool:
    annotation = param.annotation
    if typing.get_origin(annotation) is not Annotated:
        return False
    return any(is_injected_marker(meta) is not None for meta in annotation.__metadata__)


def _signature(func: Callable[..., Any]) -> str:
    # Evaluate string annotations (``from __future__ import annotations``) so that a tool
    # renders as ``search(query: str) -> str`` whichever way its module was written.
    try:
        signature = inspect.signature(func, eval_str=True)
    except Exception:
        signature = inspect.signature(func)
    # The model never sees an injected argument, not even in a prompt's tool list.
    shown = [p for p in signature.parameters.values() if not _is_injected(p)]
    if len(shown) < len(signature.parameters):
        signature = signature.replace(parameters=shown)
    return str(signature)


def _line(tool: BaseTool) -> str:
    func = getattr(tool, "func", None)
    if func:
        return f"{tool.name}{_signature(func)} - {tool.description}"
    return f"{tool.name} - {tool.description}"


def render_text_description(tools: Sequence[BaseTool]) -> str:
    """One line per tool: ``name(signature) - description`` (``name - description`` for a
    tool without a function), joined with newlines.

    Example::

        search(query: str) -> str - Lookup things online.
        calculator(expression: str) -> str - Do math.
    """
    return "\n".join(_line(tool) for tool in tools)


def render_text_description_and_args(tools: Sequence[BaseTool]) -> str:
    """`render_text_description`'s lines, each followed by ``, args: `` and the tool's args.

    Example::

        search(query: str) -> str - Lookup things online., args: {'query': {'title': 'Query', 'type': 'string'}}
    """  # noqa: E501
    return "\n".join(f"{_line(tool)}, args: {tool.args}" for tool in tools)
