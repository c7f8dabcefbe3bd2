"""The agent loop, written once: plan, run the tools, record the steps, until a finish or a limit.

`_flow` is the control flow, once for sync and async: a generator that yields the loop's
events (`Planned`, `Stepped`, `Interrupted` when a middleware paused the run) and the
`Finished` one last. Every call that may block (the planning call, the tool calls, the
middleware hooks, a final answer) is made in place when the flow runs sync; async, it yields
an `Effect` instead (the sync function, its async twin, the arguments), which `asteps`
awaits, sending the result back (or throwing the exception in, where the flow asked for it).
`steps` is the sync flow's events (under the executor's run manager when there are
callbacks). Everything the flow decides on is in `AgentRun`; the middleware hooks are called
through `_hooks`, only where the executor's hook table has users. `invoke`, `stream`, `iter`
and their async twins are views of these events.

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
from leanchain.agents._hooks import Effect, Flow
from leanchain.agents._run import AgentRun
from leanchain.agents._tools_run import arun_calls, run_calls
from leanchain.agents.middleware._base import Interrupt, ModelRequest, Plan, StopRun
from leanchain.agents.schema import AgentAction, AgentFinish, AgentStep
from leanchain.callbacks.manager import RunManager, astart_run, start_run
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


def _ending(run: AgentRun, answer: AgentFinish | StopRun, sync: bool) -> Flow:
    if not isinstance(answer, StopRun):
        return answer
    return run.stop_with(answer) if sync else (yield run.stop_with, run.astop_with, (answer,))


def _flow(run: AgentRun, manager: RunManager | None, sync: bool) -> Flow:
    """The loop under the executor's run `manager` (or none): yields the events and, unless
    `sync` (then it makes the sync calls itself), the effects; the `Finished` event last.

    (Yielded, not returned: a run with no manager has nothing to add, and `steps` hands
    this generator out as it is, a generator layer less per event.)"""
    run.begin(manager)
    hooks = run.executor.hooks
    events = not run.quiet  # a quiet run's caller reads only its `Finished` event
    timed = run.deadline_at is not None
    plans_in_place, tools_in_place = run.plans_in_place, run.tools_in_place  # (`begin`)
    one_by_one = run.executor.max_tool_concurrency == 1
    finish: AgentFinish | None = None
    paused: Interrupted | None = None
    if hooks.before_agent and not run.resumed:
        answer = yield from _hooks.before_agent(run, sync)
        if answer is not None:
            finish = yield from _ending(run, answer, sync)
    limit = run.executor.max_iterations  # (an executor is not changed once built)
    while finish is None:
        # `should_continue`, in place where only the iteration limit can stop the run.
        if timed:
            if not run.should_continue():
                break
        elif limit is not None and run.iterations >= limit:
            break
        plan: Plan | StopRun
        if run.pending is not None:
            plan, run.pending = run.pending, None
        else:
            request: ModelRequest | None = None  # None: the run's next request, as it is
            if hooks.before_model:
                rewritten = yield from _hooks.before_model(run, run.request(), sync)
                if not isinstance(rewritten, ModelRequest):
                    finish = yield from _ending(run, rewritten, sync)
                    break
                request = rewritten
            planned: Plan | None
            try:
                if not sync:
                    planned = yield _plan, _aplan, (run, request)
                elif plans_in_place:
                    planned = run.decide()
                else:
                    planned = _plan(run, request)
            except OutputParserException as exc:
                kept, answer = yield from _keep_error_step(run, exc, sync)
                if events:
                    yield Stepped(kept, False)
                if answer is not None:
                    finish = yield from _ending(run, answer, sync)
                continue
            if planned is None:  # out of time
                break
            plan = planned
            if hooks.after_model:
                after = yield from _hooks.after_model(run, planned, sync)
                if isinstance(after, Interrupt):
                    paused = Interrupted(after, after.plan or planned)  # type: ignore[arg-type]
                    break
                plan = after
        if not isinstance(plan, list):
            if isinstance(plan, StopRun):
                finish = yield from _ending(run, plan, sync)
            else:
                finish = plan
            break
        if timed and run.out_of_time():
            break
        if run.manager is not None:
            yield from _announce(run, plan, sync)
        if events:
            yield Planned(plan)
        if not sync:
            done = yield _run_tools, _arun_tools, (run, plan)
        elif tools_in_place and (len(plan) <= 1 or one_by_one):
            # Calls that nothing wraps or times and that would run one after another
            # anyway are made in place.
            done = run.act(plan)
        else:
            done = _run_tools(run, plan)
        if done is None:  # out of time
            break
        answer = None
        if hooks.after_step:
            done, answer = yield from _hooks.after_step(run, done, sync)
        finish = run.record(done)
        if events:
            yield Stepped(done, finish is not None)
        if finish is None and answer is not None:
            finish = yield from _ending(run, answer, sync)
    if paused is not None:
        yield paused
        yield Finished(None, run.pause(paused.actions, paused.interrupt))
        return
    if finish is None:
        finish = run.stop() if sync else (yield run.stop, run.astop, ())
    if hooks.after_agent:
        finish = yield from _hooks.after_agent(run, finish, sync)
    yield Finished(finish, run.outputs(finish))


def _announce(run: AgentRun, actions: list[AgentAction], sync: bool) -> Flow:
    """Tell the callbacks what the agent is about to do (``on_agent_action``, one place)."""
    if sync:
        run.announce(actions)
    else:
        yield run.announce, run.aannounce, (actions,)


def _keep_error_step(run: AgentRun, exc: OutputParserException, sync: bool) -> Flow:
    """The step an unparsable reply becomes, after the `after_step` hooks, kept."""
    step = run.parse_error_step(exc)
    if run.manager is not None:
        yield from _announce(run, [step.action], sync)
    kept, answer = [step], None
    if run.executor.hooks.after_step:
        kept, answer = yield from _hooks.after_step(run, kept, sync)
    run.record(kept)
    return kept, answer


# -- the effects that differ between sync and async ----------------------------------------


def _plan(run: AgentRun, request: ModelRequest | None) -> Plan | None:
    """The planning call, waited for until the deadline (``None``: the time ran out)."""
    deadline = run.deadline_at
    if deadline is None:
        return run.plan(request)
    in_time, planned = call_within(partial(run.plan, request), deadline)
    return planned if in_time else None


async def _aplan(run: AgentRun, request: ModelRequest | None) -> Plan | None:
    """The planning call, cancelled at the deadline (``None``: the time ran out)."""
    in_time, planned = await _limited(run.aplan(request), run.remaining())
    return planned if in_time else None


def _run_tools(run: AgentRun, plan: list[AgentAction]) -> list[AgentStep] | None:
    """The step's tool calls, waited for until the deadline (``None``: the time ran out)."""
    calls = [run.tool_call(request) for request in run.tool_requests(plan)]
    return run_calls(calls, run.executor.max_tool_concurrency, run.deadline_at)


