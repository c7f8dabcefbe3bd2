"""`JSONAgentOutputParser`: read a ``{"action": …, "action_input": …}`` blob, fenced or not.

The blob must be complete JSON. LangChain closes a cut-off blob (``{"action": "t",
"action_input": {"word": "ban`` reads as ``{"word": "ban"}``) and so runs the tool on half its
arguments; leanchain raises `OutputParserException` instead, the same rule as for cut-off
tool-call arguments. A fenced blob may still lack its closing fence: the JSON inside is whole.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from leanchain._partial_json import parse_complete_json, parse_json_markdown
from leanchain.agents.output_parsers.base import AgentOutputParser, agent_action, agent_finish
from leanchain.agents.schema import AgentAction, AgentFinish
from leanchain.errors import OutputParserException

__all__ = ["JSONAgentOutputParser", "parse_json_agent_output"]

logger = logging.getLogger(__name__)


def _decide(response: Any, text: str) -> AgentAction | AgentFinish:
    if isinstance(response, list):
        # The count, not the reply: model output (and whatever a tool put in it) stays out of
        # the logs.
        logger.warning("Got multiple action responses: %d; using the first", len(response))
        response = response[0]
    action = response["action"]
    if action == "Final Answer":
        return agent_finish({"output": response["action_input"]}, text)
    action_input = response.get("action_input", {})
    if action_input is None:
        action_input = {}
    # LangChain's pydantic AgentAction rejects these; the dataclass would not, so say it here.
    if not isinstance(action, str):
        raise TypeError(f"action must be a string, got {type(action).__name__}")
    if not isinstance(action_input, str | dict):
        raise TypeError(f"action_input must be a string or an object, got {action_input!r}")
    return agent_action(action, action_input, text)


class JSONAgentOutputParser(AgentOutputParser):
    """Parses a JSON action blob into one `AgentAction` or an `AgentFinish`.

    The text is read by ``parse_json_markdown``: the whole text first, else its first
    ```` ``` ```` fence (up to its closing fence, or the end of the text). The JSON must be
    complete: cut-off JSON is a parse error, never an action on part of its input
    (**leanchain**; LangChain closes it). A list takes its first element (with a logged
    warning). ``"action": "Final Answer"`` gives ``AgentFinish({"output":
    action_input}, text)``; any other action gives ``AgentAction(action, action_input, text)``,
    a missing or null ``action_input`` becoming ``{}``. The action must be a string and its
    input a string or an object. Anything else raises `OutputParserException` "Could not parse
    LLM output: {text}", with the cause chained. Runs in linear time on any input.
    """

    __slots__ = ()

    @property
    def _type(self) -> str:
        return "json-agent"

    def parse(self, text: str) -> AgentAction | AgentFinish:
        """Read one JSON agent step from `text`.

        Raises:
            OutputParserException: no usable JSON blob (cut-off JSON included).
        """
        try:
            return _decide(parse_json_markdown(text, parser=parse_complete_json), text)
        except Exception as e:
            raise OutputParserException(f"Could not parse LLM output: {text}") from e


_PARSER: Final = JSONAgentOutputParser()


def parse_json_agent_output(text: str) -> AgentAction | AgentFinish:
    """Read one JSON agent step from model text (`JSONAgentOutputParser.parse`).

    Raises:
        OutputParserException: no usable JSON blob (cut-off JSON included).
    """
    return _PARSER.parse(text)
