"""The state of one agent run, and every decision the loop takes on it.

`AgentRun` is shared by the sync and the async loop (`_loop`): return_direct, limits and the
stopped response are decided here once; the planning calls in its base `_planning.Planning`,
the steps (tool calls, parse-error steps) and their errors in its base `_acting.Acting`. It
is also what middleware hooks receive (`leanchain.agents.middleware`).

What a run *is* (inputs, steps, iteration, elapsed time, middleware state, pending calls) is
plain data, kept apart from what runs it (the executor, the config, the callback manager, the
clock), which is rebuilt on resume.

An exception that ends a run propagates unchanged (same object, same type, so ``except``
clauses keep working), with a note (PEP 678, ``exc.__notes__``) that says where it happened:
the iteration, and the agent's model or the tool that failed.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from leanchain.agents._acting import INVALID_TOOL_NAME, PARSE_ERROR_MESSAGE, Acting
from leanchain.agents._planning import Planning
from leanchain.agents._stopping import forced_finish, log_stop
from leanchain.agents.middleware._base import (
    Interrupt,
    ModelRequest,
    Plan,
    StopRun,
    ToolCallRequest,
)
from leanchain.agents.schema import AgentAction, AgentFinish, AgentStep
from leanchain.callbacks import adispatch_custom_event, dispatch_custom_event
from leanchain.callbacks.manager import RunManager
from leanchain.runnables.config import RunnableConfig, strip_run_keys

if TYPE_CHECKING:
    from leanchain.agents.executor import AgentExecutor
    from leanchain.agents.middleware._base import AgentMiddleware

__all__ = ["INVALID_TOOL_NAME", "PARSE_ERROR_MESSAGE", "AgentRun"]


Request = TypeVar("Request")
Out = TypeVar("Out")


class AgentRun(Planning, Acting):
    """One run: its data, and every decision of the loop; the generators only sequence it.

    Attributes (what middleware hooks read):
        executor: the `AgentExecutor` running it.
        inputs: the run's inputs.
        config: the config the agent and the tools run with.
        steps: the ``(action, observation)`` pairs so far, in order.
        iterations: the iterations done so far.
        state: each middleware's state for this run, by key (plain data; `state_for`).
        output_extras: keys added to the run's outputs (``"stopped_reason"``, ...).
        pending: the planned calls of a paused run, run first when it resumes.
        checkpoint: the run's id and where it is saved (`leanchain.agents._resume.Durability`),
            or ``None`` when it is neither saved nor can pause.
        deadline_at: the `time.monotonic` instant at which the time limit strikes (fixed
            when the run begins; ``None`` without a time limit).
    """

    __slots__ = (
        "_amodel_handler",
        "_atool_handler",
        "_model_handler",
        "_tool_handler",
        "checkpoint",
        "config",
        "deadline_at",
        "elapsed_before",
        "executor",
        "inputs",
        "interrupt",
        "iterations",
        "manager",
        "output_extras",
        "pending",
        "plans_in_place",
        "quiet",
        "resumed",
        "scratchpad_memo",
        "start",
        "state",
        "steps",
        "tools_direct",
        "tools_in_place",
        "warn_on_stop",
    )

    def __init__(
        self,
        executor: AgentExecutor,
        inputs: dict[str, Any],
        config: RunnableConfig,
        *,
        warn_on_stop: bool = False,
    ) -> None:
        self.executor = executor
        self.inputs = inputs
        self.config = config
        self.manager: RunManager | None = None
        self.steps: list[tuple[AgentAction, Any]] = []
        self.iterations = 0
        self.start = time.monotonic()
        self.elapsed_before = 0.0
        self.state: dict[str, Any] = {}
        self.output_extras: dict[str, Any] = {}
        self.pending: list[AgentAction] | None = None
        self.interrupt: Interrupt | None = None
        self.resumed = False
        self.checkpoint: Any = None
        self.warn_on_stop = warn_on_stop
        self.scratchpad_memo: dict[Any, Any] = {}
        self.deadline_at: float | None = None
        self.quiet = False
        self.tools_in_place = False
        self.tools_direct = False
        self.plans_in_place = False
        # The middleware's wrappers around the calls (the outermost); ``None`` where none
        # wraps them, and the calls are made directly (`_plan_call`, `_run_tool`).
        self._model_handler: Callable[[ModelRequest], Plan] | None = None
        self._amodel_handler: Callable[[ModelRequest], Awaitable[Plan]] | None = None
        self._tool_handler: Callable[[ToolCallRequest], AgentStep] | None = None
        self._atool_handler: Callable[[ToolCallRequest], Awaitable[AgentStep]] | None = None
        if executor.hooks.any:
            self._wrap_calls()

    def _wrap_calls(self) -> None:
        """Wrap the calls in the middleware's ``wrap_*_call`` hooks, where some override them."""
        hooks = self.executor.hooks
        if hooks.wrap_model_call:
            self._model_handler, self._amodel_handler = self._plan_call, self._aplan_call
            for m in reversed(hooks.wrap_model_call):
                self._model_handler = _wrapped(m.wrap_model_call, self, self._model_handler)
                self._amodel_handler = _wrapped(m.awrap_model_call, self, self._amodel_handler)
        if hooks.wrap_tool_call:
            self._tool_handler, self._atool_handler = self._run_tool, self._arun_tool
            for m in reversed(hooks.wrap_tool_call):
                self._tool_handler = _wrapped(m.wrap_tool_call, self, self._tool_handler)
                self._atool_handler = _wrapped(m.awrap_tool_call, self, self._atool_handler)

    # -- start and end ----------------------------------------------------------------------

    def begin(self, manager: RunManager | None) -> None:
        """Adopt the executor's run (or none) and start the clock."""
        self.manager = manager
        # The agent and the tools run as children of the executor's run with the caller's
        # whole config (leanchain: LangChain hands them the callbacks only).
        self.config = manager.child_config(self.config) if manager else strip_run_keys(self.config)
        self.start = start = time.monotonic()
        executor = self.executor
        limit = executor.max_execution_time
        self.deadline_at = None if limit is None else start + limit - self.elapsed_before
        # With no time limit and no tool wrapper, a step's calls are made in place (`act`);
        # with no model wrapper or request rewriter either, and no one to stream the model's
        # tokens to, the planning call is the agent's invoke, made in place (`decide`).
        hooks, untimed = executor.hooks, limit is None
        self.tools_in_place = tools = untimed and not hooks.wrap_tool_call
        # In place, unheard, and the whole run inside one `invoke` (`quiet`: the context its
        # config was resolved in holds throughout), a tool's run needs no resolving again.
        self.tools_direct = tools and manager is None and self.quiet
        self.plans_in_place = (
            untimed
            and not hooks.wrap_model_call
            and not hooks.before_model
            and (manager is None or not executor.stream_runnable)
        )

    def outputs(self, finish: AgentFinish) -> dict[str, Any]:
        """The run's outputs for `finish` (the callbacks are told by the caller)."""
        outputs = dict(finish.return_values)
        if self.executor.return_intermediate_steps:
            outputs["intermediate_steps"] = self.steps
        if self.output_extras:
            outputs.update(self.output_extras)
        return outputs

    def state_for(self, middleware: AgentMiddleware) -> dict[str, Any]:
        """`middleware`'s state in this run: a dict of plain data, made on first use."""
        key = self.executor.hooks.keys[id(middleware)]
        state: dict[str, Any] | None = self.state.get(key)
        if state is None:
            state = self.state[key] = {}
        return state

    def emit(self, name: str, data: dict[str, Any]) -> None:
        """Tell the callbacks what a middleware did: an ``on_custom_event`` of the agent's run
        (an event in `stream_events`, a span event in OpenTelemetry). Costs nothing unheard."""
        if self.manager is not None:
            dispatch_custom_event(name, data, config=self.config)

    async def aemit(self, name: str, data: dict[str, Any]) -> None:
        """Async `emit`."""
        if self.manager is not None:
            await adispatch_custom_event(name, data, config=self.config)

    # -- limits -----------------------------------------------------------------------------

    @property
    def time_elapsed(self) -> float:
        """Seconds the run has been running (time spent paused does not count)."""
        return self.elapsed_before + time.monotonic() - self.start

    def should_continue(self) -> bool:
        """Whether the iteration and time limits allow another iteration."""
        limit = self.executor.max_iterations
        if limit is not None and self.iterations >= limit:
            return False
        # No deadline: no time limit (`begin` fixed it).
        return self.deadline_at is None or self.time_elapsed < self.executor.max_execution_time

    def remaining(self) -> float | None:
        """Seconds left before the time limit strikes."""
        deadline = self.deadline_at
        return None if deadline is None else deadline - time.monotonic()

    def out_of_time(self) -> bool:
        """Whether the time limit has struck (no tool call may start then)."""
        deadline = self.deadline_at
        return deadline is not None and time.monotonic() >= deadline

    def _stop_warning(self) -> None:
        if self.warn_on_stop:
            log_stop()

    def stop(self) -> AgentFinish:
        """The stopped response, once a limit ended the run."""
        self._stop_warning()
        if self.executor.final_answer_chain is None:
            return forced_finish()
        return self.final_answer()

    async def astop(self) -> AgentFinish:
        """Async `stop`."""
        self._stop_warning()
        if self.executor.final_answer_chain is None:
            return forced_finish()
        return await self.afinal_answer()

    def stop_with(self, stop: StopRun) -> AgentFinish:
        """The finish of a run a middleware stopped: its message, or a generated answer."""
        self.output_extras["stopped_reason"] = stop.reason
        if stop.generate:
            return self.final_answer()
        return AgentFinish({"output": stop.message}, "")

    async def astop_with(self, stop: StopRun) -> AgentFinish:
        """Async `stop_with`."""
        self.output_extras["stopped_reason"] = stop.reason
        if stop.generate:
            return await self.afinal_answer()
        return AgentFinish({"output": stop.message}, "")

    def record(self, steps: list[AgentStep]) -> AgentFinish | None:
        """Keep the iteration's steps; the finish when one of them is a return_direct tool's."""
        self.iterations += 1
        kept, tools, finish = self.steps, self.executor.tools_by_name, None
        for step in steps:
            action = step.action
            kept.append((action, step.observation))
            tool = tools.get(action.tool)
            direct = tool is not None and tool.return_direct and action.tool != "_Exception"
            if direct and finish is None:  # the first return_direct step's result
                finish = AgentFinish({"output": step.observation}, "")
        return finish

    def pause(self, plan: list[AgentAction], interrupt: Interrupt) -> dict[str, Any]:
        """Keep `plan` as the pending calls and stop the clock; the paused run's outputs."""
        self.pending = plan
        self.interrupt = interrupt
        self.elapsed_before = self.time_elapsed
        outputs: dict[str, Any] = {
            "output": None,
            "interrupted": True,
            "interrupt": {"reason": interrupt.reason, "data": interrupt.data},
        }
        if self.executor.return_intermediate_steps:
            outputs["intermediate_steps"] = self.steps
        return outputs


def _wrapped(
    hook: Callable[[AgentRun, Request, Callable[[Request], Out]], Out],
    run: AgentRun,
    inner: Callable[[Request], Out],
) -> Callable[[Request], Out]:
    """`inner` wrapped in a middleware's ``wrap_*_call`` hook (for an async hook, `Out` is
    the awaitable it returns, so the one wrapper serves both)."""

    def handler(request: Request) -> Out:
        return hook(run, request, inner)

    return handler
