"""A batch's items never see each other's context variables, whichever thread runs them."""

from __future__ import annotations

import contextvars
import time

from leanchain.runnables import RunnableLambda

SEEN: contextvars.ContextVar[str | None] = contextvars.ContextVar("seen", default=None)


def _item(i: int) -> str | None:
    before = SEEN.get()
    SEEN.set(f"item {i}")
    time.sleep(0.02)  # the helpers start (and copy contexts) while this item runs
    return before


def test_items_do_not_inherit_a_running_items_variables() -> None:
    # Every item must start from the caller's context: before the fix, helpers copied the
    # batch's context while the caller's item was running in it and saw "item 0".
    results = RunnableLambda(_item).batch(list(range(8)), {"max_concurrency": 4})
    assert results == [None] * 8
    assert SEEN.get() is None


def test_batch_as_completed_items_are_isolated_too() -> None:
    results = dict(RunnableLambda(_item).batch_as_completed(list(range(6)), {"max_concurrency": 3}))
    assert results == dict.fromkeys(range(6))
