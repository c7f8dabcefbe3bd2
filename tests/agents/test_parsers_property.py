"""Property tests: every agent parser is total, the linear scanners match LangChain's regexes,
and `format_xml` round-trips through the XML parser.

The generators build near-valid agent output (keywords, tags, fences, JSON fragments, odd
whitespace) rather than random text, so that the interesting branches are reached.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanchain.agents.format_scratchpad import format_log_to_str, format_xml
from leanchain.agents.output_parsers import (
    JSONAgentOutputParser,
    OpenAIToolsAgentOutputParser,
    ReActSingleInputOutputParser,
    ToolsAgentOutputParser,
    XMLAgentOutputParser,
)
from leanchain.agents.output_parsers.react_single_input import (
    FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE,
    MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE,
    MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE,
)
from leanchain.agents.schema import AgentAction, AgentFinish, ToolAgentAction
from leanchain.errors import OutputParserException
from leanchain.messages import AIMessage

EXAMPLES = 1000
"""Examples per property (the reliability work raises this)."""

SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

WHITESPACE = st.sampled_from([" ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2003", "\x0b"])
WORDS = st.sampled_from(["search", "echo", "x", "hello world", "42", "é", "[[tool]]", "{}"])
NOISE = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6)


def near(*fragments: str) -> st.SearchStrategy[str]:
    """Text made of the given fragments, words, whitespace and a little noise."""
    pieces = st.one_of(
        st.sampled_from(fragments), st.sampled_from(fragments), WORDS, WHITESPACE, NOISE
    )
    return st.lists(pieces, max_size=24).map("".join)


REACT_TEXT = near(
    "Action",
    "Action:",
    "Action 1:",
    " 2 ",
    "Action Input:",
    "Action 1 Input 1:",
    "Action\t3\tInput\t4\t:",
    "Input",
    ":",
    '"',
    "Final Answer:",
    "Final Answer",
    "Thought:",
    "\nObservation:",
    "١",  # an Arabic-Indic digit: \d matches it
    "²",  # a superscript: \d does not
)
XML_TEXT = near(
    "<tool>",
    "</tool>",
    "<tool_input>",
    "</tool_input>",
    "<final_answer>",
    "</final_answer>",
    "<observation>",
    "</observation>",
    "[[tool]]",
    "[[/tool_input]]",
    "<",
    ">",
    "/",
    "<tool",
    "_input>",
)
JSON_TEXT = near(
    "```",
    "```json",
    "```json\n",
    "{",
    "}",
    "[",
    "]",
    '"action"',
    '"action_input"',
    ": ",
    ", ",
    '"Final Answer"',
    '"search"',
    "null",
    "5",
    "-",
    "1e",
    "tr",
    '"',
    "\\",
    "\\u12",
    "Action:",
)

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)


@st.composite
def json_blobs(draw: st.DrawFn) -> str:
    """An action blob as a model writes it: maybe a list, maybe fenced, maybe cut short."""
    blob: dict[str, Any] = {}
    if draw(st.booleans()):
        blob["action"] = draw(st.sampled_from(["Final Answer", "search", 5, None]))
    if draw(st.booleans()):
        blob["action_input"] = draw(JSON_VALUES)
    value: Any = [blob] if draw(st.integers(0, 4)) == 0 else blob
    text = json.dumps(value, indent=draw(st.sampled_from([None, 2])))
    text = text[: draw(st.integers(0, len(text)))] if draw(st.booleans()) else text
    fence = draw(st.sampled_from(["", "```", "```json", "```json\n"]))
    closing = draw(st.sampled_from(["", "\n```", "```"])) if fence else ""
    return draw(NOISE) + fence + text + closing + draw(NOISE)


def outcome(parser: Any, value: Any) -> Any:
    """What a parser gives: its value, or the exception's text, observation and flag."""
    try:
        return parser.invoke(value)
    except OutputParserException as e:
        return ("error", str(e), e.observation, e.llm_output, e.send_to_llm)


def assert_total(parser: Any, value: Any, multi: bool = False) -> None:
    try:
        result = parser.invoke(value)
    except OutputParserException:
        return
    if isinstance(result, AgentFinish):
        return
    if multi:
        assert isinstance(result, list)
        assert all(isinstance(a, ToolAgentAction) for a in result)
    else:
        assert isinstance(result, AgentAction)
        assert isinstance(result.tool, str)
        assert isinstance(result.tool_input, str | dict)


