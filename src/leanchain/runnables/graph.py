"""Graphs of runnables (placeholder until the drawing module lands)."""

from __future__ import annotations

from typing import Any

__all__ = ["Graph"]


class Graph:
    """A graph of a pipeline's parts."""

    @classmethod
    def of_single(cls, runnable: Any) -> Graph:
        """The graph of one runnable."""
        return cls()

    @classmethod
    def of_sequence(cls, steps: Any, config: Any) -> Graph:
        """The graph of a sequence."""
        return cls()

    @classmethod
    def of_parallel(cls, parallel: Any, config: Any) -> Graph:
        """The graph of a parallel."""
        return cls()

    @classmethod
    def of_assign(cls, assign: Any, config: Any) -> Graph:
        """The graph of an assign."""
        return cls()
