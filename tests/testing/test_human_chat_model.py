"""`HumanChatModel`: prints the prompt, reads the reply (text and tool calls) from its input."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, tool_call
from leanchain.testing import HumanChatModel, cassette
from leanchain.tools import tool

INSTRUCTIONS = (
    '=== Your reply as the model: end it with a line holding only "."; '
    "a line '/tool NAME {json arguments}' calls a tool."
)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def human(typed: str) -> tuple[HumanChatModel, io.StringIO]:
    out = io.StringIO()
    return HumanChatModel(input=io.StringIO(typed), output=out), out


def test_it_prints_the_prompt_and_returns_the_typed_reply() -> None:
    model, out = human("Hello there.\nHow can I help?\n.\n")
    reply = model.invoke([SystemMessage("Be kind."), HumanMessage("Hi!")], stop=["\nObs"])
    assert reply == AIMessage(content="Hello there.\nHow can I help?")
    assert out.getvalue() == (
        "=== round 1: the prompt (2 messages) ===\n"
        "[system]\n"
        "Be kind.\n"
        "[human]\n"
        "Hi!\n"
        'stop sequences: "\\nObs"\n'
        f"{INSTRUCTIONS}\n"
        "> > > "
    )


def test_tool_lines_become_tool_calls() -> None:
    model, out = human('Let me add.\n/tool add {"a": 1, "b": 2}\n/tool add\n.\n')
    reply = model.bind_tools([add]).invoke("1 + 2?")
    assert reply == AIMessage(
        content="Let me add.",
        tool_calls=[
            tool_call(name="add", args={"a": 1, "b": 2}, id="human_call_1"),
            tool_call(name="add", args={}, id="human_call_2"),
        ],
    )
    assert "tools offered: add\n" in out.getvalue()


def test_a_bad_tool_line_is_asked_again() -> None:
    model, out = human('/tool add {"a": 1\n/tool add [1]\n/tool add {"a": 1}\n.\n')
    reply = model.invoke("q")
    assert reply.tool_calls == [tool_call(name="add", args={"a": 1}, id="human_call_1")]
    shown = out.getvalue().split(INSTRUCTIONS + "\n", 1)[1]
    assert shown == (
        "> (not a tool call: the arguments are not JSON: Expecting ',' delimiter: line 1 "
        "column 8 (char 7); type the line again)\n"
        "> (not a tool call: expected '/tool NAME {json object}'; type it again)\n"
        "> > "
    )


def test_the_end_of_input_ends_a_reply_but_not_an_empty_one() -> None:
    model, _ = human("last words")
    assert model.invoke("q").text == "last words"
    with pytest.raises(EOFError) as info:
        model.invoke("again")
    assert str(info.value) == "HumanChatModel: the input ended before a reply was typed"


def test_stream_gives_the_typed_reply_as_one_chunk() -> None:
    model, _ = human("streamed\n.\n")
    assert list(model.stream("q")) == [AIMessageChunk(content="streamed", chunk_position="last")]


async def test_ainvoke_reads_in_a_worker_thread() -> None:
    model, _ = human("async\n.\n")
    assert (await model.ainvoke("q")).text == "async"


def test_a_person_plays_an_agent_round_by_round_and_the_rounds_can_be_recorded(
    tmp_path: Path,
) -> None:
    typed = '/tool add {"a": 20, "b": 22}\n.\nIt is 42.\n.\n'
    model, out = human(typed)
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, [add], TOOL_CALLING_PROMPT), tools=[add]
    )
    path = tmp_path / "human.json"
    with cassette(path, mode="record") as tape:
        result = executor.invoke({"input": "What is 20 + 22?"})
    assert result == {"input": "What is 20 + 22?", "output": "It is 42."}
    shown = out.getvalue()
    assert "=== round 2: the prompt (4 messages) ===\n" in shown
    assert '[ai]\n-> add {"a": 20, "b": 22} (human_call_1)\n[tool add human_call_1]\n42\n' in shown
    assert [e.model for e in tape.entries] == ["HumanChatModel", "HumanChatModel"]
