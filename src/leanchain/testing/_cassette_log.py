"""When each call of a cassette block ran and how it ended: the makings of its report page.

Kept only when the cassette was given ``report=PATH``. The page itself is `leanchain.report`'s
(imported when the page is written, so that a cassette without a report never loads it).
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from leanchain.testing._cassette_format import scrub

if TYPE_CHECKING:
    from leanchain.testing._cassette import CassetteEntry

__all__ = ["CallLog"]

T = TypeVar("T")


@dataclass(slots=True)
class _Logged:
    entry: CassetteEntry
    start: float
    end: float | None = None
    error: BaseException | None = None


class CallLog:
    """The calls of one cassette block, timed from the block's start, for its report page."""

    __slots__ = ("_calls", "_lock", "_t0", "page", "started_at")

    def __init__(self, page: Path) -> None:
        self.page = page
        self.started_at = datetime.now(UTC).isoformat(timespec="milliseconds")[:-6] + "Z"
        self._t0 = time.perf_counter()
        self._calls: dict[int, _Logged] = {}
        """id(entry) → its call; the log holds each entry, so an id is never reused."""
        self._lock = threading.Lock()

    def _now(self) -> float:
        return time.perf_counter() - self._t0

    def begin(self, entry: CassetteEntry) -> None:
        """A call started (being recorded, or replayed from `entry`)."""
        logged = _Logged(entry, self._now())
        with self._lock:
            self._calls[id(entry)] = logged

    def end(self, entry: CassetteEntry, error: BaseException | None = None) -> None:
        """The call of `entry` ended, with `error` if it raised."""
        with self._lock:
            logged = self._calls.get(id(entry))
            if logged is not None and logged.end is None:
                logged.end = self._now()
                logged.error = error

    @contextmanager
    def playing(self, entry: CassetteEntry) -> Iterator[None]:
        """A replayed call answering inside the block: it ends when the block does."""
        try:
            yield
        except BaseException as error:
            self.end(entry, error)
            raise
        self.end(entry)

    def failed(self, entry: CassetteEntry, error: BaseException) -> None:
        """A call that failed as it started (a replayed request nothing was recorded for)."""
        self.begin(entry)
        self.end(entry, error)

    def ended(self, entry: CassetteEntry, chunks: Iterator[T]) -> Iterator[T]:
        """`chunks`, ending `entry`'s call when they run out (or fail, or are left)."""
        error: BaseException | None = None
        try:
            yield from chunks
        except BaseException as exc:
            error = None if isinstance(exc, GeneratorExit) else exc
            raise
        finally:
            self.end(entry, error)

    async def aended(self, entry: CassetteEntry, chunks: AsyncIterator[T]) -> AsyncIterator[T]:
        """Async `ended`."""
        error: BaseException | None = None
        try:
            async for chunk in chunks:
                yield chunk
        except BaseException as exc:
            error = None if isinstance(exc, GeneratorExit) else exc
            raise
        finally:
            self.end(entry, error)

    def write(self, name: str, error: BaseException | None) -> Path:
        """Write the page of the calls so far, in the order they started; returns its path.

        A call still going is shown ending now. `error` is what the block raised, if it did.
        """
        from leanchain.report import render_html, report_from_cassette

        now = self._now()
        with self._lock:
            calls = sorted(self._calls.values(), key=lambda logged: logged.start)
        report = report_from_cassette(
            [logged.entry for logged in calls],
            name=name,
            times=[(c.start, now if c.end is None else c.end) for c in calls],
            errors=[c.error for c in calls],
            error=error,
            started_at=self.started_at,
        )
        # What the cassette file would hide is hidden here too: the models' secrets (as the
        # page escapes them, too) and key-shaped strings, wherever a reply or error says them.
        secrets = {s for c in calls for s in c.entry.secrets}
        text = scrub(render_html(report), [*secrets, *(html.escape(s) for s in secrets)])
        self.page.parent.mkdir(parents=True, exist_ok=True)
        self.page.write_bytes(text.encode("utf-8", "replace"))
        return self.page
