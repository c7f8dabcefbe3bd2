"""The agent parsers' quick builds and in-place reads give what the general code gives.

Decisions are built without their dataclass ``__init__`` (`agent_action`, `agent_finish`):
they equal the constructed ones. A plain `AIMessage` is read in place (its text, its
``finish_reason``) whatever its content: string or content blocks. The module-level parse
functions are the parsers' ``parse``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_parser_fast_path import TEXT_PARSERS, TOOL_PARSERS, metadata, outcome, paths
from test_parsers_property import JSON_TEXT, REACT_TEXT, XML_TEXT

from leanchain.agents.output_parsers.base import agent_action, agent_finish
from leanchain.agents.output_parsers.json import JSONAgentOutputParser, parse_json_agent_output
from leanchain.agents.output_parsers.react_single_input import (
    ReActSingleInputOutputParser,
    parse_react_single_input,
)
from leanchain.agents.schema import AgentAction, AgentFinish
from leanchain.messages import AIMessage
from leanchain.outputs import ChatGeneration

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FINISH_REASONS = st.sampled_from([None, "stop", "length"])
inputs = st.one_of(
    st.text(max_size=8), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
)


@SETTINGS
@given(st.text(max_size=6), inputs, st.text(max_size=8))
def test_a_quick_action_equals_the_constructed_one(tool: str, tool_input: Any, log: str) -> None:
    quick, built = agent_action(tool, tool_input, log), AgentAction(tool, tool_input, log)
    assert type(quick) is AgentAction
    assert quick == built
    assert repr(quick) == repr(built)
    assert quick.model_dump() == built.model_dump()
    assert quick.messages == built.messages
    assert vars(quick) == vars(built)
    if isinstance(tool_input, str):
        assert hash(quick) == hash(built)


@SETTINGS
@given(st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=2), st.text(max_size=8))
def test_a_quick_finish_equals_the_constructed_one(values: dict[str, Any], log: str) -> None:
    quick, built = agent_finish(values, log), AgentFinish(values, log)
    assert type(quick) is AgentFinish
    assert quick == built
    assert repr(quick) == repr(built)
    assert quick.model_dump() == built.model_dump()
    assert vars(quick) == vars(built)
    assert quick.return_values is values


def test_the_decision_classes_are_still_what_the_quick_builds_assume() -> None:
    # The builds set exactly these fields; a new field, a __post_init__ or slots would make
    # them wrong, so any of them fails here first.
    for cls, names in (
        (AgentAction, ["tool", "tool_input", "log"]),
        (AgentFinish, ["return_values", "log"]),
    ):
        assert [f.name for f in dataclasses.fields(cls)] == names
        assert not hasattr(cls, "__post_init__")
        assert "__slots__" not in vars(cls)


def blocks(text: str, split: int) -> list[Any]:
    """`text` as content blocks: a text block, a bare string and an image between them."""
    cut = min(split, len(text))
    return [
        {"type": "text", "text": text[:cut]},
        {"type": "image_url", "image_url": {"url": "https://example.com/x.png"}},
        text[cut:],
    ]


@SETTINGS
@given(st.one_of(REACT_TEXT, XML_TEXT, JSON_TEXT, st.text()), st.integers(0, 40), FINISH_REASONS)
def test_a_message_of_content_blocks_is_read_as_its_text(
    text: str, split: int, reason: str | None
) -> None:
    message = AIMessage(content=blocks(text, split), response_metadata=metadata(reason))
    plain = AIMessage(content=text, response_metadata=metadata(reason))
    assert message.text == text
    for parser in TEXT_PARSERS:
        fast, traced, general = paths(parser, message, ChatGeneration(message))
        assert fast == traced == general == paths(parser, plain, ChatGeneration(plain))[0]


@SETTINGS
@given(st.text(max_size=20), st.integers(0, 20), FINISH_REASONS)
def test_a_tool_reply_of_content_blocks_reads_as_its_generation(
    text: str, split: int, reason: str | None
) -> None:
    message = AIMessage(
        content=blocks(text, split),
        tool_calls=[{"name": "echo", "args": {"text": "hi"}, "id": "c1"}],
        response_metadata=metadata(reason),
    )
    for parser in TOOL_PARSERS:
        fast, traced, general = paths(parser, message, ChatGeneration(message))
        assert fast == traced == general


@SETTINGS
@given(st.one_of(REACT_TEXT, st.text()))
def test_the_react_function_is_the_parsers_parse(text: str) -> None:
    parser = ReActSingleInputOutputParser()
    assert outcome(lambda: parse_react_single_input(text)) == outcome(lambda: parser.parse(text))


@SETTINGS
@given(st.one_of(JSON_TEXT, st.text()))
def test_the_json_function_is_the_parsers_parse(text: str) -> None:
    parser = JSONAgentOutputParser()
    assert outcome(lambda: parse_json_agent_output(text)) == outcome(lambda: parser.parse(text))


words = st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=8)
VALID_REPLIES = st.one_of(
    st.builds(lambda t, i: f"Thought: go\nAction: {t}\nAction Input: {i}", words, words),
    st.builds(lambda a: f"Thought: done\nFinal Answer: {a}", words),
    st.builds(lambda t, i: f"<tool>{t}</tool><tool_input>{i}", words, words),
    st.builds(lambda a: f"<final_answer>{a}</final_answer>", words),
    st.builds(
        lambda t, i: f'Action:\n```\n{{"action": "{t}", "action_input": {{"text": "{i}"}}}}\n```',
        words,
        words,
    ),
    st.builds(
        lambda a: f'Action:\n```\n{{"action": "Final Answer", "action_input": "{a}"}}\n```',
        words,
    ),
)


@SETTINGS
@given(VALID_REPLIES, FINISH_REASONS, st.booleans())
def test_a_well_formed_reply_reads_alike_on_every_path(
    text: str, reason: str | None, as_blocks: bool
) -> None:
    content: Any = blocks(text, 3) if as_blocks else text
    message = AIMessage(content=content, response_metadata=metadata(reason))
    for parser in TEXT_PARSERS:
        fast, traced, general = paths(parser, message, ChatGeneration(message))
        assert fast == traced == general


@SETTINGS
@given(st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), FINISH_REASONS)
def test_a_tool_call_reply_reads_alike_on_every_path(
    args: dict[str, Any], reason: str | None
) -> None:
    message = AIMessage(
        content="",
        tool_calls=[{"name": "echo", "args": args, "id": "c1"}],
        response_metadata=metadata(reason),
    )
    for parser in TOOL_PARSERS:
        fast, traced, general = paths(parser, message, ChatGeneration(message))
        assert fast == traced == general
        assert (fast[0] == "error") is (reason == "length")
