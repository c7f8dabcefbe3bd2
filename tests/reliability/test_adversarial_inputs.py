"""One-megabyte adversarial inputs against every parser and the template validator.

Each input is built to make a backtracking implementation take seconds to hours: long runs of
whitespace between keywords (CVE-2024-58340), unclosed tags and fences, deep or dense
brackets, endless escapes, huge numbers, huge template fields. Every one must end with a value
or the documented exception within `ADVERSARIAL_BOUND` seconds of CPU time (the CPU time of
this thread, so that other work on the machine does not count; linear code needs well under a
second).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError
from reliability_support import ADVERSARIAL_BOUND, MEGABYTE, mb

from leanchain._partial_json import parse_json_markdown, parse_partial_json
from leanchain.agents import AgentAction, AgentExecutor, AgentFinish, create_tool_calling_agent
from leanchain.agents.format_scratchpad import format_log_to_str, format_xml
from leanchain.agents.output_parsers import (
    JSONAgentOutputParser,
    ReActSingleInputOutputParser,
    ToolsAgentOutputParser,
    XMLAgentOutputParser,
)
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import ContentEncodingError, OutputParserException, TemplateValidationError
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    ToolCall,
    ToolMessage,
    convert_to_messages,
    convert_to_openai_messages,
    count_tokens_approximately,
    get_buffer_string,
    tool_call_chunk,
    trim_messages,
)
from leanchain.output_parsers import JsonOutputParser
from leanchain.prompts import ChatPromptTemplate, PromptTemplate
from leanchain.tools import tool

N = MEGABYTE


def cpu_seconds(func: Callable[[], Any], allowed: tuple[type[Exception], ...]) -> float:
    """CPU seconds `func` took; it must return, or raise one of the `allowed` exceptions."""
    start = time.thread_time()
    with contextlib.suppress(*allowed):
        func()
    return time.thread_time() - start


TEXTS: dict[str, Callable[[], str]] = {
    # ReAct (CVE-2024-58340: whitespace between "Action" keywords)
    "spaces between Action: and Action": lambda: "Action:" + " " * N + "Action",
    "tabs after Action": lambda: "Action" + "\t" * N + ":" + "\t" * N,
    "Action repeated": lambda: mb("Action"),
    "Action : repeated": lambda: mb("Action :"),
    "Action 1 Input 1 repeated": lambda: mb("Action 1 Input 1"),
    "digits after Action": lambda: "Action " + "1" * N,
    "newlines between keywords": lambda: "Action:" + "\n" * N + "Action Input:" + "\n" * N,
    "Final Answer repeated": lambda: mb("Final Answer:"),
    "Thought repeated": lambda: mb("Thought: "),
    # XML
    "unclosed <tool>": lambda: mb("<tool>"),
    "unclosed <tool_input>": lambda: "<tool>x</tool>" + mb("<tool_input>"),
    "unclosed <final_answer>": lambda: mb("<final_answer>"),
    "many tool blocks": lambda: mb("<tool>a</tool>"),
    "escaped tags": lambda: "<tool>" + mb("[[tool]]") + "</tool><tool_input>" + mb("[[/tool]]"),
    "angle brackets": lambda: mb("<"),
    "entity bomb": lambda: '<!DOCTYPE x [<!ENTITY a "' + mb("&a;") + '">]><final_answer>&a;',
    # JSON
    "open brackets": lambda: mb("["),
    "open braces": lambda: mb("{"),
    "open keys": lambda: mb('{"a":'),
    "dense empty lists": lambda: "[" + mb("[],"),
    "adjacent lists": lambda: mb("[]"),
    "dense objects": lambda: "[" + mb('{"a":[]},'),
    "dense strings": lambda: "[" + mb('"",'),
    "one long string": lambda: '"' + "a" * N,
    "backslashes": lambda: '"' + "\\" * N,
    "unicode escapes": lambda: '"' + mb("\\u"),
    "surrogate escapes": lambda: '["' + mb("\\ud83d"),
    "huge integer": lambda: "1" * N,
    "huge integer in a list": lambda: "[" + "1" * N,
    "long list of numbers": lambda: "[" + mb("1,"),
    "minus signs": lambda: mb("-"),
    "leading zeros": lambda: mb("0."),
    "fences": lambda: mb("```"),
    "unclosed json fence": lambda: "```json" + "x" * N,
    "backticks": lambda: mb("`"),
    "whitespace then a value": lambda: " " * N + "1",
}

TEXT_PARSERS: dict[str, Callable[[str], Any]] = {
    "react": ReActSingleInputOutputParser().parse,
    "xml": XMLAgentOutputParser().parse,
    "xml raw": XMLAgentOutputParser(escape_format=None).parse,
    "json agent": JSONAgentOutputParser().parse,
    "json output": JsonOutputParser().parse,
    "json output partial": lambda text: JsonOutputParser().parse_result([text], partial=True),  # type: ignore[list-item]
    "partial json": parse_partial_json,
    "json markdown": parse_json_markdown,
}


@pytest.fixture(autouse=True)
def _quiet_json_agent(caplog: pytest.LogCaptureFixture) -> None:
    # A list of actions is logged whole at WARNING; a megabyte of it helps no one here.
    caplog.set_level("ERROR", logger="leanchain.agents.output_parsers.json")


@pytest.mark.parametrize("parser", list(TEXT_PARSERS), ids=list(TEXT_PARSERS))
@pytest.mark.parametrize("text", list(TEXTS), ids=list(TEXTS))
def test_every_text_parser_reads_a_megabyte_of_adversarial_text_in_time(
    parser: str, text: str
) -> None:
    value = TEXTS[text]()
    assert len(value) >= N - 16
    seconds = cpu_seconds(
        lambda: TEXT_PARSERS[parser](value), (OutputParserException, json.JSONDecodeError)
    )
    assert seconds < ADVERSARIAL_BOUND


def test_the_cve_2024_58340_input_is_still_read_right() -> None:
    text = "Action: tool" + " " * N + "Action Input: x"
    assert ReActSingleInputOutputParser().parse(text) == AgentAction("tool", "x", text)


def test_a_huge_integer_is_the_documented_error_not_a_bare_value_error() -> None:
    # json.loads raises a bare ValueError above sys.get_int_max_str_digits() digits.
    for text in ("1" * 5000, "[" + "1" * 5000, '{"a": ' + "1" * 5000 + "}", "[1, " + "2" * 5000):
        with pytest.raises(json.JSONDecodeError, match="Exceeds the limit"):
            parse_partial_json(text)
    with pytest.raises(OutputParserException, match="Invalid json output"):
        JsonOutputParser().parse("1" * 5000)


def test_tool_call_arguments_with_a_huge_integer_are_an_invalid_call() -> None:
    args = '{"a": ' + "1" * 5000 + "}"
    whole = AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(name="f", args=args, id="c1", index=0)]
    )
    first = AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(name="f", args=args[:10], id="c1", index=0)]
    )
    rest = AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(name=None, args=args[10:], id=None, index=0)]
    )
    for message in (whole, first + rest):
        assert message.tool_calls == []
        assert [(c["name"], c["args"], c["id"]) for c in message.invalid_tool_calls] == [
            ("f", args, "c1")
        ]
        with pytest.raises(OutputParserException):
            ToolsAgentOutputParser().parse_result([message])  # type: ignore[list-item]


DEEP = '{"a": ' + "[" * 5000 + "]" * 5000 + "}"
"""Valid JSON nested deeper than Python's recursion limit: json.loads raises RecursionError."""


