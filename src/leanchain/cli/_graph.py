"""``leanchain graph MODULE:ATTR``: import a runnable and draw it as Mermaid text or ASCII art."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, Final

from leanchain.cli._errors import CliError
from leanchain.runnables import Runnable

__all__ = ["FORMATS", "draw", "load_runnable"]

FORMATS: Final = ("mermaid", "ascii")


def _import(module_name: str) -> Any:
    # Like ``python -m``, find modules in the current directory first.
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise CliError(f"cannot import {module_name!r}: no module named {exc.name!r}") from None
        raise CliError(f"importing {module_name!r} failed: {type(exc).__name__}: {exc}") from None
    except Exception as exc:
        raise CliError(f"importing {module_name!r} failed: {type(exc).__name__}: {exc}") from None


def load_runnable(path: str) -> Runnable[Any, Any]:
    """The runnable at ``MODULE:ATTR`` (``ATTR`` may be dotted, and may name a function that
    takes no arguments and returns a runnable).

    Raises:
        CliError: a malformed path, a module that cannot be imported, a missing attribute, or
            something that is not a runnable.
    """
    module_name, colon, attr = path.partition(":")
    if not colon or not module_name or not attr:
        raise CliError(f"expected MODULE:ATTR (e.g. myapp.chains:chain), got {path!r}")
    target: Any = _import(module_name)
    parts = attr.split(".")
    for depth, part in enumerate(parts):
        try:
            target = getattr(target, part)
        except AttributeError:
            where = module_name if depth == 0 else f"{module_name}:{'.'.join(parts[:depth])}"
            raise CliError(f"{where!r} has no attribute {part!r}") from None
    if isinstance(target, Runnable):
        return target
    if callable(target):
        try:
            made = target()
        except Exception as exc:
            raise CliError(f"calling {path!r}() failed: {type(exc).__name__}: {exc}") from None
        if isinstance(made, Runnable):
            return made
        raise CliError(f"calling {path!r}() returned {_kind(made)}, not a runnable")
    raise CliError(
        f"{path!r} is {_kind(target)}, not a runnable "
        "(or a function with no arguments that returns one)"
    )


def _kind(value: Any) -> str:
    """What `value` is, in words that read right for any type: ``an object of type 'int'``."""
    if value is None:
        return "None"
    if isinstance(value, type):
        return f"the class {value.__qualname__!r}"
    return f"an object of type {type(value).__qualname__!r}"


def draw(runnable: Runnable[Any, Any], fmt: str) -> str:
    """The runnable's graph drawn in `fmt` (``"mermaid"`` or ``"ascii"``)."""
    graph = runnable.get_graph()
    return graph.draw_mermaid() if fmt == "mermaid" else graph.draw_ascii()
