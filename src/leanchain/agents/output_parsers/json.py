"""`JSONAgentOutputParser`: read a ``{"action": …, "action_input": …}`` blob, fenced or not.

The blob must be complete JSON. LangChain closes a cut-off blob (``{"action": "t",
"action_input": {"word": "ban`` reads as ``{"word": "ban"}``) and so runs the tool on half its
arguments; leanchain raises `OutputParserException` instead, the same rule as for cut-off
tool-call arguments. A fenced blob may still lack its closing fence: the JSON inside is whole.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from leanchain._partial_json import (
    JSON_STARTS,
    MARKDOWN_STRIP,
    SCAN_LENIENT,
    parse_complete_json,
    parse_json_markdown,
)
from leanchain.agents.output_parsers.base import AgentOutputParser, agent_action, agent_finish
from leanchain.agents.schema import AgentAction, AgentFinish
from leanchain.errors import OutputParserException

__all__ = ["JSONAgentOutputParser", "parse_json_agent_output"]

logger = logging.getLogger(__name__)


_WHOLE_FIRST: Final = JSON_STARTS | frozenset(MARKDOWN_STRIP)
"""First characters for which `parse_json_markdown` may read the whole text before a fence."""
_NOT_FENCED: Final = object()
_INPUT_TYPES: Final = (str, dict)  # a tuple: isinstance reads it faster than ``str | dict``


def _fenced(text: str) -> Any:
    """The JSON value of the usual fenced reply, read in one scan; else `_NOT_FENCED`.

    ``parse_json_markdown(text, parser=parse_complete_json)`` strips the text, slices its first
    fence's content out, strips that and decodes it. For a reply whose first fence opens at
    its start or after prose (no whole-text attempt, or one that reads the same value), whose
    fence holds one JSON value on its first line or the next and is closed right after it
    (a newline at most between), the scanner read in place at the value's start gives exactly
    that value. Any other reply, or one the scanner refuses, goes the general way, so errors
    and the cases between are its own.
    """
    fence = text.find("```")
    if fence != 0 and (fence < 0 or text[0] in _WHOLE_FIRST):
        return _NOT_FENCED
    start = fence + 7 if text.startswith("json", fence + 3) else fence + 3
    at = start + 1 if text.startswith("\n", start) else start
    try:
        value, end = SCAN_LENIENT(text, at)
    except Exception:  # not one JSON value there: the general way says why
        return _NOT_FENCED
    close = text.find("```", start)
    if close == end or (close == end + 1 and text[end] == "\n"):
        return value
    return _NOT_FENCED


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
        response = _fenced(text)
        try:
            if response is _NOT_FENCED:
                response = parse_json_markdown(text, parser=parse_complete_json)
            if isinstance(response, list):
                # The count, not the reply: model output (and whatever a tool put in it)
                # stays out of the logs.
                logger.warning("Got multiple action responses: %d; using the first", len(response))
                response = response[0]
            action = response["action"]
            if action == "Final Answer":
                return agent_finish({"output": response["action_input"]}, text)
            action_input = response.get("action_input")  # (no {} built when it is there)
            if action_input is None:  # missing or null
                action_input = {}
            # LangChain's pydantic AgentAction rejects these; the dataclass would not, so say
            # it here.
            if not isinstance(action, str):
                raise TypeError(f"action must be a string, got {type(action).__name__}")
            if not isinstance(action_input, _INPUT_TYPES):
                raise TypeError(f"action_input must be a string or an object, got {action_input!r}")
            return agent_action(action, action_input, text)
        except Exception as e:
            raise OutputParserException(f"Could not parse LLM output: {text}") from e


_PARSER: Final = JSONAgentOutputParser()


def parse_json_agent_output(text: str) -> AgentAction | AgentFinish:
    """Read one JSON agent step from model text (`JSONAgentOutputParser.parse`).

    Raises:
        OutputParserException: no usable JSON blob (cut-off JSON included).
    """
    return _PARSER.parse(text)
