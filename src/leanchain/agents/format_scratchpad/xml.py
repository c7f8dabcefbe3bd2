"""`format_xml`: the steps so far in the XML agent's tags, with the tags in the data escaped."""

from __future__ import annotations

from typing import Literal

from leanchain.agents.format_scratchpad._steps import Steps, since
from leanchain.agents.output_parsers.xml import escape_xml_tags

__all__ = ["format_xml"]


def format_xml(
    intermediate_steps: Steps, *, escape_format: Literal["minimal"] | None = "minimal"
) -> str:
    """Write each step as ``<tool>…</tool><tool_input>…</tool_input><observation>…</observation>``.

    No separators between steps; no steps give ``""``. The tool input and observation are
    written with ``str()``.

    With ``escape_format="minimal"`` (the default), the six protocol tags inside the tool
    name, the input and the observation are written as ``[[tool]]``, ``[[/tool]]``,
    ``[[tool_input]]``, ``[[/tool_input]]``, ``[[observation]]`` and ``[[/observation]]``, so
    a tool's output cannot fake the agent's structure (observations are untrusted data).
    Nothing else is escaped: other tags, ``&`` and ``<`` stay as they are.
    `XMLAgentOutputParser` undoes these escapes, so a name or input goes through the
    scratchpad and back unchanged (for text without ``[[`` of its own). With ``None``,
    nothing is replaced.

    Args:
        intermediate_steps: ``(action, observation)`` pairs (or `AgentStep`s), oldest first.
        escape_format: ``"minimal"`` or ``None``.

    Raises:
        ValueError: an unknown `escape_format`.
    """
    if escape_format not in ("minimal", None):
        raise ValueError(f"escape_format must be 'minimal' or None, got {escape_format!r}")
    escape = escape_format == "minimal"

    parts: list[str]
    parts, seen, new = since(intermediate_steps, (format_xml, escape), list)
    for step in new:
        action, observation = step
        tool, tool_input, result = action.tool, str(action.tool_input), str(observation)
        # (`escape_xml_tags` keeps text with no "<" as it is: three calls less per step.)
        if escape and ("<" in tool or "<" in tool_input or "<" in result):
            tool, tool_input, result = (
                escape_xml_tags(tool),
                escape_xml_tags(tool_input),
                escape_xml_tags(result),
            )
        parts.append(
            f"<tool>{tool}</tool><tool_input>{tool_input}</tool_input>"
            f"<observation>{result}</observation>"
        )
        seen.append(step)
    return "".join(parts)
