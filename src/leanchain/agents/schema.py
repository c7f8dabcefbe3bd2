"""What an agent decides and what happened: actions, finishes and steps.

These are small immutable values. Each has ``.messages``: how it reads as chat messages in a
stream chunk or a scratchpad.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from leanchain.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage, content_text

__all__ = [
    "AgentAction",
    "AgentActionMessageLog",
    "AgentFinish",
    "AgentStep",
    "ToolAgentAction",
    "observation_text",
]


def observation_text(observation: Any) -> str:
    """An observation as text: strings as they are, else JSON (non-ASCII kept), else ``str``.

    Lone surrogates become U+FFFD, and a value no text can carry (an int of 5,000 digits,
    nesting 5,000 deep) becomes a sentence saying so (`content_text`): the model gets a
    readable observation, and the run goes on.
    """
    return content_text(observation)


@dataclass(frozen=True)
class AgentAction:
    """A request to run `tool` with `tool_input`; `log` is the model text that asked for it."""

    tool: str
    """The name of the tool to run."""
    tool_input: str | dict[str, Any]
    """The tool's input: a string for single-input tools, else the arguments."""
    log: str
    """The model's own text for this decision (what a scratchpad shows it again)."""

    type: ClassVar[str] = "AgentAction"

    @property
    def messages(self) -> list[BaseMessage]:
        """The action as the model said it."""
        return [AIMessage(content=self.log)]

    def model_dump(self) -> dict[str, Any]:
        """The action as plain data."""
        return {
            "tool": self.tool,
            "tool_input": self.tool_input,
            "log": self.log,
            "type": self.type,
        }


@dataclass(frozen=True)
class AgentActionMessageLog(AgentAction):
    """An action that came from chat messages (kept so the scratchpad can replay them)."""

    message_log: Sequence[BaseMessage] = field(default_factory=tuple)
    """The model messages that produced the action."""

    type: ClassVar[str] = "AgentActionMessageLog"

    @property
    def messages(self) -> list[BaseMessage]:
        """The messages that produced the action."""
        return list(self.message_log)

    def model_dump(self) -> dict[str, Any]:
        """The action as plain data."""
        return {
            **super().model_dump(),
            "message_log": [m.model_dump() for m in self.message_log],
        }


@dataclass(frozen=True)
class ToolAgentAction(AgentActionMessageLog):
    """An action from a native tool call; `tool_call_id` ties the result back to the call."""

    tool_call_id: str | None = None
    """The provider's id for the tool call."""

    def model_dump(self) -> dict[str, Any]:
        """The action as plain data."""
        return {**super().model_dump(), "tool_call_id": self.tool_call_id}


@dataclass(frozen=True)
class AgentFinish:
    """The agent's final answer."""

    return_values: dict[str, Any]
    """What the run returns, usually ``{"output": answer}``."""
    log: str
    """The model's own text for the answer."""

    type: ClassVar[str] = "AgentFinish"

    @property
    def messages(self) -> list[BaseMessage]:
        """The answer as the model said it."""
        return [AIMessage(content=self.log)]

    def model_dump(self) -> dict[str, Any]:
        """The finish as plain data."""
        return {"return_values": self.return_values, "log": self.log, "type": self.type}


@dataclass(frozen=True)
class AgentStep:
    """An action together with what its tool returned."""

    action: AgentAction
    """The action that ran."""
    observation: Any
    """What the tool returned (or the error observation)."""

    @property
    def messages(self) -> list[BaseMessage]:
        """The observation as the model will see it.

        A native tool call's result is a `ToolMessage` with the call's id and the tool's name;
        any other observation is a `HumanMessage` (leanchain never uses FunctionMessage).
        """
        text = observation_text(self.observation)
        action = self.action
        if isinstance(action, ToolAgentAction) and action.tool_call_id is not None:
            return [ToolMessage(content=text, tool_call_id=action.tool_call_id, name=action.tool)]
        return [HumanMessage(content=text)]


_new = object.__new__

# Quick constructors of the frozen dataclasses above, for the hot path (parsers build an action
# or a finish per reply, the loop a step per tool call): the dataclass's ``__init__`` sets each
# field through ``object.__setattr__``; these write the new object's ``__dict__`` in place
# (tests keep each equal to its constructor).


def agent_action(tool: str, tool_input: str | dict[str, Any], log: str) -> AgentAction:
    """``AgentAction(tool, tool_input, log)``, built in half the time."""
    action = _new(AgentAction)
    fields = action.__dict__  # filled in place: cheaper than assigning a new __dict__
    fields["tool"] = tool
    fields["tool_input"] = tool_input
    fields["log"] = log
    return action


def agent_finish(return_values: dict[str, Any], log: str) -> AgentFinish:
    """``AgentFinish(return_values, log)``, built as `agent_action` builds an action."""
    finish = _new(AgentFinish)
    fields = finish.__dict__
    fields["return_values"] = return_values
    fields["log"] = log
    return finish


def agent_step(action: AgentAction, observation: Any) -> AgentStep:
    """``AgentStep(action, observation)``, built as `agent_action` builds an action."""
    step = _new(AgentStep)
    fields = step.__dict__
    fields["action"] = action
    fields["observation"] = observation
    return step
