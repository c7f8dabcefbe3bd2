"""`ReActSingleInputOutputParser`: read "Action: … Action Input: …" or "Final Answer: …" text.

The matching is LangChain's (``Action\\s*\\d*\\s*:[\\s]*(.*?)Action\\s*\\d*\\s*Input\\s*\\d*\\s*:
[\\s]*(.*)`` with ``.`` matching newlines), rebuilt so that it runs in linear time on any
input. LangChain's single regex backtracks over runs of whitespace (CVE-2024-58340); here two
keyword patterns with possessive quantifiers find the keywords, and plain string slicing does
the rest:

- A keyword match can only start at the literal ``Action``; from there every quantifier is
  possessive, so one attempt reads the whitespace/digit run once and never gives it back.
- The run a failed attempt reads (whitespace, digits, ``Input``) cannot contain another
  ``Action``, so no character is read by two attempts: a search is linear in the text.
- The regex's lazy tool name with a leftmost match is exactly: the first ``Action…:``, then
  the first ``Action…Input…:`` after it (if there is none, no later ``Action…:`` has one
  either). The possessive forms match where the backtracking ones do, because the colon that
  ends a keyword is the first character after its whitespace/digit run.
"""

from __future__ import annotations

import re
from typing import Final

from leanchain.agents.output_parsers.base import AgentOutputParser, agent_action, agent_finish
from leanchain.agents.schema import AgentAction, AgentFinish
from leanchain.errors import OutputParserException

__all__ = [
    "FINAL_ANSWER_ACTION",
    "FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE",
    "FORMAT_INSTRUCTIONS",
    "MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE",
    "MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE",
    "ReActSingleInputOutputParser",
    "parse_react_single_input",
]

FINAL_ANSWER_ACTION: Final = "Final Answer:"
MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE: Final = (
    "Invalid Format: Missing 'Action:' after 'Thought:'"
)
MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE: Final = (
    "Invalid Format: Missing 'Action Input:' after 'Action:'"
)
FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE: Final = (
    "Parsing LLM output produced both a final answer and a parse-able action:"
)

FORMAT_INSTRUCTIONS: Final = """Use exactly this format, one keyword at the start of each line:

Question: the question you must answer
Thought: think about what to do next
Action: the tool to use, exactly one of [{tool_names}]
Action Input: the input to the tool
Observation: the result the tool returns
... (Thought / Action / Action Input / Observation may repeat as many times as needed)
Thought: I now know the final answer
Final Answer: the final answer to the original question

Never write an Observation yourself: stop after Action Input and wait for it. Each reply \
holds either an Action with its Action Input, or a Final Answer, never both."""
"""The ReAct keyword protocol; ``{tool_names}`` is filled in by the prompt."""

# "Action", an optional number, ":" (possessive: linear, see the module docstring).
_ACTION: Final = re.compile(r"Action\s*+\d*+\s*+:")
# "Action", an optional number, "Input", an optional number, ":" and the whitespace after it.
_ACTION_INPUT: Final = re.compile(r"Action\s*+\d*+\s*+Input\s*+\d*+\s*+:\s*+")


class ReActSingleInputOutputParser(AgentOutputParser):
    """Parses ReAct-style text into one `AgentAction` or an `AgentFinish`.

    - "Action: tool" followed later by "Action Input: input" (numbered forms such as
      "Action 1:" / "Action 1 Input 1:" too) gives ``AgentAction(tool, input, text)``: the
      tool name stripped of whitespace, the input of spaces and then of double quotes.
    - Otherwise "Final Answer:" gives ``AgentFinish({"output": answer}, text)``, the answer
      being the text after the last "Final Answer:", stripped.
    - Both at once, or neither, raise `OutputParserException` with LangChain's messages; a
      missing "Action:" or "Action Input:" is sent back to the model (``send_to_llm``).

    Runs in linear time on any input.
    """

    __slots__ = ()

    @property
    def _type(self) -> str:
        return "react-single-input"

    def get_format_instructions(self) -> str:
        """The keyword protocol the parser reads (``{tool_names}`` left to the prompt)."""
        return FORMAT_INSTRUCTIONS

    def parse(self, text: str) -> AgentAction | AgentFinish:
        """Read one ReAct step from `text`.

        Raises:
            OutputParserException: both an action and a final answer, or neither.
        """
        includes_answer = FINAL_ANSWER_ACTION in text
        action = _ACTION.search(text)
        action_input = _ACTION_INPUT.search(text, action.end()) if action is not None else None
        if action is not None and action_input is not None:
            if includes_answer:
                raise OutputParserException(
                    f"{FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE}: {text}"
                )
            tool = text[action.end() : action_input.start()].strip()
            tool_input = text[action_input.end() :].strip(" ").strip('"')
            return agent_action(tool, tool_input, text)
        if includes_answer:
            answer = text[text.rfind(FINAL_ANSWER_ACTION) + len(FINAL_ANSWER_ACTION) :].strip()
            return agent_finish({"output": answer}, text)
        if action is None:
            raise OutputParserException(
                f"Could not parse LLM output: `{text}`",
                observation=MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE,
                llm_output=text,
                send_to_llm=True,
            )
        if _ACTION_INPUT.search(text) is None:
            raise OutputParserException(
                f"Could not parse LLM output: `{text}`",
                observation=MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE,
                llm_output=text,
                send_to_llm=True,
            )
        raise OutputParserException(f"Could not parse LLM output: `{text}`")


_PARSER: Final = ReActSingleInputOutputParser()


def parse_react_single_input(text: str) -> AgentAction | AgentFinish:
    """Read one ReAct step from model text (`ReActSingleInputOutputParser.parse`).

    Raises:
        OutputParserException: the text has both an action and a final answer, or neither.
    """
    return _PARSER.parse(text)
