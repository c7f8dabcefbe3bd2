"""`format_to_tool_messages`: the steps so far as native tool-call messages.

The scratchpad is written again on every step of a run, so this is the hot path of a
tool-calling agent. Two things keep it cheap without changing what it returns:

- within a run, only the steps added since the last call are written (`since`);
- a `ToolMessage` from known-valid values skips pydantic validation, and a step's messages
  are compared with the turn before it by identity first (LangChain compares every new
  message with every earlier one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from leanchain.agents.format_scratchpad._steps import Steps, since
from leanchain.agents.schema import AgentAction, ToolAgentAction, observation_text
from leanchain.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["format_to_openai_tool_messages", "format_to_tool_messages"]


_DEFAULTS: Final = {name: info.default for name, info in ToolMessage.model_fields.items()}
"""Every `ToolMessage` field at its default, in field order (what `_construct` expects)."""

_construct: Final = ToolMessage._construct
"""Read once: an attribute of a pydantic model class goes through its metaclass (~1k
instructions a read), and one is built per step."""


def _signature(message: BaseMessage) -> Any:
    """A hashable summary that equal messages share (so only look-alikes are compared whole)."""
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


def _same(said: Sequence[BaseMessage], turn: Sequence[BaseMessage]) -> bool:
    """Whether a step's messages are the current turn's (the same, or equal, messages)."""
    if len(said) != len(turn):
        return False
    return all(
        mine is theirs or (_signature(mine) == _signature(theirs) and mine == theirs)
        for mine, theirs in zip(said, turn, strict=True)
    )


class _Turns:
    """The messages written so far, and the model turn the next step may belong to."""

    __slots__ = ("messages", "turn", "unanswered")

    def __init__(self) -> None:
        self.messages: list[BaseMessage] = []
        self.turn: Sequence[BaseMessage] = ()  # the model message(s) of the current turn
        self.unanswered: dict[Any, int] = {}  # its tool-call ids not answered yet

    def add(self, action: AgentAction, observation: Any) -> None:
        if not (isinstance(action, ToolAgentAction) and action.tool_call_id is not None):
            text = observation_text(observation)
            self.messages += [AIMessage(content=action.log), HumanMessage(content=text)]
            self.turn, self.unanswered = (), {}
            return
        call_id, said = action.tool_call_id, action.message_log
        if not (self.unanswered.get(call_id) and _same(said, self.turn)):
            self.turn = said
            unanswered: dict[Any, int] = {}
            for message in said:
                for call in getattr(message, "tool_calls", None) or ():
                    made = call.get("id")
                    unanswered[made] = unanswered.get(made, 0) + 1
            self.unanswered = unanswered
            self.messages.extend(said)
        self.unanswered[call_id] = self.unanswered.get(call_id, 0) - 1
        # ``ToolMessage(observation_text(observation), tool_call_id=call_id, name=name,
        # additional_kwargs={"name": name})``, built without validation from known-valid
        # values (written here, not in a helper: one is built per step).
        name = action.tool
        # ASCII text is its own observation text (`readable`); anything else is written by it.
        if type(observation) is str and observation.isascii():
            content = observation
        else:
            content = observation_text(observation)
        if type(call_id) is not str or type(name) is not str:
            message = ToolMessage(
                content=content, tool_call_id=call_id, name=name, additional_kwargs={"name": name}
            )
        else:  # (unpacking keeps the defaults' key order; the given keys replace theirs)
            message = _construct(
                {
                    **_DEFAULTS,
                    "content": content,
                    "additional_kwargs": {"name": name},
                    "response_metadata": {},
                    "name": name,
                    "tool_call_id": call_id,
                }
            )
        self.messages.append(message)


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
    turns: _Turns
    turns, seen, new = since(intermediate_steps, format_to_tool_messages, _Turns)
    for step in new:
        action, observation = step
        turns.add(action, observation)
        seen.append(step)
    return turns.messages.copy()


format_to_openai_tool_messages = format_to_tool_messages
"""The same formatter under its OpenAI-era name."""
