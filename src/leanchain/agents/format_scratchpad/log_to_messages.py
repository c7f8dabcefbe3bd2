"""`format_log_to_messages`: the steps so far as an AI/human message exchange."""

from __future__ import annotations

from typing import Any

from leanchain.agents.format_scratchpad._steps import Steps, fold
from leanchain.agents.schema import AgentAction
from leanchain.messages import AIMessage, BaseMessage, HumanMessage
from leanchain.prompts import format_template

__all__ = ["format_log_to_messages"]


def format_log_to_messages(
    intermediate_steps: Steps, template_tool_response: str = "{observation}"
) -> list[BaseMessage]:
    """Write each step as ``AIMessage(action.log)`` then a `HumanMessage` with the observation.

    Args:
        intermediate_steps: ``(action, observation)`` pairs (or `AgentStep`s), oldest first.
        template_tool_response: the human message's text; ``{observation}`` is replaced by
            the observation (an f-string template, validated like every leanchain template).
    """

    def add(messages: list[BaseMessage], action: AgentAction, observation: Any) -> None:
        messages.append(AIMessage(content=action.log))
        text = format_template(template_tool_response, {"observation": observation})
        messages.append(HumanMessage(content=text))

    key = (format_log_to_messages, template_tool_response)
    return fold(intermediate_steps, key, list, add).copy()
