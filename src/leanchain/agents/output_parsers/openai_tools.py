"""`OpenAIToolsAgentOutputParser`: the tool-calls parser under its OpenAI-era name."""

from __future__ import annotations

from leanchain.agents.output_parsers.tools import ToolsAgentOutputParser
from leanchain.agents.schema import ToolAgentAction

__all__ = ["OpenAIToolAgentAction", "OpenAIToolsAgentOutputParser"]

OpenAIToolAgentAction = ToolAgentAction
"""The same class as `ToolAgentAction` (LangChain's alias)."""


class OpenAIToolsAgentOutputParser(ToolsAgentOutputParser):
    """Identical to `ToolsAgentOutputParser`; used by ``create_openai_tools_agent``."""

    __slots__ = ()

    @property
    def _type(self) -> str:
        return "openai-tools-agent-output-parser"
