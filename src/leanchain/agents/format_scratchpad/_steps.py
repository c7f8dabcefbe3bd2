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

__all__ = ["RunSteps", "Steps", "fold", "pairs", "since"]

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


def since(
    steps: Steps, key: Hashable, start: Callable[[], State]
) -> tuple[State, list[Any], Sequence[tuple[AgentAction, Any]]]:
    """The state written so far for `key`, the steps it holds (``seen``) and the steps to add.

    With `RunSteps` whose first steps are the ones seen (the same objects, in order), the
    state kept in the run's memo and the steps after those; else a fresh ``start()`` (kept
    in the memo under `key` for `RunSteps`) and every step as an ``(action, observation)``
    pair. The caller writes each new pair into the state and then appends it to ``seen``,
    one at a time, so that what the memo holds always matches what was written (a step
    whose writing raised is written again next time). A formatter loops over the new steps
    itself: no call per step, and no closure built per call.
    """
    if isinstance(steps, RunSteps):
        memo = steps.memo
        kept = memo.get(key)
        if kept is not None:
            seen, state = kept
            count = len(seen)
            if count <= len(steps) and all(map(is_, seen, steps)):
                return state, seen, steps[count:]
        seen = []
        state = start()
        memo[key] = (seen, state)
    else:
        seen, state = [], start()
    # (An executor's first call has no steps: no generator for them.)
    return state, seen, list(pairs(steps)) if steps else ()


def fold(
    steps: Steps,
    key: Hashable,
    start: Callable[[], State],
    add: Callable[[State, AgentAction, Any], None],
) -> State:
    """``start()`` with ``add(state, action, observation)`` applied to every step, in order.

    With `RunSteps`, the state is kept in the run's memo under `key` (the formatter and its
    options), and a later call of the run that still starts with the steps seen so far
    applies `add` to the new steps only (`since`). `add` may change the state in place; the
    caller must not hand out the state's own lists (copy them).
    """
    state, seen, new = since(steps, key, start)
    for pair in new:
        action, observation = pair
        add(state, action, observation)
        seen.append(pair)
    return state
