"""`format_to_tool_messages`: the steps so far as native tool-call messages.

The scratchpad is rebuilt from all steps on every step of a run, so this is the hot path of a
tool-calling agent. Three things keep it cheap without changing what it returns:

- a `ToolMessage` from known-valid values skips pydantic validation;
- a step is matched with the turn before it (LangChain compares every new message with every
  earlier one), and then only look-alikes (same kind, id, text and tool-call ids) are
  compared whole;
- a step's messages are remembered while its action object lives (for text observations,
  which cannot change), so each step is turned into messages once per run, not once per step.
"""

from __future__ import annotations

import weakref
from collections import Counter
from functools import cache, partial
from typing import Any

from leanchain.agents.format_scratchpad._steps import Steps, pairs
from leanchain.agents.schema import AgentAction, ToolAgentAction, observation_text
from leanchain.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["format_to_openai_tool_messages", "format_to_tool_messages"]

Keyed = list[tuple[BaseMessage, Any]]
"""Messages with their look-alike signatures."""

_memo: dict[int, tuple[weakref.ref[AgentAction], str, Keyed]] = {}


@cache
def _tool_message_defaults() -> dict[str, Any]:
    """Every `ToolMessage` field at its default, in field order."""
    return {name: info.default for name, info in ToolMessage.model_fields.items()}


def _tool_message(content: str, call_id: Any, name: Any) -> ToolMessage:
    """``ToolMessage(content, tool_call_id=..., name=..., additional_kwargs={"name": name})``."""
    if type(call_id) is not str or type(name) is not str:
        return ToolMessage(
            content=content, tool_call_id=call_id, name=name, additional_kwargs={"name": name}
        )
    fields = _tool_message_defaults().copy()
    fields["content"] = content
    fields["additional_kwargs"] = {"name": name}
    fields["response_metadata"] = {}
    fields["name"] = name
    fields["tool_call_id"] = call_id
    return ToolMessage._construct(fields)


def _signature(message: BaseMessage) -> Any:
    """A hashable summary that equal messages share (so only look-alikes are compared)."""
    # Read the field values directly: a missing attribute on a pydantic model is slow.
    fields = message.__dict__
    content: Any = fields.get("content")
    try:
        key = (
            type(message),
            fields.get("id"),
            content if isinstance(content, str) else len(content),
            fields.get("tool_call_id"),
            tuple(call.get("id") for call in fields.get("tool_calls") or ()),
        )
        hash(key)
    except TypeError:
        return type(message)
    return key


def _forget(key: int, ref: weakref.ref[AgentAction]) -> None:
    entry = _memo.get(key)
    if entry is not None and entry[0] is ref:
        _memo.pop(key, None)


def _step_messages(action: ToolAgentAction, observation: Any) -> Keyed:
    """The action's messages and its tool result, with signatures (remembered, see above)."""
    key = id(action)
    entry = _memo.get(key)
    if entry is not None and entry[0]() is action and entry[1] is observation:
        return entry[2]
    text = observation_text(observation)
    result = _tool_message(text, action.tool_call_id, action.tool)
    keyed = [(m, _signature(m)) for m in (*action.message_log, result)]
    if type(observation) is str:
        _memo[key] = (weakref.ref(action, partial(_forget, key)), observation, keyed)
    return keyed


def format_to_tool_messages(intermediate_steps: Steps) -> list[BaseMessage]:
    """Replay the model's tool-call messages, each followed by the results of its calls.

    - A `ToolAgentAction` step adds the action's ``message_log`` (the model's message) and a
      `ToolMessage` with the observation text (a str as is, else JSON with non-ASCII kept,
      else ``str()``) and the call's ``tool_call_id``. The steps of one model message (one
      step per tool call, each carrying that message) add it once, followed by one
      `ToolMessage` per call.
    - A step starts a new model turn unless it answers a call of the turn before it that is
      still unanswered. So a server that gives every turn the same tool-call id (LiteLLM's
      mock answers ``call_mock_001`` each time, some local servers do too) still gets every
      call answered right after the message that made it. (LangChain drops any message
      equal to an earlier one, which drops the second turn's identical result and leaves its
      call unanswered.)
    - The tool's name is set both as ``ToolMessage.name`` (leanchain uses ToolMessage properly,
      as ``AgentStep.messages`` does) and, as in LangChain, in ``additional_kwargs["name"]``.
    - Any other action (a parse-error step ``_Exception`` from the executor, or a text agent's
      action) adds ``AIMessage(action.log)`` and then, where LangChain drops the observation,
      a `HumanMessage` with it: the model must see why its last reply was rejected (an invalid
      tool-call JSON, say), or it repeats it. These are the step's own ``AgentStep.messages``.

    Args:
        intermediate_steps: ``(action, observation)`` pairs (or `AgentStep`s), oldest first.
    """
    messages: list[BaseMessage] = []
    turn: Keyed = []  # the model message(s) of the current turn
    unanswered: Counter[Any] = Counter()  # its tool-call ids not answered yet
    for action, observation in pairs(intermediate_steps):
        if isinstance(action, ToolAgentAction) and action.tool_call_id is not None:
            keyed = _step_messages(action, observation)
            said, result = keyed[:-1], keyed[-1][0]
            if not (unanswered[action.tool_call_id] and _same(said, turn)):
                turn = said
                unanswered = Counter(_call_ids(said))
                messages.extend(message for message, _ in said)
            unanswered[action.tool_call_id] -= 1
            messages.append(result)
        else:
            text = observation_text(observation)
            messages += [AIMessage(content=action.log), HumanMessage(content=text)]
            turn, unanswered = [], Counter()
    return messages


def _same(said: Keyed, turn: Keyed) -> bool:
    """Whether a step's messages are the current turn's (the same, or equal, messages)."""
    if len(said) != len(turn):
        return False
    return all(
        mine is theirs or (key == their_key and mine == theirs)
        for (mine, key), (theirs, their_key) in zip(said, turn, strict=True)
    )


def _call_ids(said: Keyed) -> list[Any]:
    return [
        call.get("id") for message, _ in said for call in getattr(message, "tool_calls", None) or ()
    ]


format_to_openai_tool_messages = format_to_tool_messages
"""The same formatter under its OpenAI-era name."""
