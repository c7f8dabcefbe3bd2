"""The agent output parsers: every behaviour and message of reference §6.4, with leanchain's §10."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

import leanchain.agents.output_parsers as parsers_module
from leanchain.agents.output_parsers import (
    AgentOutputParser,
    JSONAgentOutputParser,
    MultiActionAgentOutputParser,
    OpenAIToolsAgentOutputParser,
    ReActSingleInputOutputParser,
    ToolsAgentOutputParser,
    XMLAgentOutputParser,
)
from leanchain.agents.output_parsers.openai_tools import OpenAIToolAgentAction
from leanchain.agents.output_parsers.react_single_input import FORMAT_INSTRUCTIONS
from leanchain.agents.schema import AgentAction, AgentFinish, ToolAgentAction
from leanchain.errors import OutputParserException
from leanchain.language_models import ChatGeneration
from leanchain.messages import AIMessage, AIMessageChunk, SystemMessage

react = ReActSingleInputOutputParser()
xml = XMLAgentOutputParser()
json_parser = JSONAgentOutputParser()
tools = ToolsAgentOutputParser()


def raised(parser: Any, value: Any) -> OutputParserException:
    with pytest.raises(OutputParserException) as info:
        parser.invoke(value)
    return info.value


def test_exports() -> None:
    assert sorted(parsers_module.__all__) == [
        "AgentOutputParser",
        "JSONAgentOutputParser",
        "MultiActionAgentOutputParser",
        "OpenAIFunctionsAgentOutputParser",
        "OpenAIToolsAgentOutputParser",
        "ReActSingleInputOutputParser",
        "ToolsAgentOutputParser",
        "XMLAgentOutputParser",
    ]


def test_output_types_decide_single_or_multi_action() -> None:
    single = AgentAction | AgentFinish
    multi = list[AgentAction] | AgentFinish
    assert react.OutputType == single
    assert xml.OutputType == single
    assert json_parser.OutputType == single
    assert tools.OutputType == multi
    assert OpenAIToolsAgentOutputParser().OutputType == multi
    assert isinstance(react, AgentOutputParser)
    assert isinstance(tools, MultiActionAgentOutputParser)


# -- ReAct ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tool", "tool_input"),
    [
        ("Thought: look\nAction: search\nAction Input: weather", "search", "weather"),
        ("Action 1: search\nAction 1 Input 1: x", "search", "x"),
        ("Action  2 :  search  \nAction 2 Input:x", "search", "x"),
        ('Action: s\nAction Input:  "quoted"  ', "s", "quoted"),
        ("Action: s\nAction Input: q  \n", "s", "q  \n"),
        ('Action: s\nAction Input: "hi" \n', "s", 'hi" \n'),
        ("Action: s\nAction Input:\n\n  two\nlines", "s", "two\nlines"),
        ("Action: Action Input: x", "", "x"),
        ("Action:\tmulti word tool\t\nAction Input: a", "multi word tool", "a"),
        (
            "Action: s\nAction Input: a\nAction: t\nAction Input: b",
            "s",
            "a\nAction: t\nAction Input: b",
        ),
    ],
)
def test_react_action(text: str, tool: str, tool_input: str) -> None:
    assert react.invoke(text) == AgentAction(tool, tool_input, text)


def test_react_reads_a_message_text() -> None:
    text = "Action: s\nAction Input: q"
    assert react.invoke(AIMessage(content=text)) == AgentAction("s", "q", text)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Thought: done\nFinal Answer: 42", "42"),
        ("Final Answer:  spaced out \n", "spaced out"),
        ("Final Answer: a\nFinal Answer: b ", "b"),
        ("Action: only a name\nFinal Answer: x", "x"),
    ],
)
def test_react_final_answer(text: str, answer: str) -> None:
    assert react.invoke(text) == AgentFinish({"output": answer}, text)


def test_react_both_an_answer_and_an_action() -> None:
    text = "Action: echo\nAction Input: x\nFinal Answer: y"
    error = raised(react, text)
    assert str(error) == (
        "Parsing LLM output produced both a final answer and a parse-able action:: " + text
    )
    assert (error.observation, error.llm_output, error.send_to_llm) == (None, None, False)


def test_react_missing_action() -> None:
    error = raised(react, "I have no format")
    assert str(error) == "Could not parse LLM output: `I have no format`"
    assert error.observation == "Invalid Format: Missing 'Action:' after 'Thought:'"
    assert error.llm_output == "I have no format"
    assert error.send_to_llm is True


def test_react_missing_action_input() -> None:
    error = raised(react, "Action: echo")
    assert str(error) == "Could not parse LLM output: `Action: echo`"
    assert error.observation == "Invalid Format: Missing 'Action Input:' after 'Action:'"
    assert error.llm_output == "Action: echo"
    assert error.send_to_llm is True


def test_react_keywords_in_the_wrong_order() -> None:
    text = "Action Input: foo\nAction: bar"
    error = raised(react, text)
    assert str(error) == f"Could not parse LLM output: `{text}`"
    assert (error.observation, error.llm_output, error.send_to_llm) == (None, None, False)


def test_react_format_instructions() -> None:
    assert react.get_format_instructions() == FORMAT_INSTRUCTIONS
    assert "[{tool_names}]" in FORMAT_INSTRUCTIONS
    for keyword in ("Thought:", "Action:", "Action Input:", "Observation:", "Final Answer:"):
        assert f"\n{keyword}" in FORMAT_INSTRUCTIONS


def test_react_redos_inputs_are_read_correctly() -> None:
    # CVE-2024-58340's shape: long whitespace runs between "Action:" and a trailing "Action".
    # A backtracking regex takes hours here; the scanner reads each character once.
    gap = " \t" * 200_000
    error = raised(react, "Action:" + gap + "Action")
    assert error.observation == "Invalid Format: Missing 'Action Input:' after 'Action:'"
    text = "Action" + gap + ":" + gap + "s" + gap + "Action" + gap + "Input" + gap + ": q"
    assert react.invoke(text) == AgentAction("s", "q", text)
    many = "Action " * 100_000
    assert raised(react, many).observation == "Invalid Format: Missing 'Action:' after 'Thought:'"


# -- XML --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tool", "tool_input"),
    [
        ("<tool>search</tool><tool_input>foo</tool_input>", "search", "foo"),
        ("<tool>search</tool><tool_input>foo", "search", "foo"),
        ("<tool>search</tool>", "search", ""),
        (" <tool> s </tool>", " s ", ""),
        ("<tool>a\nb</tool>\n<tool_input>\nmulti\nline\n</tool_input>", "a\nb", "\nmulti\nline\n"),
        (
            "<tool>search[[tool]]x[[/tool]]</tool><tool_input>a[[/tool_input]]b</tool_input>",
            "search<tool>x</tool>",
            "a</tool_input>b",
        ),
        ("<tool>t</tool><tool_input>x<tool_input>y</tool_input>", "t", "x<tool_input>y"),
        ("<tool>t</tool><final_answer>ignored</final_answer>", "t", ""),
    ],
)
def test_xml_action(text: str, tool: str, tool_input: str) -> None:
    assert xml.invoke(text) == AgentAction(tool, tool_input, text)


def test_xml_without_unescaping() -> None:
    text = "<tool>a[[tool]]</tool><tool_input>[[observation]]"
    assert XMLAgentOutputParser(escape_format=None).invoke(text) == AgentAction(
        "a[[tool]]", "[[observation]]", text
    )


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("<final_answer>bar</final_answer>", "bar"),
        ("Thinking.\n<final_answer>bar</final_answer> trailing", "bar"),
        ("<final_answer>bar", "bar"),
        ("<final_answer>bar\n", "bar\n"),
        ("<final_answer>[[tool]]x[[/observation]]</final_answer>", "<tool>x</observation>"),
    ],
)
def test_xml_final_answer(text: str, answer: str) -> None:
    assert xml.invoke(text) == AgentFinish({"output": answer}, text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "<tool>a</tool><tool>b</tool>",
            "Malformed tool invocation: expected exactly one <tool> block, but found 2.",
        ),
        (
            "<tool>a</tool><tool_input>x</tool_input><tool_input>y</tool_input>",
            "Malformed tool invocation: expected at most one <tool_input> block, but found 2.",
        ),
        (
            "<tool>a</tool><tool_input>x</tool_input><tool_input>y",
            "Malformed tool invocation: expected at most one <tool_input> block, but found 2.",
        ),
        (
            "<final_answer>a</final_answer><final_answer>b</final_answer>",
            "Malformed output: expected exactly one <final_answer>...</final_answer> block.",
        ),
        (
            "<final_answer>a</final_answer><final_answer>b",
            "Malformed output: expected exactly one <final_answer>...</final_answer> block.",
        ),
        (
            "plain text",
            "Malformed output: expected either a tool invocation or a final answer in XML format.",
        ),
        (
            "<tool>unclosed tool name",
            "Malformed output: expected either a tool invocation or a final answer in XML format.",
        ),
        (
            "</final_answer> closer only",
            "Malformed output: expected either a tool invocation or a final answer in XML format.",
        ),
    ],
)
def test_xml_malformed_output_is_an_output_parser_exception(text: str, message: str) -> None:
    error = raised(xml, text)
    assert str(error) == message
    assert isinstance(error, ValueError)
    assert (error.observation, error.send_to_llm) == (None, False)


def test_xml_counts_every_block() -> None:
    assert str(raised(xml, "<tool>a</tool>" * 7)) == (
        "Malformed tool invocation: expected exactly one <tool> block, but found 7."
    )


def test_xml_has_no_format_instructions_and_checks_its_escape_format() -> None:
    with pytest.raises(NotImplementedError):
        xml.get_format_instructions()
    with pytest.raises(ValueError, match="escape_format must be 'minimal' or None, got 'html'"):
        XMLAgentOutputParser(escape_format="html")  # type: ignore[arg-type]


def test_xml_entities_are_not_expanded() -> None:
    text = '<!DOCTYPE x [<!ENTITY a "aaaa">]><tool>&a;</tool><tool_input>&lt;</tool_input>'
    assert xml.invoke(text) == AgentAction("&a;", "&lt;", text)


def test_xml_many_unclosed_tags_are_read_correctly() -> None:
    text = "<tool>" * 200_000
    assert str(raised(xml, text)).startswith("Malformed output: expected either")
    # An unclosed block runs to the end, openers inside it included (as a closed one would).
    answers = "<final_answer>" * 200_000
    assert xml.invoke(answers) == AgentFinish({"output": answers[14:]}, answers)


# -- JSON -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tool", "tool_input"),
    [
        ('{"action": "search", "action_input": "x"}', "search", "x"),
        ('```json\n{"action": "search", "action_input": {"q": 1}}\n```', "search", {"q": 1}),
        ('I will look.\n```\n{"action": "s", "action_input": "q"}\n```\nthen', "s", "q"),
        ('{"action": "s"}', "s", {}),
        ('{"action": "s", "action_input": null}', "s", {}),
        # A fence the reply never closed: the JSON inside it is whole.
        ('```json\n{"action": "s", "action_input": "x"}\n``', "s", "x"),
        ('```json\n{"action": "s", "action_input": "x"}', "s", "x"),
        ('{"action": "s", "action_input": "two\nlines"}', "s", "two\nlines"),
        ('Action:\n```json\n{"action": "s", "action_input": "x"}\n```', "s", "x"),
    ],
)
def test_json_action(text: str, tool: str, tool_input: Any) -> None:
    assert json_parser.invoke(text) == AgentAction(tool, tool_input, text)


@pytest.mark.parametrize(
    ("text", "output"),
    [
        ('{"action": "Final Answer", "action_input": "done"}', "done"),
        ('{"action": "Final Answer", "action_input": 5}', 5),
        ('```\n{"action": "Final Answer", "action_input": {"a": [1]}}\n```', {"a": [1]}),
    ],
)
def test_json_final_answer(text: str, output: Any) -> None:
    assert json_parser.invoke(text) == AgentFinish({"output": output}, text)


def test_json_list_takes_the_first_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    text = '[{"action":"a","action_input":"x"},{"action":"b"}]'
    with caplog.at_level(logging.WARNING):
        assert json_parser.invoke(text) == AgentAction("a", "x", text)
    # The count only: model output stays out of the logs.
    assert [r.getMessage() for r in caplog.records] == [
        "Got multiple action responses: 2; using the first"
    ]


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        ("hello there", json.JSONDecodeError),
        ('{"action_input": "x"}', KeyError),
        ('{"action": "Final Answer"}', KeyError),
        ('{"action": "s", "action_input": 5}', TypeError),
        ('{"action": "s", "action_input": [1]}', TypeError),
        ('{"action": 7, "action_input": "x"}', TypeError),
        ('"just a string"', TypeError),
        ("[]", IndexError),
        ("```\n```", json.JSONDecodeError),
        # Cut-off JSON is never closed into an action (LangChain closes it).
        ('{"action": "s", "action_input": "unterminated', json.JSONDecodeError),
        ('{"action": "t", "action_input": {"word": "ban', json.JSONDecodeError),
        ('{"action": "t", "action_input": {"n": 12', json.JSONDecodeError),
        ('{"action": "t", "action_input": {"word": "banana"}', json.JSONDecodeError),
        ('```json\n{"action": "t", "action_input": {"word": "ban', json.JSONDecodeError),
        ('{"action": "Final Answer", "action_input": "The answ', json.JSONDecodeError),
        ('[{"action": "a", "action_input": "x"}, {"action": "b"', json.JSONDecodeError),
    ],
)
def test_json_unparseable(text: str, cause: type[BaseException]) -> None:
    error = raised(json_parser, text)
    assert str(error) == f"Could not parse LLM output: {text}"
    assert isinstance(error.__cause__, cause)
    assert error.send_to_llm is False


def test_json_many_fences_are_read_correctly() -> None:
    text = "```" * 300_000
    assert str(raised(json_parser, text)) == f"Could not parse LLM output: {text}"


# -- tool calls -------------------------------------------------------------------------------


def call(name: str, args: dict[str, Any], id: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": id, "type": "tool_call"}


def test_tool_calls_become_actions_that_share_the_message() -> None:
    message = AIMessage(
        content="", tool_calls=[call("add", {"a": 1}, "c1"), call("mul", {"b": 2}, "c2")]
    )
    actions = tools.invoke(message)
    assert actions == [
        ToolAgentAction(
            tool="add",
            tool_input={"a": 1},
            log="\nInvoking: `add` with `{'a': 1}`\n\n\n",
            message_log=[message],
            tool_call_id="c1",
        ),
        ToolAgentAction(
            tool="mul",
            tool_input={"b": 2},
            log="\nInvoking: `mul` with `{'b': 2}`\n\n\n",
            message_log=[message],
            tool_call_id="c2",
        ),
    ]
    assert isinstance(actions, list)
    assert all(a.message_log[0] is message for a in actions)  # type: ignore[attr-defined]


def test_tool_call_log_with_content_and_single_input_unwrapping() -> None:
    message = AIMessage(content="Let me look.", tool_calls=[call("search", {"__arg1": "q"}, "c")])
    assert tools.invoke(message) == [
        ToolAgentAction(
            tool="search",
            tool_input="q",
            log="\nInvoking: `search` with `q`\nresponded: Let me look.\n\n",
            message_log=[message],
            tool_call_id="c",
        )
    ]


@pytest.mark.parametrize("content", ["The answer is 4.", "", [{"type": "text", "text": "4"}]])
def test_no_tool_calls_is_a_finish(content: Any) -> None:
    message = AIMessage(content=content)
    assert tools.invoke(message) == AgentFinish({"output": content}, str(content))


def test_streamed_chunks_are_messages() -> None:
    first = AIMessageChunk(
        content="", tool_call_chunks=[{"name": "add", "args": '{"a": ', "id": "c1", "index": 0}]
    )
    second = AIMessageChunk(
        content="", tool_call_chunks=[{"name": None, "args": "1}", "id": None, "index": 0}]
    )
    folded = first + second
    expected = [
        ToolAgentAction(
            tool="add",
            tool_input={"a": 1},
            log="\nInvoking: `add` with `{'a': 1}`\n\n\n",
            message_log=[folded],
            tool_call_id="c1",
        )
    ]
    assert tools.invoke(folded) == expected
    assert list(tools.transform(iter([first, second]))) == [expected]


def test_invalid_tool_call_json_goes_back_to_the_model() -> None:
    message = AIMessage(
        content="",
        tool_calls=[call("ok", {"x": 1}, "c0")],
        invalid_tool_calls=[
            {"name": "search", "args": '{"q": "x",', "id": "c1", "error": None},
            {"name": "add", "args": "[1]", "id": "c2", "error": None},
        ],
    )
    error = raised(tools, message)
    assert str(error) == (
        "Could not parse tool input: {'name': 'search', 'arguments': '{\"q\": \"x\",'} "
        "because the `arguments` is not valid JSON."
    )
    assert error.send_to_llm is True
    assert error.observation == (
        "Your tool call arguments were not valid JSON, so no tool of your last reply was run:\n"
        "- `search` (id c1): Expecting property name enclosed in double quotes: "
        "line 1 column 11 (char 10)\n"
        "- `add` (id c2): expected a JSON object, got list\n"
        "Call the tools again, with each call's arguments as one valid JSON object."
    )
    assert error.llm_output == (
        "\nInvoking: `ok` with `{'x': 1}`\n\n\n"
        '\nInvoking: `search` with `{"q": "x",`\n\n\n'
        "\nInvoking: `add` with `[1]`\n\n\n"
    )


def test_invalid_tool_call_uses_the_providers_error_when_given() -> None:
    message = AIMessage(
        content="Trying.",
        invalid_tool_calls=[{"name": "f", "args": "{bad", "id": "c1", "error": "bad JSON"}],
    )
    error = raised(tools, message)
    assert error.observation is not None
    assert "- `f` (id c1): bad JSON\n" in error.observation
    assert error.llm_output == "\nInvoking: `f` with `{bad`\nresponded: Trying.\n\n"


def test_raw_openai_calls_with_bad_json() -> None:
    # An AIMessage parses raw calls itself: bad JSON lands in invalid_tool_calls, and the
    # message is LangChain's for the same reply.
    message = AIMessage(
        content="",
        additional_kwargs={
            "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": "{bad"}}]
        },
    )
    assert str(raised(tools, message)) == (
        "Could not parse tool input: {'name': 'f', 'arguments': '{bad'} because the "
        "`arguments` is not valid JSON."
    )


def raw_only(raw: list[Any]) -> AIMessage:
    """A message that carries only raw provider calls (built without validation)."""
    return AIMessage(content="").model_copy(update={"additional_kwargs": {"tool_calls": raw}})


def test_raw_openai_calls_fallback() -> None:
    message = raw_only(
        [
            {"id": "a", "function": {"name": "f", "arguments": '{"x": 1}'}},
            {"id": "b", "function": {"name": "g", "arguments": ""}},
            {"id": "c", "function": {"name": "h"}},
        ]
    )
    actions = tools.invoke(message)
    assert [(a.tool, a.tool_input, a.tool_call_id) for a in actions] == [  # type: ignore[union-attr]
        ("f", {"x": 1}, "a"),
        ("g", {}, "b"),
        ("h", {}, "c"),
    ]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            [{"id": "1", "function": {"name": "f", "arguments": "{bad"}}],
            "Could not parse tool input: {'name': 'f', 'arguments': '{bad'} because the "
            "`arguments` is not valid JSON.",
        ),
        (
            [{"id": "1", "function": {"name": "f", "arguments": "[1]"}}],
            "Could not parse tool input: {'name': 'f', 'arguments': '[1]'} because the "
            "`arguments` is not valid JSON.",
        ),
        (["not a call"], "Could not parse tool call: 'not a call'"),
    ],
)
def test_raw_openai_calls_fallback_errors(raw: list[Any], message: str) -> None:
    error = raised(tools, raw_only(raw))
    assert str(error) == message
    assert error.send_to_llm is False


def test_tools_parser_only_reads_ai_messages() -> None:
    with pytest.raises(TypeError) as info:
        tools.invoke(SystemMessage(content="x"))
    assert str(info.value) == f"Expected an AI message got {SystemMessage}"
    with pytest.raises(
        ValueError, match=r"^This output parser only works on ChatGeneration output$"
    ):
        tools.invoke("some str")
    with pytest.raises(ValueError, match=r"^Can only parse messages$"):
        tools.parse("some str")


def test_openai_tools_parser_is_the_same_parser() -> None:
    message = AIMessage(content="", tool_calls=[call("add", {"a": 1}, "c1")])
    assert OpenAIToolsAgentOutputParser().invoke(message) == tools.invoke(message)
    assert OpenAIToolAgentAction is ToolAgentAction


def test_long_malformed_arguments_are_cut_short_in_the_error() -> None:
    args = '{"q": "' + "x" * 5000
    message = AIMessage(content="", invalid_tool_calls=[{"name": "f", "args": args, "id": "c"}])
    error = raised(tools, message)
    shown = args[:1000] + "... (5007 characters)"
    assert str(error) == (
        f"Could not parse tool input: {{'name': 'f', 'arguments': {shown!r}}} "
        "because the `arguments` is not valid JSON."
    )
    assert error.llm_output == f"\nInvoking: `f` with `{shown}`\n\n\n"


def test_tools_parser_reads_chat_generations() -> None:
    message = AIMessage(content="", tool_calls=[call("add", {"a": 1}, "c1")])
    assert tools.parse_result([ChatGeneration(message=message)]) == tools.invoke(message)


# -- replies cut off at the output token limit ------------------------------------------------

CUT_OFF_OBSERVATION = (
    "Your last reply was cut off at the output token limit before it was complete, so no tool "
    "was run. Reply again, more briefly."
)
ACTION_REPLIES = [
    (react, "I will look.\nAction: search\nAction Input: weather in Par"),
    (xml, "<tool>search</tool><tool_input>weather in Par"),
    (json_parser, '```json\n{"action": "search", "action_input": "weather in Paris"}\n```'),
]
LENGTH = {"finish_reason": "length"}
ANTHROPIC_MAX_TOKENS = {"finish_reason": "length", "stop_reason": "max_tokens"}


def cut_off_message(text: str) -> str:
    return (
        "The model's reply was cut off at its output token limit (finish_reason 'length'), so "
        f"its tool call may be incomplete and was not run: {text}"
    )


@pytest.mark.parametrize(("parser", "text"), ACTION_REPLIES)
@pytest.mark.parametrize("metadata", [LENGTH, ANTHROPIC_MAX_TOKENS])
def test_an_action_from_a_cut_off_reply_is_a_parse_error(
    parser: Any, text: str, metadata: dict[str, Any]
) -> None:
    error = raised(parser, AIMessage(content=text, response_metadata=metadata))
    assert str(error) == cut_off_message(text)
    assert error.observation == CUT_OFF_OBSERVATION
    assert error.llm_output == text
    assert error.send_to_llm is True
    # The same reply from a model that finished is the action.
    finished = parser.invoke(AIMessage(content=text, response_metadata={"finish_reason": "stop"}))
    assert finished == parser.invoke(text)
    assert isinstance(finished, AgentAction)


@pytest.mark.parametrize(("parser", "text"), ACTION_REPLIES)
def test_a_generation_that_says_it_was_cut_off_is_refused_too(parser: Any, text: str) -> None:
    generation = ChatGeneration(message=AIMessage(content=text), generation_info=LENGTH)
    with pytest.raises(OutputParserException) as info:
        parser.parse_result([generation])
    assert str(info.value) == cut_off_message(text)


@pytest.mark.parametrize(
    ("parser", "text", "output"),
    [
        (react, "Final Answer: it rains in Par", "it rains in Par"),
        (xml, "<final_answer>it rains in Par", "it rains in Par"),
    ],
)
def test_a_cut_off_final_answer_is_returned_as_written(parser: Any, text: str, output: str) -> None:
    message = AIMessage(content=text, response_metadata=LENGTH)
    assert parser.invoke(message) == AgentFinish({"output": output}, text)


def test_tool_calls_from_a_cut_off_reply_are_not_run() -> None:
    # Whole arguments, but the model stopped at its limit: the rest of its calls may be missing.
    message = AIMessage(
        content="Two calls.",
        tool_calls=[call("add", {"a": 1}, "c1")],
        response_metadata=LENGTH,
    )
    error = raised(tools, message)
    log = "\nInvoking: `add` with `{'a': 1}`\nresponded: Two calls.\n\n"
    assert str(error) == cut_off_message(log)
    assert (error.observation, error.llm_output, error.send_to_llm) == (
        CUT_OFF_OBSERVATION,
        log,
        True,
    )
    assert tools.invoke(AIMessage(content="It rains in Par", response_metadata=LENGTH)) == (
        AgentFinish({"output": "It rains in Par"}, "It rains in Par")
    )


def test_a_streamed_json_blob_is_read_once_whole() -> None:
    # The parser folds the stream and reads the finished text: a partial reading of the blob
    # never becomes an action, and a stream that stops inside it is a parse error.
    pieces = ['{"action": "t", ', '"action_input": {"word": "ban', 'ana"}}']
    chunks = [AIMessageChunk(content=p) for p in pieces]
    text = "".join(pieces)
    assert list(json_parser.transform(iter(chunks))) == [AgentAction("t", {"word": "banana"}, text)]
    with pytest.raises(OutputParserException) as info:
        list(json_parser.transform(iter(chunks[:2])))
    assert str(info.value) == f"Could not parse LLM output: {''.join(pieces[:2])}"
    with pytest.raises(OutputParserException):
        json_parser.parse_result([AIMessageChunk(content="".join(pieces[:2]))], partial=True)  # type: ignore[list-item]
