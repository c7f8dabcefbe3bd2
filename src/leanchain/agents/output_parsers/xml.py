"""`XMLAgentOutputParser`: read ``<tool>…</tool><tool_input>…`` or ``<final_answer>…``.

A plain tag scanner (`str.find`, left to right, each character read once): no XML library, so
no entities, no DTDs and no "billion laughs", and linear time on any input. LangChain's lazy
``<tool>(.*?)</tool>`` regexes re-scan to the end of the text from every unclosed opening tag.
"""

from __future__ import annotations

from typing import Final, Literal

from leanchain.agents.output_parsers.base import AgentOutputParser, agent_action, agent_finish
from leanchain.agents.schema import AgentAction, AgentFinish
from leanchain.errors import OutputParserException

__all__ = ["XML_ESCAPES", "XMLAgentOutputParser", "escape_xml_tags", "unescape_xml_tags"]

XML_ESCAPES: Final = (
    ("<tool>", "[[tool]]"),
    ("</tool>", "[[/tool]]"),
    ("<tool_input>", "[[tool_input]]"),
    ("</tool_input>", "[[/tool_input]]"),
    ("<observation>", "[[observation]]"),
    ("</observation>", "[[/observation]]"),
)
"""The six protocol tags and what ``escape_format="minimal"`` writes instead of them."""


def escape_xml_tags(text: str) -> str:
    """`text` with the six protocol tags replaced by their ``[[…]]`` forms."""
    if "<" not in text:
        return text
    for tag, escaped in XML_ESCAPES:
        text = text.replace(tag, escaped)
    return text


def unescape_xml_tags(text: str) -> str:
    """The inverse of `escape_xml_tags` for text that had no ``[[`` of its own."""
    if "[" not in text:  # one character: a memchr scan, far cheaper than a "[[" search
        return text
    for tag, escaped in XML_ESCAPES:
        text = text.replace(escaped, tag)
    return text


def _blocks(text: str, opening: str, closing: str, open_ended: bool) -> tuple[int, str]:
    """How many ``opening…closing`` blocks `text` has, and the first one's content.

    Each block runs from an opening tag to the nearest closing tag after it. With
    `open_ended`, an opening tag with no closing tag after it starts a last block that runs
    to the end of the text (what a model stopped by the closing tag leaves behind).
    """
    start = text.find(opening)
    if start < 0:
        return 0, ""
    start += len(opening)
    end = text.find(closing, start)
    if end < 0:
        return (1, text[start:]) if open_ended else (0, "")
    # The first block, read; the usual reply has no other, so the loop below never runs.
    count, first, pos = 1, text[start:end], end + len(closing)
    while (start := text.find(opening, pos)) >= 0:
        end = text.find(closing, start + len(opening))
        if end < 0:
            return count + open_ended, first
        count += 1
        pos = end + len(closing)
    return count, first


class XMLAgentOutputParser(AgentOutputParser):
    """Parses XML-tagged agent text into one `AgentAction` or an `AgentFinish`.

    - One ``<tool>name</tool>`` block, optionally followed by one ``<tool_input>…</tool_input>``
      block, gives ``AgentAction(name, input, text)`` (input ``""`` when there is none). No
      whitespace is stripped.
    - Otherwise one ``<final_answer>…</final_answer>`` block gives
      ``AgentFinish({"output": answer}, text)``.
    - leanchain tolerates the closing tag that a stop sequence cut off: an unclosed
      ``<tool_input>`` or ``<final_answer>`` runs to the end of the text.
    - With ``escape_format="minimal"`` (the default, matching `format_xml`), the ``[[tool]]``
      style escapes are turned back into tags in the tool name, input and answer.
    - Several ``<tool>``, ``<tool_input>`` or final-answer blocks, or none of either, raise
      `OutputParserException` (a `ValueError`, so ``handle_parsing_errors`` applies) with
      LangChain's messages.

    Args:
        escape_format: ``"minimal"`` to undo `format_xml`'s escaping, ``None`` to keep text as is.
    """

    __slots__ = ("escape_format",)

    def __init__(self, escape_format: Literal["minimal"] | None = "minimal") -> None:
        if escape_format not in ("minimal", None):
            raise ValueError(f"escape_format must be 'minimal' or None, got {escape_format!r}")
        self.escape_format: Literal["minimal"] | None = escape_format

    @property
    def _type(self) -> str:
        return "xml-agent"

    def get_format_instructions(self) -> str:
        """Not provided: the XML prompt carries the protocol.

        Raises:
            NotImplementedError: always.
        """
        raise NotImplementedError

    def parse(self, text: str) -> AgentAction | AgentFinish:
        """Read one XML agent step from `text`.

        Raises:
            OutputParserException: several blocks of one kind, or neither a tool call nor a
                final answer.
        """
        unescape = self.escape_format == "minimal"
        tools, tool = _blocks(text, "<tool>", "</tool>", open_ended=False)
        if tools:
            if tools > 1:
                raise OutputParserException(
                    "Malformed tool invocation: expected exactly one <tool> block, "
                    f"but found {tools}."
                )
            inputs, tool_input = _blocks(text, "<tool_input>", "</tool_input>", open_ended=True)
            if inputs > 1:
                raise OutputParserException(
                    "Malformed tool invocation: expected at most one <tool_input> block, "
                    f"but found {inputs}."
                )
            if unescape and ("[" in tool or "[" in tool_input):  # (no escapes: no calls)
                tool, tool_input = unescape_xml_tags(tool), unescape_xml_tags(tool_input)
            return agent_action(tool, tool_input, text)
        answers, answer = _blocks(text, "<final_answer>", "</final_answer>", open_ended=True)
        if answers == 1:
            return agent_finish({"output": unescape_xml_tags(answer) if unescape else answer}, text)
        if answers > 1:
            raise OutputParserException(
                "Malformed output: expected exactly one <final_answer>...</final_answer> block."
            )
        raise OutputParserException(
            "Malformed output: expected either a tool invocation or a final answer in XML format."
        )
