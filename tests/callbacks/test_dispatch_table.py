"""Dispatch tables: a handler hears exactly the hooks it overrides, however it defines them."""

from __future__ import annotations

import copy
import logging
from typing import Any
from uuid import UUID

import pytest

from leanchain.callbacks import BaseCallbackHandler
from leanchain.runnables import RunnableLambda, RunnableSequence


def add_one(x: int) -> int:
    return x + 1


def chain() -> RunnableSequence[int, int]:
    return RunnableSequence(RunnableLambda(add_one), RunnableLambda(add_one))


class Ends(BaseCallbackHandler):
    """Overrides only `on_chain_end`."""

    def __init__(self) -> None:
        self.outputs: list[Any] = []

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.outputs.append(outputs)


def test_a_handler_hears_only_the_hooks_it_overrides() -> None:
    handler = Ends()
    assert chain().invoke(1, {"callbacks": [handler]}) == 3
    assert handler.outputs == [2, 3, 3]


def test_a_flag_set_on_the_instance_between_runs_is_read_at_the_next_root() -> None:
    handler = Ends()
    chain().invoke(1, {"callbacks": [handler]})
    handler.ignore_chain = True
    chain().invoke(1, {"callbacks": [handler]})
    handler.ignore_chain = False
    chain().invoke(5, {"callbacks": [handler]})
    assert handler.outputs == [2, 3, 3, 6, 7, 7]


def test_a_hook_set_on_the_instance_is_called() -> None:
    handler = BaseCallbackHandler()
    seen: list[tuple[Any, UUID]] = []
    handler.on_chain_end = lambda outputs, *, run_id, **kwargs: seen.append((outputs, run_id))  # type: ignore[method-assign]
    RunnableLambda(add_one).invoke(1, {"callbacks": [handler]})
    assert [outputs for outputs, _ in seen] == [2]
    assert isinstance(seen[0][1], UUID)


def test_static_and_class_method_hooks_are_called() -> None:
    calls: list[str] = []

    class Odd(BaseCallbackHandler):
        @staticmethod
        def on_chain_start(serialized: Any, inputs: Any, **kwargs: Any) -> None:
            calls.append(f"start {inputs}")

        @classmethod
        def on_chain_end(cls, outputs: Any, **kwargs: Any) -> None:
            calls.append(f"end {outputs} {cls.__name__}")

    RunnableLambda(add_one).invoke(1, {"callbacks": [Odd()]})
    assert calls == ["start 1", "end 2 Odd"]


def test_a_copied_handler_hears_its_own_runs() -> None:
    original = Ends()
    chain().invoke(1, {"callbacks": [original]})
    twin = copy.copy(original)
    twin.outputs = []
    chain().invoke(10, {"callbacks": [twin]})
    assert (original.outputs, twin.outputs) == ([2, 3, 3], [11, 12, 12])


def test_a_handler_with_slots_only_is_served() -> None:
    class Slotted(BaseCallbackHandler):
        __slots__ = ("ends",)

        def __init__(self) -> None:
            self.ends = 0

        def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
            self.ends += 1

    handler = Slotted()
    chain().invoke(1, {"callbacks": [handler]})
    assert handler.ends == 3


def test_several_handlers_hear_each_event_in_their_order() -> None:
    order: list[str] = []

    class Named(BaseCallbackHandler):
        def __init__(self, name: str) -> None:
            self.name = name

        def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
            order.append(f"{self.name}:{outputs}")

    RunnableLambda(add_one).invoke(1, {"callbacks": [Named("a"), Ends(), Named("b")]})
    assert order == ["a:2", "b:2"]


def test_a_raising_hook_is_logged_under_its_event(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(BaseCallbackHandler):
        def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
            raise KeyError("end broke")

    with caplog.at_level(logging.WARNING, logger="leanchain.callbacks"):
        assert RunnableLambda(add_one).invoke(1, {"callbacks": [Broken()]}) == 2
    assert caplog.messages == ["Error in Broken.on_chain_end callback: KeyError('end broke')"]


def test_a_hook_replaced_on_the_class_after_use_is_the_one_called(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Swapped(Ends):
        pass

    handler = Swapped()
    RunnableLambda(add_one).invoke(1, {"callbacks": [handler]})

    def doubled(self: Ends, outputs: Any, **kwargs: Any) -> None:
        self.outputs.append(outputs * 2)

    monkeypatch.setattr(Swapped, "on_chain_end", doubled)
    RunnableLambda(add_one).invoke(1, {"callbacks": [handler]})
    assert handler.outputs == [2, 4]


def test_a_class_with_fixed_hooks_has_its_table_read_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Fixed(Ends):
        """Like leanchain's per-call event collector: its hooks are the class's for good."""

        _hooks_fixed = True

    first = Fixed()
    chain().invoke(1, {"callbacks": [first]})
    monkeypatch.setattr(Fixed, "on_chain_end", lambda self, outputs, **kw: None)
    second = Fixed()
    chain().invoke(5, {"callbacks": [second]})
    assert (first.outputs, second.outputs) == ([2, 3, 3], [6, 7, 7])
