"""Each agent output parser (and each list parser) on 1 MiB and 2 MiB of adversarial text.

Goal (issue 4): at most 50 ms per parse of 1 MiB, and a 2 MiB parse at most 2.5x the 1 MiB
one (linear time: LangChain's ReAct regex backtracked, CVE-2024-58340, and its XML regexes
re-scan from every unclosed tag). The inputs are what breaks backtracking or re-scanning
parsers: keyword runs, whitespace runs between keywords, unclosed tags, fences, deep nesting.
Run: ``python -m benchmarks agent_parsers`` (``make bench`` runs every benchmark).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks._util import Row, paired_times, print_table, row, scaled
from leanchain.agents.output_parsers import (
    JSONAgentOutputParser,
    ReActSingleInputOutputParser,
    ToolsAgentOutputParser,
    XMLAgentOutputParser,
)
from leanchain.errors import OutputParserException
from leanchain.messages import AIMessage
from leanchain.output_parsers import (
    CommaSeparatedListOutputParser,
    MarkdownListOutputParser,
    NumberedListOutputParser,
)

GOAL_MS = 50.0
RATIO = 2.5
MS = 1e3
MIB = 1 << 20


def sized(head: str, body: str, size: int, tail: str = "") -> str:
    """`head`, then `body` repeated, then `tail`: `size` characters in all."""
    fill = size - len(head) - len(tail)
    return head + (body * (fill // len(body) + 1))[:fill] + tail


def texts(size: int) -> dict[str, tuple[Any, Any]]:
    """Workload name → (parser, input of `size` characters)."""
    react = ReActSingleInputOutputParser()
    xml = XMLAgentOutputParser()
    json_parser = JSONAgentOutputParser()
    tools = ToolsAgentOutputParser()
    numbered, markdown = NumberedListOutputParser(), MarkdownListOutputParser()
    half = size // 2
    return {
        "ReAct 'Action:' repeated": (react, sized("", "Action:", size)),
        "ReAct whitespace between keywords": (
            react,
            "Action:" + " \t" * (half // 2) + "Action" + " \t" * (half // 2 - 4),
        ),
        "ReAct 'Action 1 Input ' repeated": (react, sized("Action: x", "Action 1 Input ", size)),
        "XML unclosed '<tool>' repeated": (xml, sized("", "<tool>", size)),
        "XML many <tool_input> blocks": (
            xml,
            sized("<tool>a</tool>", "<tool_input>a</tool_input>", size),
        ),
        "XML '<final_answer>' unclosed": (xml, sized("", "<final_answer>", size)),
        "JSON '```' fences repeated": (json_parser, sized("", "```", size)),
        "JSON unterminated action string": (
            json_parser,
            sized('```json\n{"action": "', "x", size),
        ),
        "JSON '[' nesting": (json_parser, sized("", "[", size)),
        "tools: long answer text": (tools, AIMessage(content=sized("", "answer ", size))),
        "tools: malformed call arguments": (
            tools,
            AIMessage(
                content="",
                invalid_tool_calls=[
                    {"name": "f", "args": sized('{"a": "', "x", size), "id": "c", "error": None}
                ],
            ),
        ),
        # LangChain's list patterns retry a digit or whitespace run from each of its positions.
        "numbered list: digit run": (numbered, sized("", "1", size)),
        "numbered list: '1.1' repeated": (numbered, sized("", "1.1", size)),
        "markdown list: blank lines": (markdown, sized("", " \t\n", size)),
        "markdown list: empty bullets": (markdown, sized("", "- \n", size)),
        "comma list: one quoted value of quotes": (
            CommaSeparatedListOutputParser(),
            sized('"', '""', size, '"'),
        ),
    }


def parse_once(parser: Any, value: Any) -> Callable[[], object]:
    """A call that parses `value`, an `OutputParserException` counting as a result."""

    def call() -> object:
        try:
            return parser.invoke(value)
        except OutputParserException as e:
            return e

    return call


def main() -> None:
    """Print the median parse times at 1 MiB and 2 MiB against the goals."""
    rounds = scaled(15, 2)
    one, two = texts(MIB), texts(2 * MIB)
    rows: list[Row] = []
    for name, (parser, value) in one.items():
        big_parser, big_value = two[name]
        small, big = paired_times(
            parse_once(parser, value), parse_once(big_parser, big_value), number=1, rounds=rounds
        )
        small, big = small * MS, big * MS
        rows.append(row(f"{name}, 1 MiB", small, None, "ms", at_most=GOAL_MS))
        rows.append(row(f"{name}, 2 MiB", big, small, "ms", ratio_at_most=RATIO))
    print_table("Agent output parsers on adversarial input (linear time)", rows)


if __name__ == "__main__":
    main()
