"""`format_to_openai_function_messages`: the steps of an OpenAI functions agent as messages."""

from __future__ import annotations

import json
from typing import Any

from leanchain.agents.format_scratchpad._steps import Steps, pairs
from leanchain.agents.schema import AgentActionMessageLog
from leanchain.messages import AIMessage, BaseMessage, FunctionMessage

__all__ = ["format_to_openai_function_messages", "format_to_openai_functions"]


def _observation_text(observation: Any) -> str:
    if isinstance(observation, str):
        return observation
    try:
        return json.dumps(observation, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(observation)


def format_to_openai_function_messages(steps: Steps) -> list[BaseMessage]:
    """The steps as messages: each call's message log, then a `FunctionMessage` with its result.

    A step whose action has no message log (a plain `AgentAction`) gives only
    ``AIMessage(action.log)``; its observation is dropped, as in LangChain.
    """
    messages: list[BaseMessage] = []
    for action, observation in pairs(steps):
        if isinstance(action, AgentActionMessageLog):
            messages.extend(action.message_log)
            messages.append(
                FunctionMessage(name=action.tool, content=_observation_text(observation))
            )
        else:
            messages.append(AIMessage(action.log))
    return messages


format_to_openai_functions = format_to_openai_function_messages
"""LangChain's alias."""
