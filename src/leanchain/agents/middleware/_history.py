"""What the history middleware share: a scratchpad's steps in whole turns, and their size.

A *turn* is one model reply and what answered it: the steps of one tool-calling message (one
step per call, each carrying that message) belong together, since the message replays with
all its calls and every call needs its result right after it (a provider answers 400
otherwise). A text agent's step, and an unparsable reply's ``_Exception`` step, is a turn of
its own. `turn_starts` groups steps as `format_to_tool_messages` does, so a history edit that
cuts only before a turn's first step never separates a call from its result.

Sizes are tokens of the steps written as chat messages (`AgentStep.messages`: the model's
message, once per turn, then the result), counted with the user's `TokenCounter`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from leanchain.agents.format_scratchpad._steps import Steps, pairs
from leanchain.agents.schema import AgentAction, AgentStep, ToolAgentAction
from leanchain.callbacks._weak import WeakMemo
from leanchain.errors import AgentConfigurationError
from leanchain.messages import AIMessage, BaseMessage, TokenCounter, count_tokens_approximately
from leanchain.messages._trim import _counts_one_message

__all__ = ["APPROXIMATE", "Pair", "StepSizer", "as_pairs", "call_text", "cut_point", "turn_starts"]

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
    unanswered: Counter[Any] = Counter()
    for index, (action, _) in enumerate(steps):
        if isinstance(action, ToolAgentAction) and action.tool_call_id is not None:
            said = action.message_log
            if not (unanswered[action.tool_call_id] > 0 and _same(said, turn)):
                starts.append(index)
                turn, unanswered = said, Counter(_call_ids(said))
            unanswered[action.tool_call_id] -= 1
        else:
            starts.append(index)
            turn, unanswered = (), Counter()
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


def list_counter(token_counter: TokenCounter, who: str) -> ListCounter:
    """`token_counter` as a function of a list of messages (as `trim_messages` reads it).

    Raises:
        AgentConfigurationError: it is none of the forms `TokenCounter` allows.
    """
    if token_counter == APPROXIMATE:
        return count_tokens_approximately
    method = getattr(token_counter, "get_num_tokens_from_messages", None)
    if callable(method):
        return method  # type: ignore[no-any-return]
    if callable(token_counter):
        if _counts_one_message(token_counter):
            count_one: Callable[[BaseMessage], int] = token_counter  # type: ignore[assignment]
            return lambda messages: sum(count_one(m) for m in messages)
        return token_counter  # type: ignore[return-value]
    raise AgentConfigurationError(
        f"{who} token_counter must be 'approximate', a function of a list of messages (or of "
        "one message), or a model with get_num_tokens_from_messages; got "
        f"{type(token_counter).__name__}: {token_counter!r}"
    )


class StepSizer:
    """Counts the tokens of steps, remembering each step's count while its action lives.

    A step counts its result message, and the model's message too when it starts a turn (a
    plain action's ``AIMessage(log)``, a tool call's ``message_log``). The count of one
    action is remembered with the observation it was counted with, so an edited observation
    (a cleared result) is counted again.
    """

    __slots__ = ("_count", "_memo")

    def __init__(self, token_counter: TokenCounter, who: str) -> None:
        self._count = list_counter(token_counter, who)
        self._memo: WeakMemo[tuple[Any, bool, int]] = WeakMemo(limit=8192)

    def messages(self, messages: list[BaseMessage]) -> int:
        """The tokens of `messages`."""
        return int(self._count(messages))

    def step(self, action: AgentAction, observation: Any, first: bool) -> int:
        """The tokens of one step; `first`: it starts its turn."""
        known = self._memo.get(action)
        if known is not None and known[0] is observation and known[1] == first:
            return known[2]
        result = AgentStep(action, observation).messages
        said: list[BaseMessage] = []
        if first:
            if isinstance(action, ToolAgentAction) and action.tool_call_id is not None:
                said = list(action.message_log)
            else:
                said = [AIMessage(content=action.log)]
        tokens = self.messages([*said, *result])
        self._memo.put(action, (observation, first, tokens))
        return tokens

    def steps(self, steps: Sequence[Pair], starts: Sequence[int], begin: int = 0) -> int:
        """The tokens of ``steps[begin:]`` (`begin` is the first step of a turn)."""
        firsts = set(starts)
        return sum(
            self.step(action, observation, index in firsts)
            for index, (action, observation) in enumerate(steps[begin:], start=begin)
        )
