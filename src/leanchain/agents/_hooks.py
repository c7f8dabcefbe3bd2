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


Reading: TypeAlias = tuple[Any, Any]
"""What one answer makes of the folded value: ``(value, None)`` to go on with `value`, or
``(value, ending)`` to end the fold with `ending`."""


def _fold(
    run: AgentRun,
    hook: str,
    value: Any,
    sync: bool,
    allowed: tuple[type, ...],
    read: Callable[[Any, Any], Reading],
) -> Flow:
    """Call every middleware's `hook` with ``(run, value)`` in turn: ``(value, ending)`` at the
    end, where `read` says what each answer (``None`` or one of `allowed`) makes of them.

    Raises:
        TypeError: an answer is neither ``None`` nor one of `allowed`.
    """
    for m in getattr(run.executor.hooks, hook):
        if sync:
            answer = getattr(m, hook)(run, value)
        else:
            answer = yield getattr(m, hook), getattr(m, f"a{hook}"), (run, value)
        if answer is not None and not isinstance(answer, allowed):
            names = ", ".join(t.__name__ for t in allowed)
            raise TypeError(f"{hook} must return None or one of {names}; got {answer!r}")
        value, ending = read(answer, value)
        if ending is not None:
            return value, ending
    return value, None


def before_agent(run: AgentRun, sync: bool) -> Flow:
    """The run's `before_agent` hooks: the first ending answer, if any."""
    for m in run.executor.hooks.before_agent:
        answer = m.before_agent(run) if sync else (yield m.before_agent, m.abefore_agent, (run,))
        if answer is not None and not isinstance(answer, AgentFinish | StopRun):
            raise TypeError(
                f"before_agent must return None or one of AgentFinish, StopRun; got {answer!r}"
            )
        if answer is not None:
            return answer
    return None


def _new_request(answer: Any, request: ModelRequest) -> Reading:
    """A rewritten request goes on; an `AgentFinish` or `StopRun` ends the run."""
    if answer is None:
        return request, None
    if isinstance(answer, ModelRequest):
        return answer, None
    return request, answer


def before_model(run: AgentRun, request: ModelRequest, sync: bool) -> Flow:
    """The request after every `before_model` hook, or the first ending answer."""
    allowed = (ModelRequest, AgentFinish, StopRun)
    request, ending = yield from _fold(run, "before_model", request, sync, allowed, _new_request)
    return request if ending is None else ending


def _new_plan(answer: Any, plan: Plan) -> Reading:
    """A rewritten plan goes on; a `StopRun` or `Interrupt` ends the fold (an interrupt keeps
    what the earlier hooks made of the plan as the calls that wait)."""
    if isinstance(answer, Interrupt):
        if isinstance(plan, list):
            answer.plan = plan
        return plan, answer
    if isinstance(answer, StopRun):
        return plan, answer
    return (plan if answer is None else answer), None


def after_model(run: AgentRun, plan: Plan, sync: bool) -> Flow:
    """The plan after every `after_model` hook, or the first stop or interrupt."""
    allowed = (AgentFinish, list, StopRun, Interrupt)
    plan, ending = yield from _fold(run, "after_model", plan, sync, allowed, _new_plan)
    return plan if ending is None else ending


def _new_steps(answer: Any, steps: list[AgentStep]) -> Reading:
    """Rewritten steps go on; an `AgentFinish` or `StopRun` ends the run after this step."""
    if isinstance(answer, list):
        return answer, None
    return steps, answer


def after_step(run: AgentRun, steps: list[AgentStep], sync: bool) -> Flow:
    """The steps after every `after_step` hook, and the first ending answer (if any)."""
    allowed = (list, AgentFinish, StopRun)
    return (yield from _fold(run, "after_step", steps, sync, allowed, _new_steps))


def _new_finish(answer: Any, finish: AgentFinish) -> Reading:
    return (finish if answer is None else answer), None


def after_agent(run: AgentRun, finish: AgentFinish, sync: bool) -> Flow:
    """The finish after every `after_agent` hook."""
    finish, _ = yield from _fold(run, "after_agent", finish, sync, (AgentFinish,), _new_finish)
    return finish
