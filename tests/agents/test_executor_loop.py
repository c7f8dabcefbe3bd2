"""AgentExecutor's loop: steps, invalid tools, parse errors, limits, early stopping, return_direct,
trimming and tool errors (sync and async alike)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from test_executor_support import (
    MODES,
    GeneratingAgent,
    Mode,
    ScriptAgent,
    act,
    finish,
    run,
    tools,
)

from leanchain.agents import AgentAction, AgentExecutor, AgentFinish
from leanchain.errors import OutputParserException, ToolException
from leanchain.tools import tool

STOPPED = "Agent stopped due to iteration limit or time limit."


@pytest.mark.parametrize("mode", MODES)
async def test_multi_step_run_returns_inputs_and_outputs(mode: Mode) -> None:
    agent = ScriptAgent(act("echo", {"text": "a"}), act("echo", "b"), finish("42", extra=1))
    executor = AgentExecutor(agent=agent, tools=tools())
    result = await run(executor, {"input": "q", "other": 2}, mode)
    assert result == {"input": "q", "other": 2, "output": "42", "extra": 1}
    assert agent.steps_seen == [0, 1, 2]
    assert agent.seen[2] == {
        "input": "q",
        "other": 2,
        "intermediate_steps": [
            (act("echo", {"text": "a"}), "echo:a"),
            (act("echo", "b"), "echo:b"),
        ],
    }


@pytest.mark.parametrize("mode", MODES)
async def test_intermediate_steps_are_returned_when_asked(mode: Mode) -> None:
    agent = ScriptAgent([act("echo", "a"), act("echo", "b")], finish("done"))
    executor = AgentExecutor(agent=agent, tools=tools(), return_intermediate_steps=True)
    result = await run(executor, {"input": "q"}, mode)
    assert result == {
        "input": "q",
        "output": "done",
        "intermediate_steps": [(act("echo", "a"), "echo:a"), (act("echo", "b"), "echo:b")],
    }


@pytest.mark.parametrize("mode", MODES)
async def test_invalid_tool_becomes_an_observation_and_the_run_goes_on(mode: Mode) -> None:
    agent = ScriptAgent(act("nope", "x"), finish("ok"))
    executor = AgentExecutor(agent=agent, tools=tools(), return_intermediate_steps=True)
    result = await run(executor, {"input": "q"}, mode)
    assert result["intermediate_steps"] == [
        (act("nope", "x"), "nope is not a valid tool, try one of [echo, direct, direct2].")
    ]
    assert result["output"] == "ok"


# -- parse errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_parse_error_raises_the_reference_message_by_default(mode: Mode) -> None:
    error = OutputParserException("Could not parse LLM output: `I have no format`")
    executor = AgentExecutor(agent=ScriptAgent(error), tools=tools())
    with pytest.raises(ValueError) as info:
        await run(executor, {"input": "q"}, mode)
    assert str(info.value) == (
        "An output parsing error occurred. In order to pass this error back to the agent and "
        "have it try again, pass `handle_parsing_errors=True` to the AgentExecutor. This is the "
        "error: Could not parse LLM output: `I have no format`"
    )
    # An OutputParserException (what docs/agents.md promises), which is a ValueError as
    # LangChain's error is, so `except ValueError` in ported code still catches it.
    assert type(info.value) is OutputParserException
    assert isinstance(info.value, ValueError)
    assert info.value.__cause__ is error


def _callback(exc: OutputParserException) -> str:
    return f"CB({type(exc).__name__})"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("handler", "error", "step"),
    [
        (
            True,
            OutputParserException("bad format"),
            ("Invalid or incomplete response", "bad format"),
        ),
        (
            True,
            OutputParserException(
                "bad", observation="Use the format", llm_output="raw text", send_to_llm=True
            ),
            ("Use the format", "raw text"),
        ),
        ("Please fix", OutputParserException("bad format"), ("Please fix", "bad format")),
        (
            _callback,
            OutputParserException("bad format"),
            ("CB(OutputParserException)", "bad format"),
        ),
        ("", OutputParserException("bad format"), ("", "bad format")),
    ],
)
async def test_handled_parse_error_becomes_an_exception_step(
    mode: Mode, handler: Any, error: OutputParserException, step: tuple[str, str]
) -> None:
    agent = ScriptAgent(error, finish("ok"))
    executor = AgentExecutor(
        agent=agent, tools=tools(), handle_parsing_errors=handler, return_intermediate_steps=True
    )
    result = await run(executor, {"input": "q"}, mode)
    observation, log = step
    assert result["intermediate_steps"] == [
        (AgentAction("_Exception", observation, log), observation)
    ]
    assert result["output"] == "ok"
    assert agent.steps_seen == [0, 1]


@pytest.mark.parametrize("mode", MODES)
async def test_parse_errors_count_as_iterations(mode: Mode) -> None:
    agent = ScriptAgent(*[OutputParserException("junk")] * 3)
    executor = AgentExecutor(
        agent=agent, tools=tools(), handle_parsing_errors=True, max_iterations=3
    )
    assert await run(executor, {"input": "q"}, mode) == {"input": "q", "output": STOPPED}
    assert agent.steps_seen == [0, 1, 2]


@pytest.mark.parametrize("mode", MODES)
async def test_other_agent_errors_propagate(mode: Mode) -> None:
    executor = AgentExecutor(
        agent=ScriptAgent(KeyError("model broke")), tools=tools(), handle_parsing_errors=True
    )
    with pytest.raises(KeyError, match="model broke"):
        await run(executor, {"input": "q"}, mode)


# -- limits and early stopping ------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_max_iterations_zero_never_calls_the_agent(
    mode: Mode, caplog: pytest.LogCaptureFixture
) -> None:
    agent = ScriptAgent()
    executor = AgentExecutor(agent=agent, tools=tools(), max_iterations=0)
    with caplog.at_level(logging.WARNING, logger="leanchain.agents"):
        assert await run(executor, {"input": "q"}, mode) == {"input": "q", "output": STOPPED}
    assert agent.seen == []
    # invoke says nothing (as LangChain's): the output already says why the run stopped.
    assert caplog.records == []


@pytest.mark.parametrize("mode", MODES)
async def test_a_limit_is_logged_from_stream_and_iter_only(
    mode: Mode, caplog: pytest.LogCaptureFixture
) -> None:
    executor = AgentExecutor(agent=ScriptAgent(), tools=tools(), max_iterations=0)
    with caplog.at_level(logging.WARNING, logger="leanchain.agents"):
        if mode == "sync":
            streamed = list(executor.stream({"input": "q"}))
            iterated = list(executor.iter({"input": "q"}))
        else:
            streamed = [c async for c in executor.astream({"input": "q"})]
            iterated = [c async for c in executor.iter({"input": "q"})]
    assert [c["output"] for c in streamed + iterated] == [STOPPED, STOPPED]
    assert [r.getMessage() for r in caplog.records] == [
        "Stopping agent prematurely due to triggering stop condition"
    ] * 2


@pytest.mark.parametrize("mode", MODES)
async def test_max_iterations_stops_a_looping_agent(mode: Mode) -> None:
    agent = ScriptAgent(*[act("echo", str(i)) for i in range(5)])
    executor = AgentExecutor(
        agent=agent, tools=tools(), max_iterations=3, return_intermediate_steps=True
    )
    result = await run(executor, {"input": "q"}, mode)
    assert result == {
        "input": "q",
        "output": STOPPED,
        "intermediate_steps": [(act("echo", str(i)), f"echo:{i}") for i in range(3)],
    }
    assert agent.steps_seen == [0, 1, 2]


@pytest.mark.parametrize("mode", MODES)
async def test_max_execution_time_zero_stops_immediately(mode: Mode) -> None:
    agent = ScriptAgent()
    executor = AgentExecutor(agent=agent, tools=tools(), max_execution_time=0.0)
    assert await run(executor, {"input": "q"}, mode) == {"input": "q", "output": STOPPED}
    assert agent.seen == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("reply", "output"),
    [
        ("From the steps: 42", {"output": "From the steps: 42"}),
        (AgentFinish({"output": "42", "why": "steps"}, "log"), {"output": "42", "why": "steps"}),
    ],
)
async def test_generate_asks_the_agent_for_a_final_answer(
    mode: Mode, reply: Any, output: dict[str, Any]
) -> None:
    agent = GeneratingAgent(reply, act("echo", "a"), act("echo", "b"))
    executor = AgentExecutor(
        agent=agent, tools=tools(), max_iterations=2, early_stopping_method="generate"
    )
    assert await run(executor, {"input": "q"}, mode) == {"input": "q", **output}
    assert agent.final_inputs == [
        {
            "input": "q",
            "intermediate_steps": [(act("echo", "a"), "echo:a"), (act("echo", "b"), "echo:b")],
        }
    ]


def test_generate_needs_an_agent_that_can_write_a_final_answer() -> None:
    with pytest.raises(ValueError, match=r"^Got unsupported early_stopping_method `generate`$"):
        AgentExecutor(agent=ScriptAgent(), tools=tools(), early_stopping_method="generate")


def test_unknown_early_stopping_method_fails_at_construction() -> None:
    with pytest.raises(ValueError, match=r"^Got unsupported early_stopping_method `later`$"):
        AgentExecutor(agent=ScriptAgent(), tools=tools(), early_stopping_method="later")


# -- return_direct and trimming -----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_return_direct_tool_ends_the_run_with_its_observation(mode: Mode) -> None:
    agent = ScriptAgent(act("direct", "x"))
    executor = AgentExecutor(agent=agent, tools=tools())
    assert await run(executor, {"input": "q"}, mode) == {"input": "q", "output": "direct:x"}


@pytest.mark.parametrize("mode", MODES)
async def test_return_direct_among_several_calls_runs_them_all(mode: Mode) -> None:
    calls = [act("echo", "a"), act("direct", "b"), act("direct2", "c")]
    agent = ScriptAgent(calls)
    executor = AgentExecutor(agent=agent, tools=tools(), return_intermediate_steps=True)
    assert await run(executor, {"input": "q"}, mode) == {
        "input": "q",
        "output": "direct:b",
        "intermediate_steps": [
            (calls[0], "echo:a"),
            (calls[1], "direct:b"),
            (calls[2], "direct2:c"),
        ],
    }


@pytest.mark.parametrize("mode", MODES)
async def test_trim_keeps_what_the_agent_sees_and_not_what_is_returned(mode: Mode) -> None:
    agent = ScriptAgent(act("echo", "1"), act("echo", "2"), act("echo", "3"), finish("ok"))
    executor = AgentExecutor(
        agent=agent, tools=tools(), trim_intermediate_steps=2, return_intermediate_steps=True
    )
    result = await run(executor, {"input": "q"}, mode)
    assert agent.steps_seen == [0, 1, 2, 2]
    assert agent.seen[3]["intermediate_steps"] == [
        (act("echo", "2"), "echo:2"),
        (act("echo", "3"), "echo:3"),
    ]
    assert len(result["intermediate_steps"]) == 3


@pytest.mark.parametrize("mode", MODES)
async def test_trim_may_be_a_function_of_the_steps(mode: Mode) -> None:
    agent = ScriptAgent(act("echo", "1"), act("echo", "2"), finish("ok"))
    executor = AgentExecutor(
        agent=agent, tools=tools(), trim_intermediate_steps=lambda steps: steps[:1]
    )
    await run(executor, {"input": "q"}, mode)
    assert agent.steps_seen == [0, 1, 1]


# -- tool errors ------------------------------------------------------------------------------


@tool
def broken(text: str) -> str:
    """Always fails."""
    raise RuntimeError("tool broke")


@tool
def polite(text: str) -> str:
    """Fails with a ToolException it handles itself."""
    raise ToolException(f"cannot do {text}")


polite.handle_tool_error = True


@pytest.mark.parametrize("mode", MODES)
async def test_tool_errors_propagate_by_default(mode: Mode) -> None:
    executor = AgentExecutor(agent=ScriptAgent(act("broken", "x")), tools=[broken])
    # The error propagates unchanged, with a note naming the iteration and the tool.
    with pytest.raises(
        RuntimeError, match=r"^tool broke\nAgentExecutor iteration 1: tool 'broken' failed\.$"
    ):
        await run(executor, {"input": "q"}, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("handler", "observation"),
    [
        (True, "tool broke"),
        ("Tool failed, try another way", "Tool failed, try another way"),
        (lambda exc: f"{type(exc).__name__}: {exc}", "RuntimeError: tool broke"),
    ],
)
async def test_handle_tool_errors_turns_errors_into_observations(
    mode: Mode, handler: Any, observation: str
) -> None:
    agent = ScriptAgent(act("broken", "x"), finish("recovered"))
    executor = AgentExecutor(
        agent=agent, tools=[broken], handle_tool_errors=handler, return_intermediate_steps=True
    )
    result = await run(executor, {"input": "q"}, mode)
    assert result["intermediate_steps"] == [(act("broken", "x"), observation)]
    assert result["output"] == "recovered"


@pytest.mark.parametrize("mode", MODES)
async def test_tool_exception_goes_through_the_tools_own_handler_first(mode: Mode) -> None:
    agent = ScriptAgent(act("polite", "x"), finish("ok"))
    executor = AgentExecutor(
        agent=agent,
        tools=[polite],
        handle_tool_errors="executor handler",
        return_intermediate_steps=True,
    )
    result = await run(executor, {"input": "q"}, mode)
    assert result["intermediate_steps"] == [(act("polite", "x"), "cannot do x")]


@pytest.mark.parametrize("mode", MODES)
async def test_agent_output_of_the_wrong_type_is_a_type_error(mode: Mode) -> None:
    executor = AgentExecutor(agent=ScriptAgent("just text"), tools=tools())
    with pytest.raises(TypeError) as info:
        await run(executor, {"input": "q"}, mode)
    assert str(info.value) == (
        "The agent must return an AgentAction, a list of AgentActions or an AgentFinish, "
        "got str: 'just text'"
    )


@tool
def stopper(text: str) -> str:
    """Raises StopIteration, which must never escape as such."""
    raise StopIteration


@pytest.mark.parametrize("mode", MODES)
async def test_no_stop_iteration_escapes(mode: Mode) -> None:
    executor = AgentExecutor(agent=ScriptAgent(act("stopper", "x")), tools=[stopper])
    with pytest.raises(RuntimeError) as info:
        await run(executor, {"input": "q"}, mode)
    assert type(info.value) is RuntimeError
    assert isinstance(info.value.__cause__, StopIteration)
