"""What the history middleware share: a scratchpad's steps in whole turns, and their size.

A *turn* is one model reply and what answered it: the steps of one tool-calling message (one
step per call, each carrying that message) belong together, since the message replays with
all its calls and every call needs its result right after it (a provider answers 400
otherwise). A text agent's step, and an unparsable reply's ``_Exception`` step, is a turn of
its own. `turn_starts` groups steps as `format_to_tool_messages` does, so a history edit that
cuts only before a turn's first step never separates a call from its result.

Sizes are tokens of the steps as the agent's own scratchpad formatter writes them, turn by
turn, counted with the user's `TokenCounter`.
"""

from __future__ import annotations

import itertools
import json
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from leanchain.agents.format_scratchpad._steps import Steps, pairs
from leanchain.agents.format_scratchpad.tools import format_to_tool_messages
from leanchain.agents.schema import AgentAction, ToolAgentAction
from leanchain.callbacks.weak import WeakMemo
from leanchain.errors import AgentConfigurationError
from leanchain.messages import (
    BaseMessage,
    HumanMessage,
    TokenCounter,
    list_token_counter,
)

__all__ = [
    "APPROXIMATE",
    "Formatter",
    "Pair",
    "StepSizer",
    "as_pairs",
    "call_text",
    "cut_point",
    "formatter_of",
    "turn_starts",
]

Pair: TypeAlias = tuple[AgentAction, Any]
"""One step as the executor keeps it: ``(action, observation)``."""

ERROR_TOOL = "_Exception"
APPROXIMATE: TokenCounter = "approximate"
"""The default token counter: `count_tokens_approximately`."""


def as_pairs(steps: Steps | None) -> list[Pair]:
    """The steps as a new list of ``(action, observation)`` pairs."""
    return list(pairs(steps or ()))


def _same(said: Sequence[BaseMessage], turn: Sequence[BaseMessage]) -> bool:
    if len(said) != len(turn):
        return False
    return all(a is b or a == b for a, b in zip(said, turn, strict=True))


def _call_ids(said: Sequence[BaseMessage]) -> list[Any]:
    return [call.get("id") for m in said for call in getattr(m, "tool_calls", None) or ()]


def turn_starts(steps: Sequence[Pair]) -> list[int]:
    """The index of the first step of each turn, in order (``[0, ...]`` for any steps).

    A `ToolAgentAction` step continues the turn before it when it carries the same message(s)
    and answers one of that message's calls not answered yet; every other step starts a turn.
    """
    starts: list[int] = []
    turn: Sequence[BaseMessage] = ()
    unanswered: Counter[Any] | None = None  # the turn's calls not answered yet (if several)
    for index, (action, _) in enumerate(steps):
        if not isinstance(action, ToolAgentAction) or action.tool_call_id is None:
            starts.append(index)
            turn, unanswered = (), None
            continue
        call_id = action.tool_call_id
        said = action.message_log
        if unanswered and unanswered[call_id] > 0 and _same(said, turn):
            unanswered[call_id] -= 1
            continue
        starts.append(index)
        turn = said
        ids = _call_ids(said)
        unanswered = Counter(ids) if len(ids) > 1 else None
        if unanswered is not None:
            unanswered[call_id] -= 1
    return starts


def cut_point(starts: Sequence[int], count: int, keep: int) -> int:
    """Where to cut `count` steps so that at least `keep` follow: a turn's first step (or the
    end), as late as possible; ``0`` when no cut leaves `keep` steps."""
    limit = count - keep
    if limit >= count:
        return count
    best = 0
    for start in starts:
        if start > limit:
            break
        best = start
    return best


def call_text(action: AgentAction) -> str:
    """How a step's call reads for a summariser: ``search({"text": "cats"})``."""
    if action.tool == ERROR_TOOL:
        return "(a reply that could not be read)"
    try:
        arguments = json.dumps(action.tool_input, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        arguments = repr(action.tool_input)
    return f"{action.tool}({arguments})"


ListCounter: TypeAlias = Callable[[list[BaseMessage]], int]
Formatter: TypeAlias = Callable[[Steps], Any]


def list_counter(token_counter: TokenCounter, who: str) -> ListCounter:
    """`token_counter` as a function of a list of messages (`list_token_counter`).

    Raises:
        AgentConfigurationError: it is none of the forms `TokenCounter` allows.
    """
    try:
        return list_token_counter(token_counter)
    except ValueError:
        raise AgentConfigurationError(
            f"{who} token_counter must be 'approximate', a function of a list of messages (or "
            "of one message), or a model with get_num_tokens_from_messages; got "
            f"{type(token_counter).__name__}: {token_counter!r}"
        ) from None


_Counted: TypeAlias = tuple["weakref.ref[Formatter]", tuple[Any, ...], int]
"""A turn's count: the formatter (weakly: a cache keeps no user object alive) and the
observations it was counted with, and the tokens."""


def formatter_of(agent: Any) -> Formatter:
    """The agent's scratchpad formatter (a factory-built agent's), else tool messages."""
    formatter = getattr(agent, "format_scratchpad", None)
    return formatter if callable(formatter) else format_to_tool_messages


class StepSizer:
    """Counts the tokens of steps as the agent's scratchpad formatter writes them.

    Each turn is written on its own and counted (a text scratchpad as one human message), so
    the total is what the whole scratchpad takes, up to rounding. A turn's count is
    remembered while its first action lives, with the observations it was counted with, so
    an edited turn (a cleared result) is counted again.
    """

    __slots__ = ("_count", "_memo")

    def __init__(self, token_counter: TokenCounter, who: str) -> None:
        self._count = list_counter(token_counter, who)
        self._memo: WeakMemo[tuple[_Counted, ...]] = WeakMemo(limit=8192)

    def written(self, scratchpad: Any) -> int:
        """The tokens of a formatted scratchpad (text, or messages)."""
        if isinstance(scratchpad, str):
            return int(self._count([HumanMessage(content=scratchpad)])) if scratchpad else 0
        return int(self._count(list(scratchpad)))

    def turn(self, formatter: Formatter, steps: Sequence[Pair]) -> int:
        """The tokens of one turn's steps."""
        first = steps[0][0]
        known = self._memo.get(first) or ()
        for counted, observations, tokens in known:
            if (
                counted() is formatter
                and len(observations) == len(steps)
                and all(seen is step[1] for seen, step in zip(observations, steps, strict=True))
            ):
                return tokens
        tokens = self.written(formatter(steps))
        try:
            ref = weakref.ref(formatter)
        except TypeError:  # not weakly referable: counted each time
            return tokens
        entry = (ref, tuple(observation for _, observation in steps), tokens)
        # Two entries: a turn is often counted as it is and as edited (results cleared).
        self._memo.put(first, (entry, *known[:1]))
        return tokens

    def steps(
        self, formatter: Formatter, steps: Sequence[Pair], starts: Sequence[int], begin: int = 0
    ) -> int:
        """The tokens of ``steps[begin:]`` (`begin` is the first step of a turn)."""
        bounds = [start for start in starts if start >= begin]
        bounds.append(len(steps))
        return sum(
            self.turn(formatter, steps[start:end])
            for start, end in itertools.pairwise(bounds)
            if end > start
        )