# -- totality ---------------------------------------------------------------------------------


@SETTINGS
@given(st.one_of(REACT_TEXT, st.text()))
def test_react_parser_is_total(text: str) -> None:
    assert_total(ReActSingleInputOutputParser(), text)


@SETTINGS
@given(st.one_of(XML_TEXT, st.text()))
def test_xml_parser_is_total(text: str) -> None:
    assert_total(XMLAgentOutputParser(), text)
    assert_total(XMLAgentOutputParser(escape_format=None), text)


@SETTINGS
@given(st.one_of(JSON_TEXT, json_blobs(), st.text()))
def test_json_parser_is_total(text: str) -> None:
    assert_total(JSONAgentOutputParser(), text)


SCALARS = st.one_of(st.none(), st.integers(), st.text(max_size=4))
TOOL_ARGS = st.dictionaries(
    st.sampled_from(["__arg1", "query", "a", ""]),
    st.one_of(SCALARS, st.lists(SCALARS, max_size=2)),
    max_size=3,
)


@st.composite
def ai_messages(draw: st.DrawFn) -> AIMessage:
    """Model replies with text, list content, tool calls, malformed calls or raw calls."""
    content: Any = draw(
        st.one_of(
            st.text(max_size=8),
            st.lists(st.one_of(st.text(max_size=4), st.just({"type": "text", "text": "t"}))),
        )
    )
    calls = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "name": st.text(max_size=6),
                    "args": TOOL_ARGS,
                    "id": st.one_of(st.none(), st.text(max_size=4)),
                }
            ),
            max_size=3,
        )
    )
    invalid = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "name": st.one_of(st.none(), st.text(max_size=6)),
                    "args": st.one_of(st.none(), JSON_TEXT),
                    "id": st.one_of(st.none(), st.text(max_size=4)),
                    "error": st.one_of(st.none(), st.text(max_size=6)),
                }
            ),
            max_size=2,
        )
    )
    message = AIMessage(content=content, tool_calls=calls, invalid_tool_calls=invalid)
    if not calls and not invalid and draw(st.booleans()):
        raw = draw(
            st.lists(
                st.one_of(
                    st.fixed_dictionaries(
                        {
                            "id": st.text(max_size=3),
                            "function": st.fixed_dictionaries(
                                {"name": st.text(max_size=4), "arguments": JSON_TEXT}
                            ),
                        }
                    ),
                    SCALARS,
                ),
                min_size=1,
                max_size=2,
            )
        )
        message = message.model_copy(update={"additional_kwargs": {"tool_calls": raw}})
    return message


@SETTINGS
@given(ai_messages())
def test_tool_calls_parsers_are_total(message: AIMessage) -> None:
    assert_total(ToolsAgentOutputParser(), message, multi=True)
    assert_total(OpenAIToolsAgentOutputParser(), message, multi=True)


# -- the scanners match LangChain's regexes ---------------------------------------------------

_LC_ACTION = re.compile(
    r"Action\s*\d*\s*:[\s]*(.*?)Action\s*\d*\s*Input\s*\d*\s*:[\s]*(.*)", re.DOTALL
)


def langchain_react(text: str) -> Any:
    """LangChain's ReActSingleInputOutputParser.parse, regexes and all (fine on short text)."""
    includes_answer = "Final Answer:" in text
    match = _LC_ACTION.search(text)
    if match:
        if includes_answer:
            return (
                "error",
                f"{FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE}: {text}",
                None,
                None,
                False,
            )
        tool_input = match.group(2).strip(" ").strip('"')
        return AgentAction(match.group(1).strip(), tool_input, text)
    if includes_answer:
        return AgentFinish({"output": text.split("Final Answer:")[-1].strip()}, text)
    message = f"Could not parse LLM output: `{text}`"
    if not re.search(r"Action\s*\d*\s*:[\s]*(.*?)", text, re.DOTALL):
        return ("error", message, MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE, text, True)
    if not re.search(r"[\s]*Action\s*\d*\s*Input\s*\d*\s*:[\s]*(.*)", text, re.DOTALL):
        return ("error", message, MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE, text, True)
    return ("error", message, None, None, False)