def test_deeply_nested_tool_arguments_are_an_invalid_call_everywhere() -> None:
    raw = {"id": "c1", "function": {"name": "f", "arguments": DEEP}}
    built = AIMessage("", additional_kwargs={"tool_calls": [raw]})
    streamed = AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(name="f", args=DEEP, id="c1", index=0)]
    )
    slipped = AIMessage("").model_copy(update={"additional_kwargs": {"tool_calls": [raw]}})
    for message in (built, streamed):
        assert message.tool_calls == []
        assert [(c["name"], c["args"], c["id"]) for c in message.invalid_tool_calls] == [
            ("f", DEEP, "c1")
        ]
    for message in (built, streamed, slipped):
        with pytest.raises(OutputParserException, match="Could not parse tool input"):
            ToolsAgentOutputParser().parse_result([message])  # type: ignore[list-item]


# -- messages ---------------------------------------------------------------------------------


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _streamed_arguments(arguments: str) -> AIMessageChunk:
    """The arguments streamed in 1 KB pieces and added up one `+` at a time, as a caller does."""
    pieces = _pieces(arguments, 1024)
    total = AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(name="f", args=pieces[0], id="c1", index=0)]
    )
    for piece in pieces[1:]:
        total = total + AIMessageChunk(
            "", tool_call_chunks=[tool_call_chunk(name=None, args=piece, id=None, index=0)]
        )
    return total


