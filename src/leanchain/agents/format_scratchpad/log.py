"""`format_log_to_str`: the steps so far as ReAct-style text, for a string scratchpad."""

from __future__ import annotations

from leanchain.agents.format_scratchpad._steps import Steps, since

__all__ = ["format_log_to_str"]


def format_log_to_str(
    intermediate_steps: Steps,
    observation_prefix: str = "Observation: ",
    llm_prefix: str = "Thought: ",
) -> str:
    """Write each step as the model's own log, then the observation, then a fresh prefix.

    ``[(AgentAction("Tool1", "input1", "Log1"), "Observation1")]`` gives
    ``"Log1\\nObservation: Observation1\\nThought: "``; no steps give ``""``. The observation
    is written with ``str()``, as it is: it is data for the model, and the parsers never read
    the scratchpad.

    Args:
        intermediate_steps: ``(action, observation)`` pairs (or `AgentStep`s), oldest first.
        observation_prefix: written before each observation.
        llm_prefix: written after each observation, where the model continues.
    """
    key = (format_log_to_str, observation_prefix, llm_prefix)
    parts: list[str]
    parts, seen, new = since(intermediate_steps, key, list)
    for step in new:
        action, observation = step
        parts.append(f"{action.log}\n{observation_prefix}{observation}\n{llm_prefix}")
        seen.append(step)
    return "".join(parts)
