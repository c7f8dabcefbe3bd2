"""The agent loop, written once: plan, run the tools, record the steps, until a finish or a limit.

`steps` (sync) and `asteps` (async) are the only two copies of the control flow; they yield
`Planned`, `Stepped` and finally `Finished` events. Everything they decide on is in
`AgentRun`, shared by both. `invoke`, `stream`, `iter` and their async twins are views of
these events.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, TypeVar

from leanchain.agents._run import AgentRun
from leanchain.agents._tools_run import arun_calls, run_calls
from leanchain.agents.schema import AgentAction, AgentFinish, AgentStep
from leanchain.callbacks.manager import astart_run, start_run
from leanchain.errors import OutputParserException

__all__ = ["Event", "Finished", "Planned", "Stepped", "asteps", "steps"]

T = TypeVar("T")


class Planned:
    """The agent asked for these tool calls (before any of them ran)."""

    __slots__ = ("actions",)

    def __init__(self, actions: list[AgentAction]) -> None:
        self.actions = actions


class Stepped:
    """The steps of one iteration, in call order; `last` when a return_direct tool ends it."""

    __slots__ = ("last", "steps")

    def __init__(self, steps: list[AgentStep], last: bool) -> None:
        self.steps = steps
        self.last = last


class Finished:
    """The run is over: the finish and the run's outputs (without the inputs)."""

    __slots__ = ("finish", "outputs")

    def __init__(self, finish: AgentFinish, outputs: dict[str, Any]) -> None:
        self.finish = finish
        self.outputs = outputs


Event = Planned | Stepped | Finished


def steps(run: AgentRun) -> Iterator[Event]:
    """The sync loop."""
    # An "agent" run sends chain events; the run_type keyword tells handlers its kind from
    # the start (an OpenTelemetry handler names its span "invoke_agent ...").
    manager = (
        start_run(run.config, "agent", run.ex.get_name(), run.inputs, run_type="agent")
        if run.config.get("callbacks")
        else None
    )
    run.begin(manager)
    try:
        finish: AgentFinish | None = None
        while run.should_continue():
            try:
                plan = run.plan()
            except OutputParserException as exc:
                step = run.parse_error_step(exc)
                if manager:
                    manager.emit("on_agent_action", step.action)
                run.record([step])
                yield Stepped([step], False)
                continue
            if isinstance(plan, AgentFinish):
                finish = plan
                break
            run.announce(plan)
            yield Planned(plan)
            calls = [run.tool_call(action) for action in plan]
            done = run_calls(calls, run.ex.max_tool_concurrency, run.deadline())
            if done is None:
                break
            finish = run.record(done)
            yield Stepped(done, finish is not None)
            if finish is not None:
                break
        if finish is None:
            finish = run.stop()
        event = Finished(finish, run.outputs(finish))
        if manager:
            manager.emit("on_agent_finish", finish)
            manager.on_end({**run.inputs, **event.outputs})
    except BaseException as exc:
        if manager:
            manager.on_error(exc)
        raise
    yield event


async def _limited(work: Coroutine[Any, Any, T], remaining: float | None) -> tuple[bool, T | None]:
    """Await `work` within `remaining` seconds: ``(False, None)`` when the time ran out."""
    if remaining is None:
        return True, await work
    timeout = asyncio.timeout(remaining)
    try:
        async with timeout:
            return True, await work
    except TimeoutError:
        if timeout.expired():
            return False, None
        raise


async def asteps(run: AgentRun) -> AsyncIterator[Event]:
    """The async loop; the time limit cancels the planning call or the tool calls in flight."""
    manager = (
        await astart_run(run.config, "agent", run.ex.get_name(), run.inputs, run_type="agent")
        if run.config.get("callbacks")
        else None
    )
    run.begin(manager)
    try:
        finish: AgentFinish | None = None
        while run.should_continue():
            try:
                in_time, plan = await _limited(run.aplan(), run.remaining())
            except OutputParserException as exc:
                step = run.parse_error_step(exc)
                if manager:
                    await manager.aemit("on_agent_action", step.action)
                run.record([step])
                yield Stepped([step], False)
                continue
            if not in_time or plan is None:
                break
            if isinstance(plan, AgentFinish):
                finish = plan
                break
            await run.aannounce(plan)
            yield Planned(plan)
            calls = [run.atool_call(action) for action in plan]
            in_time, done = await _limited(
                arun_calls(calls, run.ex.max_tool_concurrency), run.remaining()
            )
            if not in_time or done is None:
                break
            finish = run.record(done)
            yield Stepped(done, finish is not None)
            if finish is not None:
                break
        if finish is None:
            finish = await run.astop()
        event = Finished(finish, run.outputs(finish))
        if manager:
            await manager.aemit("on_agent_finish", finish)
            await manager.aon_end({**run.inputs, **event.outputs})
    except BaseException as exc:
        if manager:
            await manager.aon_error(exc)
        raise
    yield event