MESSAGES: dict[str, Callable[[], Any]] = {
    "a megabyte of text content": lambda: ToolsAgentOutputParser().parse_result(
        [AIMessage(mb("Final Answer: <tool>"))]  # type: ignore[list-item]
    ),
    "invalid arguments": lambda: ToolsAgentOutputParser().parse_result(
        [AIMessage("", invalid_tool_calls=[{"name": "f", "args": mb("{"), "id": "c1"}])]  # type: ignore[list-item]
    ),
    "raw provider arguments": lambda: AIMessage(
        "",
        additional_kwargs={
            "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": mb('{"a":[')}}]
        },
    ),
    "arguments in one chunk": lambda: AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(name="f", args=mb('{"a": ['), id="c1", index=0)]
    ),
    "a long string argument streamed": lambda: _streamed_arguments(json.dumps({"text": "x" * N})),
    "text streamed in all at once": lambda: (
        AIMessageChunk("") + [AIMessageChunk(p) for p in _pieces(mb("Action: x "), 64)]
    ),
}


@pytest.mark.parametrize("build", list(MESSAGES.values()), ids=list(MESSAGES))
def test_a_megabyte_of_message_data_is_read_in_time(build: Callable[[], Any]) -> None:
    assert cpu_seconds(build, (OutputParserException,)) < ADVERSARIAL_BOUND


def test_streamed_arguments_add_up_to_the_call() -> None:
    arguments = json.dumps({"text": "x" * N})
    assert _streamed_arguments(arguments).tool_calls == [
        {"name": "f", "args": {"text": "x" * N}, "id": "c1", "type": "tool_call"}
    ]


# -- templates ---------------------------------------------------------------------------------

