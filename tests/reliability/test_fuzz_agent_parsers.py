"""Bad input against every agent output parser: a decision or `OutputParserException`, nothing else.

Each property runs `EXAMPLES` (5,000) generated replies, most of them near-valid agent output,
and for the well-formed ones checks the exact decision too.
"""

from __future__ import annotations

import json
from typing import Any, cast

from hypothesis import given
from hypothesis import strategies as st
from reliability_support import (
    FUZZ,
    Dice,
    dice,
    expected_json_decision,
    json_agent_blob,
    json_text,
    json_value,
    react_reply,
    react_text,
    reference_xml,
    split,
    xml_document,
    xml_text,
)

from leanchain.agents import AgentAction, AgentFinish, ToolAgentAction
from leanchain.agents.output_parsers import (
    JSONAgentOutputParser,
    OpenAIToolsAgentOutputParser,
    ReActSingleInputOutputParser,
    ToolsAgentOutputParser,
    XMLAgentOutputParser,
)
from leanchain.agents.output_parsers.react_single_input import (
    FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE,
)
from leanchain.errors import OutputParserException
from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    message_chunk_to_message,
    tool_call_chunk,
)

REACT = ReActSingleInputOutputParser()
XML = XMLAgentOutputParser()
XML_RAW = XMLAgentOutputParser(escape_format=None)
JSON_AGENT = JSONAgentOutputParser()
TOOLS = ToolsAgentOutputParser()
OPENAI_TOOLS = OpenAIToolsAgentOutputParser()


def decision(parser: Any, value: Any) -> Any:
    """The parser's decision as plain data, or ``("error", message)``; anything else fails."""
    error: OutputParserException | None = None
    try:
        result = parser.invoke(value)
    except OutputParserException as exc:
        error = exc
    if error is not None:
        if error.send_to_llm:
            assert isinstance(error.observation, str)
            assert isinstance(error.llm_output, str)
        return ("error", str(error))
    if isinstance(result, AgentFinish):
        assert isinstance(result.log, str)
        assert list(result.return_values) == ["output"]
        return ("finish", result.return_values["output"])
    if isinstance(result, AgentAction):
        assert isinstance(result.tool, str)
        assert isinstance(result.tool_input, str | dict)
        assert isinstance(result.log, str)
        return ("action", result.tool, result.tool_input)
    assert isinstance(result, list)
    assert result
    assert all(type(a) is ToolAgentAction for a in result)
    return ("actions", [(a.tool, a.tool_input, a.tool_call_id) for a in result])


# -- ReAct ------------------------------------------------------------------------------------


def _mangled_react(d: Dice) -> str:
    return d.mangle(react_reply(d)[0])


@FUZZ
@given(st.one_of(dice(react_text), dice(_mangled_react), st.text(max_size=40)))
def test_react_parser_is_total(text: str) -> None:
    outcome = decision(REACT, text)
    if outcome[0] == "finish":
        assert isinstance(outcome[1], str)
        assert "Final Answer:" in text
    if outcome[0] == "action":
        assert "Final Answer:" not in text


@FUZZ
@given(dice(react_reply))
def test_react_parser_reads_every_well_formed_reply_exactly(case: tuple[str, Any]) -> None:
    text, expected = case
    outcome = decision(REACT, text)
    if expected == ("both",):
        assert outcome == ("error", f"{FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE}: {text}")
    else:
        assert outcome == expected


# -- XML --------------------------------------------------------------------------------------


@FUZZ
@given(st.one_of(dice(xml_text), dice(xml_document), st.text(max_size=40)))
def test_xml_parser_is_total_and_reads_tags_in_any_order_and_nesting(text: str) -> None:
    expected = reference_xml(text)
    assert decision(XML, text) == expected
    assert decision(XML_RAW, text)[0] == expected[0]


# -- JSON blobs -------------------------------------------------------------------------------


def _mangled_blob(d: Dice) -> str:
    return d.mangle(json_agent_blob(d)[1])


@FUZZ
@given(st.one_of(dice(json_text), dice(_mangled_blob), st.text(max_size=40)))
def test_json_agent_parser_is_total(text: str) -> None:
    decision(JSON_AGENT, text)


@FUZZ
@given(dice(json_agent_blob))
def test_json_agent_parser_reads_every_blob_exactly(case: tuple[Any, str]) -> None:
    value, text = case
    expected = expected_json_decision(value)
    outcome = decision(JSON_AGENT, text)
    if expected == ("error",):
        assert outcome == ("error", f"Could not parse LLM output: {text}")
    else:
        assert outcome == expected


