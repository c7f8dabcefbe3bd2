"""`format_to_openai_function_messages`: the steps of an OpenAI functions agent as messages."""

from __future__ import annotations

import json
from typing import Any

from leanchain.agents.format_scratchpad._steps import Steps, fold
from leanchain.agents.schema import AgentAction, AgentActionMessageLog
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
    key = format_to_openai_function_messages
    messages: list[BaseMessage] = fold(steps, key, list, _add_function_step)
    return messages.copy()


def _add_function_step(messages: list[BaseMessage], action: AgentAction, observation: Any) -> None:
    if isinstance(action, AgentActionMessageLog):
        messages.extend(action.message_log)
        messages.append(FunctionMessage(name=action.tool, content=_observation_text(observation)))
    else:
        messages.append(AIMessage(action.log))


format_to_openai_functions = format_to_openai_function_messages
"""LangChain's alias."""
