"""AgentExecutor's `stream`/`astream` chunks and `iter` (sync and async), exactly."""

from __future__ import annotations

import functools
import operator
from typing import Any

import pytest
from test_executor_support import MODES, Mode, ScriptAgent, act, chunks, finish, tools

from leanchain.agents import AgentAction, AgentExecutor, AgentStep, ToolAgentAction
from leanchain.agents.executor import AgentExecutorIterator
from leanchain.errors import OutputParserException
from leanchain.messages import AIMessage, HumanMessage, ToolMessage
from leanchain.runnables import AddableDict

STOPPED = "Agent stopped due to iteration limit or time limit."


@pytest.mark.parametrize("mode", MODES)
async def test_stream_yields_actions_then_steps_then_the_output(mode: Mode) -> None:
    a, b = act("echo", "a", "log a"), act("echo", "b", "log b")
    executor = AgentExecutor(agent=ScriptAgent([a, b], finish("done")), tools=tools())
    got = await chunks(executor, {"input": "q"}, mode)
    assert got == [
        {"actions": [a], "messages": [AIMessage(content="log a")]},
        {"actions": [b], "messages": [AIMessage(content="log b")]},
        {"steps": [AgentStep(a, "echo:a")], "messages": [HumanMessage(content="echo:a")]},
        {"steps": [AgentStep(b, "echo:b")], "messages": [HumanMessage(content="echo:b")]},
        {"output": "done", "messages": [AIMessage(content="FIN")]},
    ]
    assert all(type(c) is AddableDict for c in got)


