"""Calling the middleware hooks of a run, and reading what they answer (DESIGN §3.1).

Each function runs one hook of every middleware that overrides it, in the executor's order,
and folds the answers: ``None`` goes on unchanged, a rewritten value goes on to the next
middleware, an ending answer (`AgentFinish`, `StopRun`, `Interrupt`) ends the fold. The loop
calls these only when the hook table says some middleware uses the hook.

They are steps of the loop's flow (`_loop`), written once for both loops: with `sync` they
call each hook in place; otherwise they yield it as an `Effect` (the hook, its async twin,
the arguments) for the async loop to await.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Any, TypeAlias

from leanchain.agents.middleware._base import Interrupt, ModelRequest, Plan, StopRun
from leanchain.agents.schema import AgentFinish, AgentStep

if TYPE_CHECKING:
    from leanchain.agents._run import AgentRun

__all__ = [
    "Effect",
    "Flow",
    "after_agent",
    "after_model",
    "after_step",
    "before_agent",
    "before_model",
]

Effect: TypeAlias = tuple[Callable[..., Any], Callable[..., Awaitable[Any]], tuple[Any, ...]]
"""A call the flow asks its driver to make: the sync function, its async twin, the arguments.
The driver sends back the result (or throws the exception in)."""
Flow: TypeAlias = Generator[Any, Any, Any]
"""A step of the loop written once: it yields effects (and the loop's events) to a driver."""


def _check(hook: str, answer: object, allowed: tuple[type, ...]) -> None:
    """Raise `TypeError` unless `answer` is ``None`` or one of `allowed`."""
    if answer is not None and not isinstance(answer, allowed):
        names = ", ".join(t.__name__ for t in allowed)
        raise TypeError(f"{hook} must return None or one of {names}; got {answer!r}")


def before_agent(run: AgentRun, sync: bool) -> Flow:
    """The run's `before_agent` hooks: the first ending answer, if any."""
    for m in run.executor.hooks.before_agent:
        answer = m.before_agent(run) if sync else (yield m.before_agent, m.abefore_agent, (run,))
        _check("before_agent", answer, (AgentFinish, StopRun))
        if answer is not None:
            return answer
    return None


def before_model(run: AgentRun, request: ModelRequest, sync: bool) -> Flow:
    """The request after every `before_model` hook, or the first ending answer."""
    for m in run.executor.hooks.before_model:
        if sync:
            answer = m.before_model(run, request)
        else:
            answer = yield m.before_model, m.abefore_model, (run, request)
        _check("before_model", answer, (ModelRequest, AgentFinish, StopRun))
        if isinstance(answer, ModelRequest):
            request = answer
        elif answer is not None:
            return answer
    return request


def after_model(run: AgentRun, plan: Plan, sync: bool) -> Flow:
    """The plan after every `after_model` hook, or the first stop or interrupt."""
    for m in run.executor.hooks.after_model:
        if sync:
            answer = m.after_model(run, plan)
        else:
            answer = yield m.after_model, m.aafter_model, (run, plan)
        _check("after_model", answer, (AgentFinish, list, StopRun, Interrupt))
        if isinstance(answer, Interrupt) and isinstance(plan, list):
            answer.plan = plan  # what the earlier hooks made of it is what waits
        if isinstance(answer, Interrupt | StopRun):
            return answer
        if answer is not None:
            plan = answer
    return plan


def after_step(run: AgentRun, steps: list[AgentStep], sync: bool) -> Flow:
    """The steps after every `after_step` hook, and the first ending answer (if any)."""
    for m in run.executor.hooks.after_step:
        if sync:
            answer = m.after_step(run, steps)
        else:
            answer = yield m.after_step, m.aafter_step, (run, steps)
        _check("after_step", answer, (list, AgentFinish, StopRun))
        if isinstance(answer, list):
            steps = answer
        elif answer is not None:
            return steps, answer
    return steps, None


def after_agent(run: AgentRun, finish: AgentFinish, sync: bool) -> Flow:
    """The finish after every `after_agent` hook."""
    for m in run.executor.hooks.after_agent:
        if sync:
            answer = m.after_agent(run, finish)
        else:
            answer = yield m.after_agent, m.aafter_agent, (run, finish)
        _check("after_agent", answer, (AgentFinish,))
        if answer is not None:
            finish = answer
    return finish
