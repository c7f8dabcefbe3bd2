"""A one-line progress bar on stderr for long distributed batches (no tqdm dependency)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """Redraws ``label [#####.....] done/total (n failed)`` in place as items finish.

    Redraws are at most one per `min_interval` seconds (drawing every item of a 100,000-item
    batch would cost more than the items); the first and the final state are always drawn.

    Args:
        total: how many items the batch has.
        label: the text before the bar.
        width: the bar's width in characters.
        stream: where to draw (default: ``sys.stderr`` at construction).
        min_interval: the least time between two redraws, in seconds.
        clock: the time source (for tests).
    """

    __slots__ = (
        "_clock",
        "_closed",
        "_last",
        "_stream",
        "done",
        "failed",
        "label",
        "min_interval",
        "total",
        "width",
    )

    def __init__(
        self,
        total: int,
        *,
        label: str = "RayRunner",
        width: int = 30,
        stream: TextIO | None = None,
        min_interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.label = label
        self.width = width
        self.min_interval = min_interval
        self.done = 0
        self.failed = 0
        self._stream = stream if stream is not None else sys.stderr
        self._clock = clock
        self._closed = False
        self._last = clock()
        self._draw()

    def render(self) -> str:
        """The current line, without the leading carriage return."""
        filled = self.width * self.done // self.total if self.total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        failed = f" ({self.failed} failed)" if self.failed else ""
        return f"{self.label} [{bar}] {self.done}/{self.total}{failed}"

    def advance(self, *, failed: bool = False) -> None:
        """Count one finished item (a failed one when `failed`) and redraw if it is time."""
        self.done += 1
        self.failed += failed
        now = self._clock()
        if now - self._last >= self.min_interval:
            self._last = now
            self._draw()

    def close(self) -> None:
        """Draw the final state and end the line; later calls do nothing."""
        if self._closed:
            return
        self._closed = True
        self._draw()
        self._stream.write("\n")
        self._stream.flush()

    def _draw(self) -> None:
        self._stream.write("\r" + self.render())
        self._stream.flush()