def _cut_blob(d: Dice) -> tuple[Any, str, str]:
    value, text = json_agent_blob(d)
    return value, text, text[: d.below(256) * len(text) // 255]


@FUZZ
@given(dice(_cut_blob))
def test_a_cut_off_json_blob_is_the_whole_decision_or_an_error(case: tuple[Any, str, str]) -> None:
    # Never an action on part of its input: cut-off JSON is not closed into a smaller value.
    value, text, cut = case
    expected = expected_json_decision(value)
    outcome = decision(JSON_AGENT, cut)
    if outcome[0] != "error":
        assert outcome == expected, (text, cut)


LENGTH = {"finish_reason": "length"}


def _cut_reply(d: Dice) -> tuple[Any, str]:
    parser, text = d.pick(
        [
            (REACT, lambda: react_reply(d)[0]),
            (XML, lambda: xml_document(d)),
            (JSON_AGENT, lambda: json_agent_blob(d)[1]),
        ]
    )
    whole = text()
    return parser, whole[: d.below(256) * len(whole) // 255]


@FUZZ
@given(dice(_cut_reply))
def test_a_reply_cut_off_at_the_token_limit_never_becomes_an_action(case: tuple[Any, str]) -> None:
    parser, text = case
    assert decision(parser, AIMessage(content=text, response_metadata=LENGTH))[0] in (
        "error",
        "finish",
    )


# -- native tool calls ------------------------------------------------------------------------

NAMES = ("search", "echo", "", "a b", "日本", "__arg1", "Final Answer")
IDS = (None, "call_1", "call_2", "", "toolu_x")
ARG_KEYS = ("__arg1", "query", "text", "", "a")


def _args(d: Dice) -> dict[str, Any]:
    return {d.pick(ARG_KEYS): json_value(d, 2) for _ in range(d.below(4))}


def streamed_message(d: Dice) -> AIMessage:
    """A reply streamed as chunks, as providers send it: arguments in pieces, maybe cut short,
    indexes reused or missing."""
    total = AIMessageChunk(d.text())
    for index in range(d.below(4)):
        args = json.dumps(_args(d)) if d.below(4) else json_text(d)
        if d.coin():
            args = args[: d.below(256) * len(args) // 255]
        for n, piece in enumerate(split(args, d, 4)):
            total = total + AIMessageChunk(
                "",
                tool_call_chunks=[
                    tool_call_chunk(
                        name=d.pick(NAMES) if n == 0 else None,
                        args=piece,
                        id=d.pick(IDS) if n == 0 else None,
                        index=d.pick([index, index, None, 0]),
                    )
                ],
            )
    return total


def built_message(d: Dice) -> AIMessage:
    """A reply built whole: tool calls, malformed calls, raw provider calls, list content."""
    content: Any = d.text(8)
    if d.below(4) == 0:
        content = [d.pick(["", "a", {"type": "text", "text": "t"}]) for _ in range(d.below(3))]
    if d.below(4) == 0:
        raw: list[Any] = []
        for _ in range(1 + d.below(2)):
            arguments = json_text(d) if d.coin() else json.dumps(_args(d))
            entry = {"id": d.text(3), "function": {"name": d.pick(NAMES), "arguments": arguments}}
            raw.append(entry if d.below(4) else json_value(d))
        if d.coin():
            # Parsed by the message itself, as a provider adapter would build it.
            return AIMessage(content=content, additional_kwargs={"tool_calls": raw})
        # Slipped in after validation: only the parser's own raw-call reading sees it.
        return AIMessage(content=content).model_copy(
            update={"additional_kwargs": {"tool_calls": raw}}
        )
    calls = [
        {"name": d.pick(NAMES), "args": _args(d), "id": d.pick(IDS)} for _ in range(d.below(4))
    ]
    invalid = [
        {
            "name": d.pick([None, *NAMES]),
            "args": d.pick([None, json_text(d)]),
            "id": d.pick(IDS),
            "error": d.pick([None, d.text()]),
        }
        for _ in range(d.below(3) // 2)
    ]
    return AIMessage(content=content, tool_calls=calls, invalid_tool_calls=invalid)


def expected_tool_decision(message: AIMessage) -> Any:
    """What the tool-calls parsers must decide, or None where only totality is checked."""
    if isinstance(message, AIMessageChunk):
        # A streamed sum is decided as the finished reply: cut-off arguments never run.
        message = cast(AIMessage, message_chunk_to_message(message))
    if message.invalid_tool_calls:
        return "error"
    if message.tool_calls:
        return (
            "actions",
            [(c["name"], c["args"].get("__arg1", c["args"]), c["id"]) for c in message.tool_calls],
        )
    if message.additional_kwargs.get("tool_calls"):
        return None
    return ("finish", message.content)


@FUZZ
@given(st.one_of(dice(built_message), dice(streamed_message)))
def test_tool_calls_parsers_are_total_on_messages(message: AIMessage) -> None:
    expected = expected_tool_decision(message)
    for parser in (TOOLS, OPENAI_TOOLS):
        outcome = decision(parser, message)
        if expected == "error":
            assert outcome[0] == "error"
        elif expected is not None:
            assert outcome == expected
        cut_off = message.model_copy(update={"response_metadata": LENGTH})
        assert decision(parser, cut_off)[0] in ("error", "finish")
