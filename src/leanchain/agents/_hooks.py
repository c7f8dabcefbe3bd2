"""Calling the middleware hooks of a run, and reading what they answer (DESIGN §3.1).

Each function runs one hook of every middleware that overrides it, in the executor's order,
and folds the answers: ``None`` goes on unchanged, a rewritten value goes on to the next
middleware, an ending answer (`AgentFinish`, `StopRun`, `Interrupt`) ends the fold. The loop
calls these only when the hook table says some middleware uses the hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leanchain.agents.middleware._base import Interrupt, ModelRequest, Plan, StopRun
from leanchain.agents.schema import AgentFinish, AgentStep

if TYPE_CHECKING:
    from leanchain.agents._run import AgentRun

__all__ = [
    "aafter_agent",
    "aafter_model",
    "aafter_step",
    "abefore_agent",
    "abefore_model",
    "after_agent",
    "after_model",
    "after_step",
    "before_agent",
    "before_model",
]

Ending = AgentFinish | StopRun


def _check(hook: str, answer: object, allowed: tuple[type, ...]) -> None:
    if answer is not None and not isinstance(answer, allowed):
        names = ", ".join(t.__name__ for t in allowed)
        raise TypeError(f"{hook} must return None or one of {names}; got {answer!r}")


def before_agent(run: AgentRun) -> Ending | None:
    """The run's `before_agent` hooks: the first ending answer, if any."""
    for m in run.executor.hooks.before_agent:
        answer = m.before_agent(run)
        _check("before_agent", answer, (AgentFinish, StopRun))
        if answer is not None:
            return answer
    return None


async def abefore_agent(run: AgentRun) -> Ending | None:
    """Async `before_agent`."""
    for m in run.executor.hooks.before_agent:
        answer = await m.abefore_agent(run)
        _check("before_agent", answer, (AgentFinish, StopRun))
        if answer is not None:
            return answer
    return None


def before_model(run: AgentRun, request: ModelRequest) -> ModelRequest | Ending:
    """The request after every `before_model` hook, or the first ending answer."""
    for m in run.executor.hooks.before_model:
        answer = m.before_model(run, request)
        _check("before_model", answer, (ModelRequest, AgentFinish, StopRun))
        if isinstance(answer, ModelRequest):
            request = answer
        elif answer is not None:
            return answer
    return request


async def abefore_model(run: AgentRun, request: ModelRequest) -> ModelRequest | Ending:
    """Async `before_model`."""
    for m in run.executor.hooks.before_model:
        answer = await m.abefore_model(run, request)
        _check("before_model", answer, (ModelRequest, AgentFinish, StopRun))
        if isinstance(answer, ModelRequest):
            request = answer
        elif answer is not None:
            return answer
    return request


def after_model(run: AgentRun, plan: Plan) -> Plan | StopRun | Interrupt:
    """The plan after every `after_model` hook, or the first stop or interrupt."""
    for m in run.executor.hooks.after_model:
        answer = m.after_model(run, plan)
        _check("after_model", answer, (AgentFinish, list, StopRun, Interrupt))
        if isinstance(answer, Interrupt):
            if isinstance(plan, list):
                answer.plan = plan  # what the earlier hooks made of it is what waits
            return answer
        if isinstance(answer, StopRun):
            return answer
        if answer is not None:
            plan = answer
    return plan


async def aafter_model(run: AgentRun, plan: Plan) -> Plan | StopRun | Interrupt:
    """Async `after_model`."""
    for m in run.executor.hooks.after_model:
        answer = await m.aafter_model(run, plan)
        _check("after_model", answer, (AgentFinish, list, StopRun, Interrupt))
        if isinstance(answer, Interrupt):
            if isinstance(plan, list):
                answer.plan = plan  # what the earlier hooks made of it is what waits
            return answer
        if isinstance(answer, StopRun):
            return answer
        if answer is not None:
            plan = answer
    return plan


def after_step(run: AgentRun, steps: list[AgentStep]) -> tuple[list[AgentStep], Ending | None]:
    """The steps after every `after_step` hook, and the first ending answer (if any)."""
    for m in run.executor.hooks.after_step:
        answer = m.after_step(run, steps)
        _check("after_step", answer, (list, AgentFinish, StopRun))
        if isinstance(answer, list):
            steps = answer
        elif answer is not None:
            return steps, answer
    return steps, None


async def aafter_step(
    run: AgentRun, steps: list[AgentStep]
) -> tuple[list[AgentStep], Ending | None]:
    """Async `after_step`."""
    for m in run.executor.hooks.after_step:
        answer = await m.aafter_step(run, steps)
        _check("after_step", answer, (list, AgentFinish, StopRun))
        if isinstance(answer, list):
            steps = answer
        elif answer is not None:
            return steps, answer
    return steps, None


def after_agent(run: AgentRun, finish: AgentFinish) -> AgentFinish:
    """The finish after every `after_agent` hook."""
    for m in run.executor.hooks.after_agent:
        answer = m.after_agent(run, finish)
        _check("after_agent", answer, (AgentFinish,))
        if answer is not None:
            finish = answer
    return finish


async def aafter_agent(run: AgentRun, finish: AgentFinish) -> AgentFinish:
    """Async `after_agent`."""
    for m in run.executor.hooks.after_agent:
        answer = await m.aafter_agent(run, finish)
        _check("after_agent", answer, (AgentFinish,))
        if answer is not None:
            finish = answer
    return finish