TEMPLATES: dict[str, Callable[[], str]] = {
    "many fields": lambda: mb("{a}"),
    "many distinct fields": lambda: "".join(f"{{v{i}}}" for i in range(N // 8)),
    "open braces": lambda: mb("{"),
    "close braces": lambda: mb("}"),
    "escaped braces": lambda: mb("{{"),
    "odd open braces": lambda: "{" + mb("{{"),
    "a long name": lambda: "{" + "a" * N + "}",
    "a name of spaces": lambda: "{" + " " * N + "}",
    "a long spec": lambda: "{x:" + ">" * N + "}",
    "attribute chain": lambda: "{a" + "." * N + "}",
    "index chain": lambda: "{a" + mb("[0]") + "}",
    "brackets": lambda: "{" + "[" * N + "}",
    "long conversion": lambda: "{x!" + "r" * N + "}",
    "nested specs": lambda: mb("{x:{"),
    "positional fields": lambda: mb("{0}"),
    "closing braces in a spec": lambda: "{x:" + "}" * N,
    "dunders": lambda: mb("{x.__class__}"),
}


class AnySpec:
    """A value that formats under any format spec (a str rejects most of them)."""

    def __format__(self, spec: str) -> str:
        return "v"


def _build_and_format(template: str) -> None:
    prompt = PromptTemplate(template)
    values = dict.fromkeys(prompt.input_variables, AnySpec())
    prompt.format(**values)
    chat = ChatPromptTemplate.from_messages([("system", template), ("human", "{q}")])
    chat.format_messages(q="q", **values)


@pytest.mark.parametrize("template", list(TEMPLATES), ids=list(TEMPLATES))
def test_the_template_validator_handles_a_megabyte_in_time(template: str) -> None:
    text = TEMPLATES[template]()
    seconds = cpu_seconds(lambda: _build_and_format(text), (TemplateValidationError,))
    assert seconds < ADVERSARIAL_BOUND


# -- scratchpads ------------------------------------------------------------------------------

OBSERVATION = mb("</observation><tool>x</tool>[[tool]]Final Answer: ")


def test_scratchpads_of_a_megabyte_observation_are_written_in_time() -> None:
    steps = [(AgentAction("t", "i", "Action: t\nAction Input: i"), OBSERVATION)]
    seconds = cpu_seconds(lambda: (format_xml(steps), format_log_to_str(steps)), ())
    assert seconds < ADVERSARIAL_BOUND
    escaped = format_xml(steps)
    assert escaped.count("<observation>") == 1
    assert escaped.count("</observation>") == 1
    assert escaped.count("<tool>") == 1


def test_a_megabyte_final_answer_parses_whole() -> None:
    answer = mb("x ")
    text = f"<final_answer>{answer}"
    assert XMLAgentOutputParser().parse(text) == AgentFinish({"output": answer}, text)


# -- content text and JSON cannot carry --------------------------------------------------------
#
# A lone surrogate (text decoded with ``surrogateescape``), an int over Python's 4,300-digit
# limit and 5,000-deep nesting break ``str()``/``json.dumps`` with untyped errors. Every
# conversion of messages and tool results either writes them as a defined text (what a model
# is sent as an observation) or raises `ContentEncodingError` naming where the value is.

HUGE = 10**5000
SURROGATE_TEXT = "name: caf\udce9 \ud800"
READABLE_TEXT = "name: caf\ufffd \ufffd"


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


DEEP_LIST = nested(5000)
INT_TOO_LONG = "it holds an int of more than 4300 digits, which Python will not write out"
TOO_DEEP = "it is nested deeper than Python's recursion limit allows"


@pytest.mark.parametrize(
    ("value", "why"),
    [(HUGE, INT_TOO_LONG), ({"n": HUGE}, INT_TOO_LONG), (DEEP_LIST, TOO_DEEP)],
    ids=["huge int", "huge int in a dict", "5000 deep"],
)
def test_messages_to_openai_dicts_name_arguments_json_cannot_write(value: Any, why: str) -> None:
    call = AIMessage("", tool_calls=[{"name": "t", "args": {"v": value}, "id": "c1"}])
    with pytest.raises(ContentEncodingError) as error:
        convert_to_openai_messages([HumanMessage("hi"), call])
    assert str(error.value) == f"message 1 (AIMessage) cannot be written as JSON: {why}"
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        ('{"n": ' + "9" * 5000 + "}", INT_TOO_LONG),
        ('{"a":' * 5000 + "1" + "}" * 5000, TOO_DEEP),
    ],
    ids=["huge int", "5000 deep"],
)
def test_openai_dicts_to_messages_name_arguments_python_cannot_read(
    arguments: str, why: str
) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "t", "arguments": arguments}}
    with pytest.raises(ContentEncodingError) as error:
        convert_to_messages([{"role": "assistant", "content": "", "tool_calls": [call]}])
    assert str(error.value) == f"The arguments of tool call 'c1' cannot be read: {why}"