@SETTINGS
@given(REACT_TEXT)
def test_react_scanner_matches_langchains_regex(text: str) -> None:
    assert outcome(ReActSingleInputOutputParser(), text) == langchain_react(text)


def _blocks(tag: str, text: str, open_ended: bool) -> list[str]:
    end = rf"(?:</{tag}>|\Z)" if open_ended else rf"</{tag}>"
    return re.findall(rf"<{tag}>(.*?){end}", text, re.DOTALL)


def reference_xml(text: str) -> Any:
    """LangChain 1.0.8's XML parser (regexes) with leanchain's tolerance and exception type."""
    unescape = [
        ("[[tool]]", "<tool>"),
        ("[[/tool]]", "</tool>"),
        ("[[tool_input]]", "<tool_input>"),
        ("[[/tool_input]]", "</tool_input>"),
        ("[[observation]]", "<observation>"),
        ("[[/observation]]", "</observation>"),
    ]

    def un(s: str) -> str:
        for escaped, tag in unescape:
            s = s.replace(escaped, tag)
        return s

    def error(message: str) -> Any:
        return ("error", message, None, None, False)

    tools = _blocks("tool", text, open_ended=False)
    if tools:
        if len(tools) > 1:
            return error(
                "Malformed tool invocation: expected exactly one <tool> block, "
                f"but found {len(tools)}."
            )
        inputs = _blocks("tool_input", text, open_ended=True)
        if len(inputs) > 1:
            return error(
                "Malformed tool invocation: expected at most one <tool_input> block, "
                f"but found {len(inputs)}."
            )
        return AgentAction(un(tools[0]), un(inputs[0]) if inputs else "", text)
    answers = _blocks("final_answer", text, open_ended=True)
    if len(answers) == 1:
        return AgentFinish({"output": un(answers[0])}, text)
    if answers:
        return error(
            "Malformed output: expected exactly one <final_answer>...</final_answer> block."
        )
    return error(
        "Malformed output: expected either a tool invocation or a final answer in XML format."
    )


@SETTINGS
@given(XML_TEXT)
def test_xml_scanner_matches_the_regex_reference(text: str) -> None:
    assert outcome(XMLAgentOutputParser(), text) == reference_xml(text)


# -- format_xml round trip --------------------------------------------------------------------

TAGGY = st.lists(
    st.one_of(
        st.sampled_from(
            [
                *("<tool>", "</tool>", "<tool_input>", "</tool_input>", "<observation>"),
                *("</observation>", "<final_answer>", "<", ">", "/", "[", "]", "tool", "_input"),
            ]
        ),
        NOISE,
    ),
    max_size=12,
).map("".join)
NO_DOUBLE_BRACKET = TAGGY.filter(lambda s: "[[" not in s)


@SETTINGS
@given(NO_DOUBLE_BRACKET, NO_DOUBLE_BRACKET, TAGGY)
def test_format_xml_round_trips_through_the_parser(tool: str, tool_input: str, obs: str) -> None:
    parser = XMLAgentOutputParser()
    scratchpad = format_xml([(AgentAction(tool, tool_input, ""), obs)])
    assert parser.invoke(scratchpad) == AgentAction(tool, tool_input, scratchpad)
    # What the model writes before the "</tool_input>" stop sequence cuts it off.
    reply = scratchpad[: scratchpad.index("</tool_input><observation>")]
    assert parser.invoke(reply) == AgentAction(tool, tool_input, reply)


# -- observations never become decisions ------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.one_of(REACT_TEXT, XML_TEXT, JSON_TEXT))
def test_scratchpad_contents_never_reach_the_parsers(observation: str) -> None:
    # The parsers see only the model's new reply: whatever a tool returned (and however it
    # sits in the scratchpad text), the decision for a given reply is the same.
    steps = [(AgentAction("search", "q", "Action: search\nAction Input: q"), observation)]
    react_reply = "Thought: more\nAction: echo\nAction Input: again"
    xml_reply = "<tool>echo</tool><tool_input>again"
    assert format_log_to_str(steps).count(observation) >= 1
    assert ReActSingleInputOutputParser().invoke(react_reply) == AgentAction(
        "echo", "again", react_reply
    )
    assert XMLAgentOutputParser().invoke(xml_reply) == AgentAction("echo", "again", xml_reply)
    escaped = format_xml(steps)
    assert escaped.count("<observation>") == 1
    assert escaped.count("</observation>") == 1
    assert escaped.count("<tool>") == 1