@pytest.mark.parametrize("mode", MODES)
async def test_stream_of_tool_calls_uses_the_message_log_and_tool_messages(mode: Mode) -> None:
    message = AIMessage(
        content="",
        tool_calls=[
            {"name": "echo", "args": {"text": "a"}, "id": "call_1", "type": "tool_call"},
            {"name": "echo", "args": {"text": "b"}, "id": "call_2", "type": "tool_call"},
        ],
    )
    first = ToolAgentAction("echo", {"text": "a"}, "log", [message], "call_1")
    second = ToolAgentAction("echo", {"text": "b"}, "log", [message], "call_2")
    executor = AgentExecutor(
        agent=ScriptAgent([first, second], finish("done")),
        tools=tools(),
        return_intermediate_steps=True,
    )
    got = await chunks(executor, {"input": "q"}, mode)
    assert got == [
        {"actions": [first], "messages": [message]},
        {"actions": [second], "messages": [message]},
        {
            "steps": [AgentStep(first, "echo:a")],
            "messages": [ToolMessage(content="echo:a", tool_call_id="call_1", name="echo")],
        },
        {
            "steps": [AgentStep(second, "echo:b")],
            "messages": [ToolMessage(content="echo:b", tool_call_id="call_2", name="echo")],
        },
        {
            "output": "done",
            "intermediate_steps": [(first, "echo:a"), (second, "echo:b")],
            "messages": [AIMessage(content="FIN")],
        },
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_summed_chunks_collect_actions_steps_messages_and_output(mode: Mode) -> None:
    a = act("echo", "a", "log a")
    executor = AgentExecutor(agent=ScriptAgent(a, finish("done")), tools=tools())
    total = functools.reduce(operator.add, await chunks(executor, {"input": "q"}, mode))
    assert total == {
        "actions": [a],
        "steps": [AgentStep(a, "echo:a")],
        "messages": [
            AIMessage(content="log a"),
            HumanMessage(content="echo:a"),
            AIMessage(content="FIN"),
        ],
        "output": "done",
    }


@pytest.mark.parametrize("mode", MODES)
async def test_parse_error_streams_only_its_step(mode: Mode) -> None:
    executor = AgentExecutor(
        agent=ScriptAgent(OutputParserException("junk"), finish("ok")),
        tools=tools(),
        handle_parsing_errors="fix it",
    )
    error = AgentAction("_Exception", "fix it", "junk")
    assert await chunks(executor, {"input": "q"}, mode) == [
        {"steps": [AgentStep(error, "fix it")], "messages": [HumanMessage(content="fix it")]},
        {"output": "ok", "messages": [AIMessage(content="FIN")]},
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_stopped_run_streams_the_stopped_response(mode: Mode) -> None:
    executor = AgentExecutor(agent=ScriptAgent(), tools=tools(), max_iterations=0)
    assert await chunks(executor, "q", mode) == [
        {"output": STOPPED, "messages": [AIMessage(content="")]}
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_return_direct_streams_the_step_then_the_output(mode: Mode) -> None:
    d = act("direct", "x")
    executor = AgentExecutor(agent=ScriptAgent(d), tools=tools())
    assert await chunks(executor, {"input": "q"}, mode) == [
        {"actions": [d], "messages": [AIMessage(content="call direct")]},
        {"steps": [AgentStep(d, "direct:x")], "messages": [HumanMessage(content="direct:x")]},
        {"output": "direct:x", "messages": [AIMessage(content="")]},
    ]


async def _iterate(iterator: AgentExecutorIterator, mode: Mode) -> list[dict[str, Any]]:
    if mode == "sync":
        return list(iterator)
    return [c async for c in iterator]


@pytest.mark.parametrize("mode", MODES)
async def test_iter_yields_one_chunk_per_iteration_then_the_output(mode: Mode) -> None:
    a, b, c = act("echo", "a"), act("echo", "b"), act("echo", "c")
    executor = AgentExecutor(agent=ScriptAgent([a, b], c, finish("42")), tools=tools())
    iterator = executor.iter({"input": "q"})
    assert await _iterate(iterator, mode) == [
        {"intermediate_step": [(a, "echo:a"), (b, "echo:b")]},
        {"intermediate_step": [(c, "echo:c")]},
        {"output": "42", "messages": [AIMessage(content="FIN")]},
    ]
    assert iterator.iterations == 2
    assert iterator.intermediate_steps == [(a, "echo:a"), (b, "echo:b"), (c, "echo:c")]
    assert iterator.time_elapsed > 0


@pytest.mark.parametrize("mode", MODES)
async def test_iter_ends_with_the_return_direct_output(mode: Mode) -> None:
    a, d = act("echo", "a"), act("direct", "x")
    executor = AgentExecutor(agent=ScriptAgent(a, d), tools=tools())
    assert await _iterate(executor.iter("q"), mode) == [
        {"intermediate_step": [(a, "echo:a")]},
        {"output": "direct:x", "messages": [AIMessage(content="")]},
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_iter_of_a_stopped_run_yields_the_last_step_then_the_stop(mode: Mode) -> None:
    a = act("echo", "a")
    executor = AgentExecutor(agent=ScriptAgent(a), tools=tools(), max_iterations=1)
    assert await _iterate(executor.iter({"input": "q"}), mode) == [
        {"intermediate_step": [(a, "echo:a")]},
        {"output": STOPPED, "messages": [AIMessage(content="")]},
    ]


def test_an_iterator_before_it_runs_has_no_steps() -> None:
    iterator = AgentExecutor(agent=ScriptAgent(), tools=tools()).iter("q")
    assert (iterator.inputs, iterator.iterations, iterator.intermediate_steps) == (
        {"input": "q"},
        0,
        [],
    )
    assert iterator.time_elapsed == 0.0


def test_closing_a_stream_early_stops_the_run() -> None:
    agent = ScriptAgent(act("echo", "a"), act("echo", "b"), finish("done"))
    stream = AgentExecutor(agent=agent, tools=tools()).stream({"input": "q"})
    first = next(stream)
    stream.close()  # type: ignore[attr-defined]
    assert first == {"actions": [act("echo", "a")], "messages": [AIMessage(content="call echo")]}
    assert agent.steps_seen == [0]