async def _arun_tools(run: AgentRun, plan: list[AgentAction]) -> list[AgentStep] | None:
    """The step's tool calls as tasks, cancelled at the deadline (``None``: out of time)."""
    calls = [run.atool_call(request) for request in run.tool_requests(plan)]
    work = arun_calls(calls, run.executor.max_tool_concurrency)
    in_time, done = await _limited(work, run.remaining())
    return done if in_time else None


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


# -- the drivers ---------------------------------------------------------------------------


def _next(flow: Flow, sent: Any, error: BaseException | None = None) -> Any:
    """The flow's next event or effect after `sent` (or `error` thrown in)."""
    return flow.send(sent) if error is None else flow.throw(error)


async def _acalled(flow: Flow, effect: Effect) -> Any:
    """Await the effect's async call; the flow's next item after its result (or its error)."""
    try:
        result = await effect[1](*effect[2])
    except BaseException as exc:  # back to where the flow asked for the call
        return _next(flow, None, exc)
    return _next(flow, result)


def _stopped(manager: RunManager, run: AgentRun, exc: BaseException) -> Effect:
    """How the run's manager hears of `exc`: a consumer that stopped reading (the generator
    closed early) ends the run, anything else fails it."""
    if isinstance(exc, GeneratorExit):
        return manager.on_end, manager.aon_end, (dict(run.inputs),)
    return manager.on_error, manager.aon_error, (exc,)


def steps(run: AgentRun) -> Iterator[Event]:
    """The sync loop: the flow makes its calls itself, and only its events come out.

    With no callbacks the flow's own generator is the loop (nothing to tell at its end).
    """
    hooks = run.executor.hooks
    if hooks.any:
        hooks.check_sync()
    if not run.config.get("callbacks"):
        return _flow(run, None, sync=True)
    return _managed_steps(run)


def _managed_steps(run: AgentRun) -> Iterator[Event]:
    """`steps` under the executor's run manager, told of the run's end or failure."""
    # An "agent" run sends chain events; the run_type keyword tells handlers its kind from
    # the start (an OpenTelemetry handler names its span "invoke_agent ...").
    manager = start_run(run.config, "agent", run.executor.get_name(), run.inputs, run_type="agent")
    flow = _flow(run, manager, sync=True)
    try:
        event = next(flow)
        while type(event) is not Finished:
            yield event
            event = next(flow)
    except BaseException as exc:  # GeneratorExit too: closed early by its consumer
        flow.close()
        if manager:
            tell = _stopped(manager, run, exc)
            tell[0](*tell[2])
        raise
    # The run ends after its last event is out: a view streams the outputs first.
    try:
        yield event
    finally:
        if manager:
            if event.finish is not None:
                manager.emit("on_agent_finish", event.finish)
            manager.on_end({**run.inputs, **event.outputs})


async def asteps(run: AgentRun) -> AsyncIterator[Event]:
    """The async loop: each effect of the flow is awaited here, so the time limit cancels a
    planning call or the tool calls in flight."""
    manager = None
    if run.config.get("callbacks"):
        name = run.executor.get_name()
        manager = await astart_run(run.config, "agent", name, run.inputs, run_type="agent")
    flow = _flow(run, manager, sync=False)
    try:
        item = _next(flow, None)
        while not isinstance(item, Finished):
            if type(item) is tuple:
                item = await _acalled(flow, item)
            else:
                yield item
                item = _next(flow, None)
    except BaseException as exc:
        flow.close()
        if manager:
            tell = _stopped(manager, run, exc)
            await tell[1](*tell[2])
        raise
    try:
        yield item
    finally:
        if manager:
            if item.finish is not None:
                await manager.aemit("on_agent_finish", item.finish)
            await manager.aon_end({**run.inputs, **item.outputs})
