"""The agent loop, written once: plan, run the tools, record the steps, until a finish or a limit.

`steps` (sync) and `asteps` (async) are the only two copies of the control flow; they yield
`Planned`, `Stepped` and finally `Finished` events (`Interrupted` before it when a middleware
paused the run). Everything they decide on is in `AgentRun`, shared by both; the middleware
hooks are called through `_hooks`, only where the executor's hook table has users, one
generic branch per kind of answer. `invoke`, `stream`, `iter` and their async twins are views
of these events.

Time limits: the sync loop waits for a planning call only until the deadline (`call_within`)
and the async loop cancels it; no tool call starts once the time is up.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine, Iterator
from functools import partial
from typing import Any, TypeVar

from leanchain.agents import _hooks
from leanchain.agents._deadline import call_within
from leanchain.agents._run import AgentRun
from leanchain.agents._tools_run import arun_calls, run_calls
from leanchain.agents.middleware._base import Interrupt, ModelRequest, Plan, StopRun
from leanchain.agents.schema import AgentAction, AgentFinish, AgentStep
from leanchain.callbacks.manager import astart_run, start_run
from leanchain.errors import OutputParserException

__all__ = ["Event", "Finished", "Interrupted", "Planned", "Stepped", "asteps", "steps"]

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


class Interrupted:
    """A middleware paused the run before these planned calls (`Finished` follows)."""

    __slots__ = ("actions", "interrupt")

    def __init__(self, interrupt: Interrupt, actions: list[AgentAction]) -> None:
        self.interrupt = interrupt
        self.actions = actions


class Finished:
    """The run is over: the finish (``None`` when paused) and the run's outputs."""

    __slots__ = ("finish", "outputs")

    def __init__(self, finish: AgentFinish | None, outputs: dict[str, Any]) -> None:
        self.finish = finish
        self.outputs = outputs


Event = Planned | Stepped | Interrupted | Finished


def _ending(run: AgentRun, answer: AgentFinish | StopRun) -> AgentFinish:
    return run.stop_with(answer) if isinstance(answer, StopRun) else answer


async def _aending(run: AgentRun, answer: AgentFinish | StopRun) -> AgentFinish:
    return await run.astop_with(answer) if isinstance(answer, StopRun) else answer


def steps(run: AgentRun) -> Iterator[Event]:
    """The sync loop."""
    hooks = run.executor.hooks
    if hooks.any:
        hooks.check_sync()
    # An "agent" run sends chain events; the run_type keyword tells handlers its kind from
    # the start (an OpenTelemetry handler names its span "invoke_agent ...").
    manager = (
        start_run(run.config, "agent", run.executor.get_name(), run.inputs, run_type="agent")
        if run.config.get("callbacks")
        else None
    )
    run.begin(manager)
    try:
        finish: AgentFinish | None = None
        paused: Interrupted | None = None
        if hooks.before_agent and not run.resumed:
            answer = _hooks.before_agent(run)
            if answer is not None:
                finish = _ending(run, answer)
        while finish is None and run.should_continue():
            plan: Plan | StopRun | Interrupt
            if run.pending is not None:
                plan, run.pending = run.pending, None
            else:
                request = run.request()
                if hooks.before_model:
                    rewritten = _hooks.before_model(run, request)
                    if not isinstance(rewritten, ModelRequest):
                        finish = _ending(run, rewritten)
                        break
                    request = rewritten
                try:
                    in_time, planned = call_within(partial(run.plan, request), run.deadline())
                except OutputParserException as exc:
                    kept, answer = _keep_error_step(run, exc)
                    yield Stepped(kept, False)
                    if answer is not None:
                        finish = _ending(run, answer)
                    continue
                if not in_time or planned is None:
                    break
                plan = _hooks.after_model(run, planned) if hooks.after_model else planned
                if isinstance(plan, Interrupt):
                    paused = Interrupted(plan, plan.plan or planned)  # type: ignore[arg-type]
                    break
            if isinstance(plan, StopRun):
                finish = run.stop_with(plan)
                break
            if isinstance(plan, AgentFinish):
                finish = plan
                break
            if run.out_of_time():
                break
            run.announce(plan)
            yield Planned(plan)
            calls = [run.tool_call(request) for request in run.tool_requests(plan)]
            done = run_calls(calls, run.executor.max_tool_concurrency, run.deadline())
            if done is None:
                break
            answer = None
            if hooks.after_step:
                done, answer = _hooks.after_step(run, done)
            finish = run.record(done)
            yield Stepped(done, finish is not None)
            if finish is None and answer is not None:
                finish = _ending(run, answer)
        if paused is not None:
            yield paused
            event = Finished(None, run.pause(paused.actions, paused.interrupt))
        else:
            if finish is None:
                finish = run.stop()
            if hooks.after_agent:
                finish = _hooks.after_agent(run, finish)
            event = Finished(finish, run.outputs(finish))
    except GeneratorExit:  # closed early by its consumer: an end, not a failure
        if manager:
            manager.on_end(dict(run.inputs))
        raise
    except BaseException as exc:
        if manager:
            manager.on_error(exc)
        raise
    # The run ends after its last event is out: a view streams the outputs first.
    try:
        yield event
    finally:
        if manager:
            if event.finish is not None:
                manager.emit("on_agent_finish", event.finish)
            manager.on_end({**run.inputs, **event.outputs})


def _keep_error_step(
    run: AgentRun, exc: OutputParserException
) -> tuple[list[AgentStep], AgentFinish | StopRun | None]:
    """The step an unparsable reply becomes, after the `after_step` hooks, kept."""
    step = run.parse_error_step(exc)
    run.announce([step.action])
    kept, answer = [step], None
    if run.executor.hooks.after_step:
        kept, answer = _hooks.after_step(run, kept)
    run.record(kept)
    return kept, answer


async def _akeep_error_step(
    run: AgentRun, exc: OutputParserException
) -> tuple[list[AgentStep], AgentFinish | StopRun | None]:
    """Async `_keep_error_step`."""
    step = run.parse_error_step(exc)
    await run.aannounce([step.action])
    kept, answer = [step], None
    if run.executor.hooks.after_step:
        kept, answer = await _hooks.aafter_step(run, kept)
    run.record(kept)
    return kept, answer


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
    hooks = run.executor.hooks
    manager = (
        await astart_run(run.config, "agent", run.executor.get_name(), run.inputs, run_type="agent")
        if run.config.get("callbacks")
        else None
    )
    run.begin(manager)
    try:
        finish: AgentFinish | None = None
        paused: Interrupted | None = None
        if hooks.before_agent and not run.resumed:
            answer = await _hooks.abefore_agent(run)
            if answer is not None:
                finish = await _aending(run, answer)
        while finish is None and run.should_continue():
            plan: Plan | StopRun | Interrupt
            if run.pending is not None:
                plan, run.pending = run.pending, None
            else:
                request = run.request()
                if hooks.before_model:
                    rewritten = await _hooks.abefore_model(run, request)
                    if not isinstance(rewritten, ModelRequest):
                        finish = await _aending(run, rewritten)
                        break
                    request = rewritten
                try:
                    in_time, planned = await _limited(run.aplan(request), run.remaining())
                except OutputParserException as exc:
                    kept, answer = await _akeep_error_step(run, exc)
                    yield Stepped(kept, False)
                    if answer is not None:
                        finish = await _aending(run, answer)
                    continue
                if not in_time or planned is None:
                    break
                plan = await _hooks.aafter_model(run, planned) if hooks.after_model else planned
                if isinstance(plan, Interrupt):
                    paused = Interrupted(plan, plan.plan or planned)  # type: ignore[arg-type]
                    break
            if isinstance(plan, StopRun):
                finish = await run.astop_with(plan)
                break
            if isinstance(plan, AgentFinish):
                finish = plan
                break
            if run.out_of_time():
                break
            await run.aannounce(plan)
            yield Planned(plan)
            calls = [run.atool_call(request) for request in run.tool_requests(plan)]
            in_time, done = await _limited(
                arun_calls(calls, run.executor.max_tool_concurrency), run.remaining()
            )
            if not in_time or done is None:
                break
            answer = None
            if hooks.after_step:
                done, answer = await _hooks.aafter_step(run, done)
            finish = run.record(done)
            yield Stepped(done, finish is not None)
            if finish is None and answer is not None:
                finish = await _aending(run, answer)
        if paused is not None:
            yield paused
            event = Finished(None, run.pause(paused.actions, paused.interrupt))
        else:
            if finish is None:
                finish = await run.astop()
            if hooks.after_agent:
                finish = await _hooks.aafter_agent(run, finish)
            event = Finished(finish, run.outputs(finish))
    except GeneratorExit:
        if manager:
            await manager.aon_end(dict(run.inputs))
        raise
    except BaseException as exc:
        if manager:
            await manager.aon_error(exc)
        raise
    try:
        yield event
    finally:
        if manager:
            if event.finish is not None:
                await manager.aemit("on_agent_finish", event.finish)
            await manager.aon_end({**run.inputs, **event.outputs})
