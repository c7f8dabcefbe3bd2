"""LangChain's import path for `format_to_openai_tool_messages` (an alias)."""

from __future__ import annotations

from leanchain.agents.format_scratchpad.tools import format_to_openai_tool_messages

__all__ = ["format_to_openai_tool_messages"]
