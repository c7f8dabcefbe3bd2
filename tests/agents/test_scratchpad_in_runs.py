"""The run's scratchpad memo (`RunSteps`) through the executor: on every entry point and with
every agent type, each model call sees exactly what the agent's prompt makes of the steps so
far written from scratch (the memo changes how often a step is written, never what)."""

from __future__ import annotations

from typing import Any

import pytest
from middleware_support import ENTRIES, Entry, drive
from test_executor_agents import IDS, KINDS, Kind, _executor
from test_executor_support import tools

from leanchain.agents import AgentAction, AgentExecutor, AgentFinish
from leanchain.agents.format_scratchpad._steps import RunSteps
from leanchain.messages import BaseMessage
from leanchain.runnables import RunnableLambda


def _expected(agent: Any, inputs: dict[str, Any], steps: list[Any]) -> list[BaseMessage]:
    """The messages of a planning call over `steps`, every step written anew (a plain list)."""
    values = {**inputs, "intermediate_steps": steps}
    values["agent_scratchpad"] = agent.format_scratchpad(list(steps))
    messages: list[BaseMessage] = agent.prompt.invoke(values).to_messages()
    return messages


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_every_call_sees_the_steps_as_written_anew(kind: Kind, entry: Entry) -> None:
    # A parse error in the middle (text agents), so the error step's messages are in the fold.
    middle = kind.garbage if kind.garbage is not None else kind.call("echo", "b")
    script = [kind.call("echo", "a"), middle, kind.call("echo", "c"), kind.answer("42")]
    executor, model = _executor(
        kind, script, return_intermediate_steps=True, handle_parsing_errors=True
    )
    inputs = {"input": "q"}
    out = await drive(executor, inputs, entry)
    assert out["output"] == "42"
    steps = [tuple(step) for step in out["intermediate_steps"]]
    assert len(steps) == 3
    assert len(model.requests) == 4
    for i, request in enumerate(model.requests):
        assert request.messages == _expected(executor.agent, inputs, steps[:i])


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_a_trimmed_window_is_written_from_its_own_steps(kind: Kind) -> None:
    # trim_intermediate_steps=1: every call's first step is new, so the memo starts over.
    script = [kind.call("echo", "a"), kind.call("echo", "b"), kind.answer("42")]
    executor, model = _executor(
        kind, script, return_intermediate_steps=True, trim_intermediate_steps=1
    )
    out = executor.invoke({"input": "q"})
    steps = [tuple(step) for step in out["intermediate_steps"]]
    windows: list[list[Any]] = [[], steps[0:1], steps[1:2]]
    for request, window in zip(model.requests, windows, strict=True):
        assert request.messages == _expected(executor.agent, {"input": "q"}, window)


@pytest.mark.parametrize("entry", ENTRIES)
async def test_the_executor_hands_its_agent_run_steps_sharing_one_memo(entry: Entry) -> None:
    seen: list[Any] = []
    action = AgentAction("echo", "a", "log")

    def plan(inputs: dict[str, Any]) -> Any:
        seen.append(inputs["intermediate_steps"])
        return AgentFinish({"output": "42"}, "") if len(seen) == 3 else action

    executor = AgentExecutor(agent=RunnableLambda(plan), tools=tools())
    assert (await drive(executor, {"input": "q"}, entry))["output"] == "42"
    assert [type(steps) for steps in seen] == [RunSteps] * 3
    assert [len(steps) for steps in seen] == [0, 1, 2]
    assert len({id(steps.memo) for steps in seen}) == 1
