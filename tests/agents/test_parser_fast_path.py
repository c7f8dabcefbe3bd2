"""The agent parsers' fast paths give what the general paths give.

`invoke` without handlers reads a message as it is (no `ChatGeneration` is built, no run is
started); with handlers, or through `parse_result` on a generation, it takes the general
path. The two agree on every value and every error. `was_cut_off` asks a message's class
whether it has a ``generation_info`` before reading one: it agrees with reading it always.
A tool call's action is built without its dataclass ``__init__``: it equals the one built
with it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_parsers_property import JSON_TEXT, REACT_TEXT, XML_TEXT, ai_messages, json_blobs

from leanchain.agents.output_parsers import (
    JSONAgentOutputParser,
    OpenAIFunctionsAgentOutputParser,
    OpenAIToolsAgentOutputParser,
    ReActSingleInputOutputParser,
    ToolsAgentOutputParser,
    XMLAgentOutputParser,
)
from leanchain.agents.output_parsers.base import AgentOutputParser, was_cut_off
from leanchain.agents.output_parsers.tools import _tool_action
from leanchain.agents.schema import AgentFinish, ToolAgentAction
from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import OutputParserException
from leanchain.messages import AIMessage, AIMessageChunk, HumanMessage
from leanchain.output_parsers import BaseOutputParser, generation_message
from leanchain.outputs import ChatGeneration, Generation

SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TRACED: Any = {"callbacks": [BaseCallbackHandler()]}
FINISH_REASONS = st.sampled_from([None, "stop", "length", "tool_calls"])
TEXT_PARSERS = [
    ReActSingleInputOutputParser(),
    JSONAgentOutputParser(),
    XMLAgentOutputParser(),
    XMLAgentOutputParser(escape_format=None),
]
TOOL_PARSERS = [ToolsAgentOutputParser(), OpenAIToolsAgentOutputParser()]


def outcome(call: Any) -> Any:
    """A call's value, or its exception's type, text and agent-facing fields."""
    try:
        return ("value", call())
    except (OutputParserException, ValueError, TypeError) as e:
        fields = (getattr(e, "observation", None), getattr(e, "llm_output", None))
        return ("error", type(e), str(e), fields, getattr(e, "send_to_llm", None))


def metadata(reason: str | None) -> dict[str, Any]:
    return {} if reason is None else {"finish_reason": reason}


def paths(parser: Any, output: Any, generation: Generation) -> list[Any]:
    """What each way in gives: fast invoke, traced invoke, parse_result on a generation."""
    return [
        outcome(lambda: parser.invoke(output)),
        outcome(lambda: parser.invoke(output, TRACED)),
        outcome(lambda: parser.parse_result([generation])),
    ]


@SETTINGS
@given(st.one_of(REACT_TEXT, XML_TEXT, JSON_TEXT, json_blobs(), st.text()), FINISH_REASONS)
def test_text_parsers_read_a_message_as_its_generation(text: str, reason: str | None) -> None:
    message = AIMessage(content=text, response_metadata=metadata(reason))
    for parser in TEXT_PARSERS:
        fast, traced, general = paths(parser, message, ChatGeneration(message))
        assert fast == traced == general


@SETTINGS
@given(st.one_of(REACT_TEXT, XML_TEXT, JSON_TEXT, st.text()))
def test_text_parsers_read_a_string_as_its_generation(text: str) -> None:
    for parser in TEXT_PARSERS:
        fast, traced, general = paths(parser, text, Generation(text=text))
        assert fast == traced == general


@SETTINGS
@given(ai_messages(), FINISH_REASONS, st.booleans())
def test_tools_parser_reads_a_message_as_its_generation(
    message: AIMessage, reason: str | None, as_chunk: bool
) -> None:
    message = message.model_copy(update={"response_metadata": metadata(reason)})
    if as_chunk:
        message = AIMessageChunk(**{k: v for k, v in message.__dict__.items() if k != "type"})
    for parser in TOOL_PARSERS:
        fast, traced, general = paths(parser, message, ChatGeneration(message))
        assert fast == traced == general


def test_tools_parser_refuses_text_and_other_messages_on_every_path() -> None:
    for parser in TOOL_PARSERS:
        text = paths(parser, "hi", Generation(text="hi"))
        assert text == [text[0]] * 3
        assert text[0][:3] == (
            "error",
            ValueError,
            "This output parser only works on ChatGeneration output",
        )
        human = HumanMessage(content="hi")
        other = paths(parser, human, ChatGeneration(human))
        assert other == [other[0]] * 3
        assert other[0][1:3] == (TypeError, f"Expected an AI message got {HumanMessage}")


class InfoMessage(AIMessage):
    """A message class that carries a generation_info of its own."""

    generation_info: dict[str, Any] | None = None


def reference_was_cut_off(generation: Any) -> bool:
    """`was_cut_off` as it read before the fast path: every attribute looked up."""
    message = generation_message(generation)
    meta = getattr(message, "response_metadata", None)
    if isinstance(meta, dict) and meta.get("finish_reason") == "length":
        return True
    info = getattr(generation, "generation_info", None)
    return isinstance(info, dict) and info.get("finish_reason") == "length"


@SETTINGS
@given(FINISH_REASONS, FINISH_REASONS, st.sampled_from(["ai", "info", "generation", "text"]))
def test_was_cut_off_reads_what_every_lookup_reads(
    reason: str | None, info_reason: str | None, shape: str
) -> None:
    info = metadata(info_reason) or None
    output: Any
    if shape == "ai":
        output = AIMessage(content="x", response_metadata=metadata(reason))
    elif shape == "info":
        output = InfoMessage(content="x", response_metadata=metadata(reason), generation_info=info)
    elif shape == "generation":
        output = ChatGeneration(AIMessage(content="x", response_metadata=metadata(reason)), info)
    else:
        output = Generation(text="x", generation_info=info)
    assert was_cut_off(output) is reference_was_cut_off(output)


def test_a_message_class_with_a_generation_info_is_read() -> None:
    message = InfoMessage(content="x", generation_info={"finish_reason": "length"})
    assert was_cut_off(message) is True
    assert was_cut_off(AIMessage(content="x")) is False
    assert was_cut_off("x") is False


@SETTINGS
@given(
    st.text(max_size=6),
    st.one_of(st.text(max_size=4), st.dictionaries(st.text(max_size=3), st.integers())),
    st.text(max_size=8),
    st.one_of(st.none(), st.text(max_size=4)),
)
def test_a_fast_built_action_equals_the_constructed_one(
    tool: str, tool_input: Any, log: str, call_id: str | None
) -> None:
    message = AIMessage(content="m")
    fast = _tool_action(tool, tool_input, log, message, call_id)
    built = ToolAgentAction(
        tool=tool, tool_input=tool_input, log=log, message_log=[message], tool_call_id=call_id
    )
    assert type(fast) is ToolAgentAction
    assert fast == built
    assert repr(fast) == repr(built)
    assert fast.model_dump() == built.model_dump()


def test_the_action_class_is_still_what_the_fast_build_assumes() -> None:
    # The fast build sets these five fields and nothing else; a new field, a __post_init__
    # or slots would make it wrong, so any of them fails here first.
    names = [f.name for f in dataclasses.fields(ToolAgentAction)]
    assert names == ["tool", "tool_input", "log", "message_log", "tool_call_id"]
    assert not hasattr(ToolAgentAction, "__post_init__")
    assert not hasattr(ToolAgentAction, "__slots__")


# -- which `_parse_one` a parser class gets (`reads_directly`) --------------------------------


def test_the_parsers_read_a_string_or_message_with_their_decide() -> None:
    for parser in TEXT_PARSERS:
        assert type(parser)._parse_one is AgentOutputParser._decide
    for parser in TOOL_PARSERS:
        assert type(parser)._parse_one is ToolsAgentOutputParser._decide
    assert OpenAIFunctionsAgentOutputParser._parse_one is BaseOutputParser._parse_one


def test_a_subclass_parse_result_sees_every_invoke_as_a_generation() -> None:
    seen: list[str] = []

    class Seeing(JSONAgentOutputParser):
        __slots__ = ()

        def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
            seen.append(type(result[0]).__name__)
            return super().parse_result(result, partial=partial)

    class Below(Seeing):  # inherits the override: still seen
        __slots__ = ()

    blob = '{"action": "Final Answer", "action_input": "42"}'
    for parser in (Seeing(), Below()):
        assert parser.invoke(blob) == AgentFinish({"output": "42"}, blob)
        assert parser.invoke(AIMessage(content=blob)) == AgentFinish({"output": "42"}, blob)
    assert seen == ["Generation", "ChatGeneration"] * 2

    class SeeingTools(ToolsAgentOutputParser):
        __slots__ = ()

        def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
            seen.append(type(result[0]).__name__)
            return super().parse_result(result, partial=partial)

    assert SeeingTools().invoke(AIMessage(content="done")) == AgentFinish(
        {"output": "done"}, "done"
    )
    assert seen[-1] == "ChatGeneration"


def test_a_subclass_decide_and_a_hand_written_parse_one_are_called() -> None:
    class Deciding(XMLAgentOutputParser):
        __slots__ = ()

        def _decide(self, output: Any) -> Any:
            return AgentFinish({"output": "decided"}, "")

    class OwnParseOne(ReActSingleInputOutputParser):
        __slots__ = ()

        def _parse_one(self, output: Any) -> Any:
            return AgentFinish({"output": "own"}, "")

    class Below(OwnParseOne):  # a parse_result below a hand-written _parse_one: kept
        __slots__ = ()

        def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
            raise AssertionError("not reached")

    assert Deciding().invoke("x") == AgentFinish({"output": "decided"}, "")
    assert OwnParseOne().invoke("x") == AgentFinish({"output": "own"}, "")
    assert Below().invoke(AIMessage(content="x")) == AgentFinish({"output": "own"}, "")
