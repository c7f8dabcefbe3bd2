"""The threads that run `stream_events` producers.

A producer runs for the whole of its stream while its consumer waits on it, so it needs a
thread of its own: never one that might be queued behind other work (the shared pool's
workers may all be consumers waiting on producers). These threads wait for producers on a
plain queue, which hands a job over at about half the cost of a pool `Future`, and a new
thread starts whenever none is idle. A thread idle for a minute exits.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from queue import Empty, SimpleQueue

__all__ = ["start_producer"]

_IDLE_EXIT_S = 60.0

_jobs: SimpleQueue[tuple[contextvars.Context, Callable[[], object]]] = SimpleQueue()
_lock = threading.Lock()
_idle = 0
"""Threads waiting for a job (each job put is taken by one of them, or by a new thread)."""


def start_producer(context: contextvars.Context, target: Callable[[], object]) -> None:
    """Run ``target()`` in `context` on a producer thread, now."""
    global _idle
    with _lock:
        spawn = _idle == 0
        if not spawn:
            _idle -= 1
    _jobs.put((context, target))
    if spawn:
        threading.Thread(target=_serve, name="leanchain-events", daemon=True).start()


def _serve() -> None:
    global _idle
    while True:
        try:
            context, target = _jobs.get(timeout=_IDLE_EXIT_S)
        except Empty:
            with _lock:
                # A job put for this thread while it timed out is still in the queue.
                if _idle > 0:
                    _idle -= 1
                    return
            continue
        context.run(target)
        del context, target
        with _lock:
            _idle += 1
