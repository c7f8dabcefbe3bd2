"""The lazy face of a package (PEP 562): its public names are imported on first use.

A face lists each public name with the module it comes from (a fixed ``_EXPORTS`` table) and
takes its ``__getattr__`` and ``__dir__`` from `lazy_face`, so that ``import leanchain.x``
costs only what the program then uses. Layer 0: it imports nothing of leanchain.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_face"]


def lazy_face(
    module: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the package `module`, whose names load on first use.

    `exports` maps each name to the module it is imported from; a name once imported is kept
    in the package's namespace, so the next look-up is a plain attribute.
    """
    namespace = sys.modules[module].__dict__

    def load(name: str) -> Any:
        source = exports.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(import_module(source), name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return load, names
