"""`format_to_tool_messages`: the steps so far as native tool-call messages."""

from __future__ import annotations

from leanchain.agents.format_scratchpad._steps import Steps, pairs
from leanchain.agents.schema import ToolAgentAction, observation_text
from leanchain.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = ["format_to_openai_tool_messages", "format_to_tool_messages"]


def format_to_tool_messages(intermediate_steps: Steps) -> list[BaseMessage]:
    """Replay the model's tool-call messages, each followed by the results of its calls.

    - A `ToolAgentAction` step adds the action's ``message_log`` (the model's message) and a
      `ToolMessage` with the observation text (a str as is, else JSON with non-ASCII kept,
      else ``str()``) and the call's ``tool_call_id``. A message already in the list (by
      equality) is not added again, so one model message with several tool calls appears once,
      followed by one `ToolMessage` per call.
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
    for action, observation in pairs(intermediate_steps):
        text = observation_text(observation)
        if isinstance(action, ToolAgentAction) and action.tool_call_id is not None:
            new = [
                *action.message_log,
                ToolMessage(
                    content=text,
                    tool_call_id=action.tool_call_id,
                    name=action.tool,
                    additional_kwargs={"name": action.tool},
                ),
            ]
            messages.extend([m for m in new if m not in messages])
        else:
            messages.append(AIMessage(content=action.log))
            messages.append(HumanMessage(content=text))
    return messages


format_to_openai_tool_messages = format_to_tool_messages
"""The same formatter under its OpenAI-era name."""
