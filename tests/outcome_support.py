"""Helpers the property tests of several packages share: a call's outcome, as a fast path
and the general one must agree on it, and a counter of a method's calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def outcome(call: Callable[[], Any]) -> tuple[Any, ...]:
    """``("value", call())``, or the error it raised: ``("error", its type, its message)``."""
    try:
        return ("value", call())
    except Exception as exc:  # the error's type and message are the outcome
        return ("error", type(exc), str(exc))


def count_calls(monkeypatch: pytest.MonkeyPatch, owner: type, name: str) -> list[int]:
    """A list that grows by one at each call of ``owner.name`` (patched for the test)."""
    calls: list[int] = []
    method = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return method(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls
