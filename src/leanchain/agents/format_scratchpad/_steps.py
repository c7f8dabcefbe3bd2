"""The shape of an agent's intermediate steps, as every formatter accepts them, and the run's
memo that lets a formatter write only the steps added since its last call.

An executor calls its agent once per iteration with all the steps so far, and the agent's
formatter writes them all again: the same work, growing with every step. The executor hands
the steps over as `RunSteps`, a list that also carries a memo for the run, and a formatter
built on `fold` keeps what it wrote there: the next call checks that the steps it saw are
still the first ones (the same objects, in order) and adds only the new ones. Anything else
(a plain list, steps a middleware rewrote, a window that dropped the oldest step) is written
from the start, so the result is the same as without the memo, with one difference on
purpose: an observation is written when its step is first seen, and an object a tool changes
later is not written again (the model already read it; the text it was sent stays the same,
which also keeps a provider's prompt cache valid).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from operator import is_
from typing import Any, TypeAlias, TypeVar

from leanchain.agents.schema import AgentAction, AgentStep

__all__ = ["RunSteps", "Steps", "fold", "pairs"]

Steps: TypeAlias = Sequence[tuple[AgentAction, Any] | AgentStep]
"""``(action, observation)`` pairs as the executor keeps them, or `AgentStep` values."""

State = TypeVar("State")


class RunSteps(list[tuple[AgentAction, Any]]):
    """The steps an executor gives its agent for one call: a list, and the run's memo.

    The memo is shared by every call of one run (one dict per run, keyed by formatter), so
    it lives and dies with the run.
    """

    __slots__ = ("memo",)

    def __init__(self, steps: Iterable[tuple[AgentAction, Any]], memo: dict[Any, Any]) -> None:
        list.__init__(self, steps)  # (not super(): one is built per agent step)
        self.memo = memo


def pairs(steps: Steps) -> Iterator[tuple[AgentAction, Any]]:
    """The steps as ``(action, observation)`` pairs."""
    for step in steps:
        if isinstance(step, AgentStep):
            yield step.action, step.observation
        else:
            yield step


def fold(
    steps: Steps,
    key: Hashable,
    start: Callable[[], State],
    add: Callable[[State, AgentAction, Any], None],
) -> State:
    """``start()`` with ``add(state, action, observation)`` applied to every step, in order.

    With `RunSteps`, the state is kept in the run's memo under `key` (the formatter and its
    options), and a later call of the run that still starts with the steps seen so far
    applies `add` to the new steps only. `add` may change the state in place; the caller
    must not hand out the state's own lists (copy them).
    """
    if isinstance(steps, RunSteps):
        kept = steps.memo.get(key)
        if kept is not None:
            seen, state = kept
            count = len(seen)
            if count <= len(steps) and all(map(is_, seen, steps)):
                for pair in steps[count:]:
                    add(state, pair[0], pair[1])
                    seen.append(pair)
                return state  # type: ignore[no-any-return]
    state = start()
    if steps:  # (an executor's first call has none: no generator for them)
        for action, observation in pairs(steps):
            add(state, action, observation)
    if isinstance(steps, RunSteps):
        steps.memo[key] = (list(steps), state)
    return state
