"""Calling the middleware hooks of a run, and reading what they answer (DESIGN §3.1).

Each function runs one hook of every middleware that overrides it, in the executor's order,
and folds the answers: ``None`` goes on unchanged, a rewritten value goes on to the next
middleware, an ending answer (`AgentFinish`, `StopRun`, `Interrupt`) ends the fold. The loop
calls these only when the hook table says some middleware uses the hook.

They are steps of the loop's flow (`_loop`): each hook call is yielded as an `Effect` (the
hook and its async twin, with the arguments), which the sync driver calls and the async
driver awaits, so each fold is written once for both.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Any, TypeAlias

from leanchain.agents.middleware._base import Interrupt, ModelRequest, Plan, StopRun
from leanchain.agents.schema import AgentFinish, AgentStep

if TYPE_CHECKING:
    from leanchain.agents._run import AgentRun
    from leanchain.agents.middleware._base import AgentMiddleware

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


def _ask(m: AgentMiddleware, hook: str, allowed: tuple[type, ...], *args: Any) -> Flow:
    """One middleware's `hook` (sync or async, as the driver runs), its answer checked.

    Raises:
        TypeError: the answer is neither ``None`` nor one of `allowed`.
    """
    answer = yield getattr(m, hook), getattr(m, f"a{hook}"), args
    if answer is not None and not isinstance(answer, allowed):
        names = ", ".join(t.__name__ for t in allowed)
        raise TypeError(f"{hook} must return None or one of {names}; got {answer!r}")
    return answer


def before_agent(run: AgentRun) -> Flow:
    """The run's `before_agent` hooks: the first ending answer, if any."""
    for m in run.executor.hooks.before_agent:
        answer = yield from _ask(m, "before_agent", (AgentFinish, StopRun), run)
        if answer is not None:
            return answer
    return None


def before_model(run: AgentRun, request: ModelRequest) -> Flow:
    """The request after every `before_model` hook, or the first ending answer."""
    allowed = (ModelRequest, AgentFinish, StopRun)
    for m in run.executor.hooks.before_model:
        answer = yield from _ask(m, "before_model", allowed, run, request)
        if isinstance(answer, ModelRequest):
            request = answer
        elif answer is not None:
            return answer
    return request


def after_model(run: AgentRun, plan: Plan) -> Flow:
    """The plan after every `after_model` hook, or the first stop or interrupt."""
    allowed = (AgentFinish, list, StopRun, Interrupt)
    for m in run.executor.hooks.after_model:
        answer = yield from _ask(m, "after_model", allowed, run, plan)
        if isinstance(answer, Interrupt) and isinstance(plan, list):
            answer.plan = plan  # what the earlier hooks made of it is what waits
        if isinstance(answer, Interrupt | StopRun):
            return answer
        if answer is not None:
            plan = answer
    return plan


def after_step(run: AgentRun, steps: list[AgentStep]) -> Flow:
    """The steps after every `after_step` hook, and the first ending answer (if any)."""
    for m in run.executor.hooks.after_step:
        answer = yield from _ask(m, "after_step", (list, AgentFinish, StopRun), run, steps)
        if isinstance(answer, list):
            steps = answer
        elif answer is not None:
            return steps, answer
    return steps, None


def after_agent(run: AgentRun, finish: AgentFinish) -> Flow:
    """The finish after every `after_agent` hook."""
    for m in run.executor.hooks.after_agent:
        answer = yield from _ask(m, "after_agent", (AgentFinish,), run, finish)
        if answer is not None:
            finish = answer
    return finish
