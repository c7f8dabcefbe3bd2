"""Agent output parsers: read the model's reply as the agent's next decision.

Each parser reads only the model's new reply, never the scratchpad, so tool output shown to
the model cannot become a decision of the agent. Every parser runs in linear time on any input
and fails only with `OutputParserException` on text it cannot read (the tool-calls parsers
read messages, not text). A reply the model did not finish never becomes a tool call: cut-off
JSON is a parse error, and so is any action from a reply whose ``finish_reason`` is
``"length"`` (see `base`).
"""

from __future__ import annotations

from leanchain.agents.output_parsers.base import (
    AgentOutputParser,
    MultiActionAgentOutputParser,
)
from leanchain.agents.output_parsers.json import JSONAgentOutputParser
from leanchain.agents.output_parsers.openai_functions import OpenAIFunctionsAgentOutputParser
from leanchain.agents.output_parsers.openai_tools import OpenAIToolsAgentOutputParser
from leanchain.agents.output_parsers.react_single_input import ReActSingleInputOutputParser
from leanchain.agents.output_parsers.tools import ToolsAgentOutputParser
from leanchain.agents.output_parsers.xml import XMLAgentOutputParser

__all__ = [
    "AgentOutputParser",
    "JSONAgentOutputParser",
    "MultiActionAgentOutputParser",
    "OpenAIFunctionsAgentOutputParser",
    "OpenAIToolsAgentOutputParser",
    "ReActSingleInputOutputParser",
    "ToolsAgentOutputParser",
    "XMLAgentOutputParser",
]