def test_arguments_that_are_not_json_stay_langchains_decode_error() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{oops"}}
    with pytest.raises(json.JSONDecodeError):
        convert_to_messages([{"role": "assistant", "content": "", "tool_calls": [call]}])


def test_the_buffer_string_names_the_message_it_cannot_write() -> None:
    call = AIMessage("", tool_calls=[{"name": "t", "args": {"v": HUGE}, "id": "c1"}])
    with pytest.raises(ContentEncodingError) as error:
        get_buffer_string([HumanMessage("hi"), call])
    assert str(error.value) == f"message 1 (AIMessage) cannot be written as text: {INT_TOO_LONG}"


@pytest.mark.parametrize(
    ("content", "why"),
    [(HUGE, INT_TOO_LONG), ([DEEP_LIST], TOO_DEEP)],
    ids=["huge int", "5000 deep"],
)
def test_a_tool_message_of_content_text_cannot_carry_is_a_validation_error(
    content: Any, why: str
) -> None:
    with pytest.raises(ValidationError) as error:
        ToolMessage(content, tool_call_id="c1")
    assert f"Value error, ToolMessage content cannot be text: {why}" in str(error.value)


def test_counting_and_printing_never_fail_on_what_text_cannot_carry() -> None:
    huge = AIMessage("", tool_calls=[{"name": "t", "args": {"v": HUGE}, "id": "c1"}])
    deep = AIMessage("", tool_calls=[{"name": "t", "args": {"v": DEEP_LIST}, "id": "c2"}])
    assert count_tokens_approximately([huge]) > 1000
    assert count_tokens_approximately([deep]) > 1000
    assert trim_messages([huge, deep], max_tokens=10**6, token_counter="approximate") == [
        huge,
        deep,
    ]
    assert f"    v: A value of type 'int' cannot be shown as text: {INT_TOO_LONG}." in (
        huge.pretty_repr()
    )


@tool
def echo_back(value: Any) -> Any:
    """Returns what it is given."""
    return value


@pytest.mark.parametrize(
    ("value", "observation"),
    [
        (SURROGATE_TEXT, READABLE_TEXT),
        ({"k": SURROGATE_TEXT}, '{"k": "' + READABLE_TEXT + '"}'),
        (HUGE, f"A value of type 'int' cannot be shown as text: {INT_TOO_LONG}."),
        ({"n": HUGE}, f"A value of type 'dict' cannot be shown as text: {INT_TOO_LONG}."),
        (DEEP_LIST, f"A value of type 'list' cannot be shown as text: {TOO_DEEP}."),
    ],
    ids=["lone surrogates", "surrogates in a dict", "huge int", "huge int in a dict", "5000 deep"],
)
def test_a_tool_call_answers_with_text_any_model_can_be_sent(value: Any, observation: str) -> None:
    call = ToolCall(name="echo_back", args={"value": value}, id="c1", type="tool_call")
    message = echo_back.invoke(call, {"callbacks": [BaseCallbackHandler()]})
    assert message == ToolMessage(observation, tool_call_id="c1", name="echo_back")
    message.content.encode("utf-8")  # sendable


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
@pytest.mark.parametrize(
    ("value", "observation"),
    [
        (SURROGATE_TEXT, READABLE_TEXT),
        (HUGE, f"A value of type 'int' cannot be shown as text: {INT_TOO_LONG}."),
        (DEEP_LIST, f"A value of type 'list' cannot be shown as text: {TOO_DEEP}."),
    ],
    ids=["lone surrogates", "huge int", "5000 deep"],
)
async def test_an_agent_run_goes_on_past_a_tool_output_text_cannot_carry(
    value: Any, observation: str, mode: str
) -> None:
    @tool
    def produce(text: str) -> Any:
        """Produces the troublesome value."""
        return value

    model = ScriptedChatModel([ScriptedChatModel.tool_call("produce", {"text": "a"}), "done"])
    agent = create_tool_calling_agent(model, [produce], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[produce], handle_tool_errors=True)
    result = executor.invoke("q") if mode == "invoke" else await executor.ainvoke("q")
    assert result == {"input": "q", "output": "done"}
    sent = model.requests[1].messages[-1]
    assert sent == ToolMessage(
        observation, tool_call_id="call_1", name="produce", additional_kwargs={"name": "produce"}
    )
