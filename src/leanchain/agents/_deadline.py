"""A sync call that the caller stops waiting for at a deadline (`max_execution_time`).

A thread cannot be stopped from outside, so the call runs on a daemon thread of its own and
the caller waits on it only until the deadline: a model that answers late (or a stream that
stalls) no longer holds the run past its time limit, and what it returns after the deadline is
dropped, so no tool call it asked for ever starts. The thread keeps the caller's context
(config, interceptors), and it never holds up the interpreter's exit.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["call_within"]

T = TypeVar("T")


class _Outcome:
    __slots__ = ("done", "error", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None


def call_within(
    call: Callable[[], T], deadline: float | None, *, thread_name: str = "leanchain-agent-plan"
) -> tuple[bool, T | None]:
    """Run `call`; ``(False, None)`` when the `time.monotonic` `deadline` comes first.

    With no deadline the call runs in the caller's thread, at no extra cost. `thread_name`
    names the thread otherwise (what a thread dump shows of a call left running).

    Raises:
        BaseException: what `call` raised, when it raised before the deadline.
    """
    if deadline is None:
        return True, call()
    outcome = _Outcome()
    context = contextvars.copy_context()

    def target() -> None:
        try:
            outcome.value = context.run(call)
        except BaseException as exc:  # handed to the caller, who raises it
            outcome.error = exc
        finally:
            outcome.done.set()

    thread = threading.Thread(target=target, name=thread_name, daemon=True)
    thread.start()
    if not outcome.done.wait(max(0.0, deadline - time.monotonic())):
        return False, None
    if outcome.error is not None:
        error, outcome.error = outcome.error, None
        raise error
    return True, outcome.value
