"""Scratchpad formatters: an agent's steps so far, written the way its prompt expects them.

The scratchpad is input to the model. Observations in it are untrusted data: they are
written (and, for XML, escaped) but never parsed, because the agent's parsers only ever read
the model's new reply.
"""

from __future__ import annotations

from leanchain.agents.format_scratchpad.log import format_log_to_str
from leanchain.agents.format_scratchpad.log_to_messages import format_log_to_messages
from leanchain.agents.format_scratchpad.openai_functions import (
    format_to_openai_function_messages,
    format_to_openai_functions,
)
from leanchain.agents.format_scratchpad.tools import (
    format_to_openai_tool_messages,
    format_to_tool_messages,
)
from leanchain.agents.format_scratchpad.xml import format_xml

__all__ = [
    "format_log_to_messages",
    "format_log_to_str",
    "format_to_openai_function_messages",
    "format_to_openai_functions",
    "format_to_openai_tool_messages",
    "format_to_tool_messages",
    "format_xml",
]
