"""What a function's signature and source say about it: types, item keys, lambda text."""

from __future__ import annotations

import ast
import inspect
import textwrap
import typing
from collections.abc import Callable
from typing import Any, Generic, TypeVar, get_args

__all__ = ["first_param_type", "generic_arg", "item_keys", "lambda_source", "return_type"]


def lambda_source(func: Callable[..., Any]) -> str | None:
    """The source text of a ``lambda`` expression, for repr."""
    try:
        source = textwrap.dedent(inspect.getsource(func))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):
            return ast.get_source_segment(source, node)
    return None


def item_keys(func: Callable[..., Any]) -> list[str]:
    """The string keys the function's body reads from its first parameter (``x["key"]``)."""
    try:
        source = textwrap.dedent(inspect.getsource(func))
        tree = ast.parse(source)
        params = list(inspect.signature(func).parameters)
    except (OSError, TypeError, SyntaxError, ValueError):
        return []
    if not params:
        return []
    target = next(
        (
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef)
            and (node.name == func.__name__ if not isinstance(node, ast.Lambda) else True)
        ),
        None,
    )
    if target is None:
        return []
    keys = {
        node.slice.value
        for node in ast.walk(target)
        if isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == params[0]
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    }
    return sorted(keys)


def _hints(func: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(func)
    except Exception:
        return {}


def first_param_type(func: Any) -> Any:
    try:
        params = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return Any
    return _hints(func).get(params[0], Any) if params else Any


def return_type(func: Any) -> Any:
    return _hints(func).get("return", Any)


def generic_arg(cls: type, index: int) -> Any:
    """The `index`-th type argument `cls` gives ``Runnable[In, Out]`` (``Any`` when unbound)."""
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            args = get_args(base)
            if len(args) == 2 and getattr(base, "__origin__", None) is not Generic:
                arg = args[index]
                if not isinstance(arg, TypeVar):
                    return arg
    return Any