# -- a cut-off reply never becomes a tool call ------------------------------------------------

# No backticks: a valid fenced reply cannot hold its own fence. No braces or quotes in prose:
# prose is not JSON.
PLAIN = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters='`{}[]"'),
    max_size=8,
)
BLOB_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | PLAIN,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(PLAIN, inner, max_size=3),
    max_leaves=8,
)
TOOL_INPUTS = st.one_of(PLAIN, st.dictionaries(PLAIN, BLOB_VALUES, max_size=3))


@st.composite
def valid_json_replies(draw: st.DrawFn) -> tuple[str, Any]:
    """A well-formed JSON-agent reply and the decision it holds: ("action", tool, input) or
    ("finish", output). Bare or fenced, indented or not, after and before prose."""
    if draw(st.booleans()):
        blob: dict[str, Any] = {"action": "Final Answer", "action_input": draw(BLOB_VALUES)}
        expected: Any = ("finish", blob["action_input"])
    else:
        tool = draw(st.sampled_from(["search", "t", "get weather"]))
        blob = {"action": tool, "action_input": draw(TOOL_INPUTS)}
        expected = ("action", tool, blob["action_input"])
    value: Any = [blob, {"action": "second"}] if draw(st.integers(0, 4)) == 0 else blob
    text = json.dumps(
        value, indent=draw(st.sampled_from([None, 2])), ensure_ascii=draw(st.booleans())
    )
    fence = draw(st.sampled_from(["", "```", "```json", "```json\n", "```\n"]))
    if fence:
        closing = draw(st.sampled_from(["", "\n```", "```"]))
        after = draw(PLAIN) if closing else ""
        text = draw(st.sampled_from(["", "Thought: look it up\nAction:\n"])) + fence + text
        text += closing + after
    return text, expected


def json_decision(text: str) -> Any:
    """What `JSONAgentOutputParser` decides for `text`, as plain data, or ("error",)."""
    try:
        result = JSONAgentOutputParser().parse(text)
    except OutputParserException:
        return ("error",)
    if isinstance(result, AgentFinish):
        return ("finish", result.return_values["output"])
    return ("action", result.tool, result.tool_input)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_json_replies())
def test_every_truncation_of_a_json_reply_is_the_whole_decision_or_an_error(
    case: tuple[str, Any],
) -> None:
    text, expected = case
    assert json_decision(text) == expected
    for end in range(len(text)):
        assert json_decision(text[:end]) in (expected, ("error",)), text[:end]


REACT_REPLIES = st.builds(
    "Thought: {}\nAction: {}\nAction Input: {}".format,
    PLAIN,
    st.sampled_from(["search", "echo"]),
    PLAIN,
)
XML_REPLIES = st.builds("<tool>{}</tool><tool_input>{}</tool_input>".format, PLAIN, PLAIN)
LENGTH = {"finish_reason": "length"}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.tuples(st.just(ReActSingleInputOutputParser()), REACT_REPLIES),
        st.tuples(st.just(XMLAgentOutputParser()), XML_REPLIES),
        st.tuples(st.just(JSONAgentOutputParser()), valid_json_replies().map(lambda c: c[0])),
    ),
    st.data(),
)
def test_a_reply_cut_off_at_the_token_limit_never_becomes_an_action(
    case: tuple[Any, str], data: st.DataObject
) -> None:
    # The text of a cut-off ReAct or XML reply can look whole; its metadata says it is not.
    parser, text = case
    end = data.draw(st.integers(0, len(text)))
    message = AIMessage(content=text[:end], response_metadata=LENGTH)
    try:
        result = parser.invoke(message)
    except OutputParserException:
        return
    assert isinstance(result, AgentFinish)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ai_messages())
def test_tool_calls_of_a_cut_off_reply_never_run(message: AIMessage) -> None:
    cut_off = message.model_copy(update={"response_metadata": LENGTH})
    for parser in (ToolsAgentOutputParser(), OpenAIToolsAgentOutputParser()):
        try:
            result = parser.invoke(cut_off)
        except OutputParserException:
            continue
        assert isinstance(result, AgentFinish)
