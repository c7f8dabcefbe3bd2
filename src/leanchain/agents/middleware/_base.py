"""`AgentMiddleware`: the base class of everything that governs an agent run (DESIGN §3.1).

A middleware overrides the hooks it needs; the executor reads which ones once, when it is
built, and never calls the others. The hooks and what each may answer:

| hook | when | may answer |
|---|---|---|
| `before_agent` | once, before the first planning call | `AgentFinish`, `StopRun` |
| `before_model` | before each planning call | a new `ModelRequest`, `AgentFinish`, `StopRun` |
| `wrap_model_call` | around each planning call | the plan (calls ``handler`` 0..n times) |
| `after_model` | after each planning call | a new plan, `StopRun`, `Interrupt` |
| `wrap_tool_call` | around each tool call | the `AgentStep` (calls ``handler`` 0..n times) |
| `after_step` | after each iteration's tool calls | new steps, `AgentFinish`, `StopRun` |
| `after_agent` | once, with the run's finish | a new `AgentFinish` |

``None`` always means "go on unchanged". A hook may also raise: the run ends with that error.
Every hook has an async twin (``abefore_agent``, ``awrap_tool_call``, ...) that the async
loop calls; by default it runs the sync one.

A middleware keeps its settings on itself and what it remembers about one run in that run
(`AgentRun.state_for`), as plain data: one executor serves many runs at once, and a
checkpoint carries the state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from leanchain.agents.schema import AgentAction, AgentFinish, AgentStep

if TYPE_CHECKING:
    from leanchain.agents._run import AgentRun
    from leanchain.agents.executor import AgentExecutor
    from leanchain.tools import BaseTool

__all__ = [
    "AgentMiddleware",
    "Interrupt",
    "ModelRequest",
    "Plan",
    "StopRun",
    "ToolCallRequest",
]

Plan: TypeAlias = AgentFinish | list[AgentAction]
"""What one planning call decides: the final answer, or the tool calls to make."""


class ModelRequest:
    """One planning call of the agent: its input and the tools the model is shown.

    Attributes:
        inputs: the agent runnable's input: the run's inputs plus ``intermediate_steps``
            (already trimmed by ``trim_intermediate_steps``).
        tools: the tools the model is shown. A middleware that changes them (tool selection,
            a tool switched off) gets a factory-built agent rebuilt for that set; a call to a
            tool that was not shown still runs if the executor has it.
        final: ``True`` for the one final-answer call of an early stop with "generate"
            (its handler writes the answer; the plan is an `AgentFinish`).
    """

    __slots__ = ("final", "inputs", "tools")

    def __init__(
        self,
        inputs: dict[str, Any],
        tools: Sequence[BaseTool],
        *,
        final: bool = False,
    ) -> None:
        self.inputs = inputs
        self.tools = tuple(tools)
        self.final = final

    def replace(
        self,
        *,
        inputs: dict[str, Any] | None = None,
        tools: Sequence[BaseTool] | None = None,
    ) -> ModelRequest:
        """A copy with `inputs` and/or `tools` replaced."""
        return ModelRequest(
            self.inputs if inputs is None else inputs,
            self.tools if tools is None else tools,
            final=self.final,
        )

    def __repr__(self) -> str:
        names = [t.name for t in self.tools]
        steps = len(self.inputs.get("intermediate_steps") or ())
        return f"ModelRequest(steps={steps}, tools={names!r}, final={self.final})"


class ToolCallRequest:
    """One tool call the agent asked for.

    Attributes:
        action: the action (its ``tool`` and ``tool_input``; a `ToolAgentAction` has the
            provider's ``tool_call_id``).
        tool: the executor's tool of that name (``None``: there is none; the handler then
            answers with the invalid-tool observation).
        index: the call's position among the calls of its step (0-based).
        iteration: the iteration the call belongs to (1-based).
    """

    __slots__ = ("action", "index", "iteration", "tool")

    def __init__(
        self, action: AgentAction, tool: BaseTool | None, *, index: int, iteration: int
    ) -> None:
        self.action = action
        self.tool = tool
        self.index = index
        self.iteration = iteration

    def replace(self, *, action: AgentAction) -> ToolCallRequest:
        """A copy that runs `action` instead (same tool lookup rules: by its name)."""
        return ToolCallRequest(action, self.tool, index=self.index, iteration=self.iteration)

    def __repr__(self) -> str:
        return (
            f"ToolCallRequest(tool={self.action.tool!r}, input={self.action.tool_input!r}, "
            f"iteration={self.iteration}, index={self.index})"
        )


class StopRun:
    """A hook's answer that ends the run early, handing back the work so far.

    Args:
        reason: a short code for why, put in the output as ``"stopped_reason"``
            (``"loop_guard"``, ``"usage_limit"``, ...).
        message: the output text of a "force" stop (what the run answers).
        generate: make one more model call for a final answer instead (factory-built agents
            only; the middleware checks that when the executor is built).
    """

    __slots__ = ("generate", "message", "reason")

    def __init__(self, reason: str, message: str, *, generate: bool = False) -> None:
        self.reason = reason
        self.message = message
        self.generate = generate

    def __repr__(self) -> str:
        return f"StopRun({self.reason!r}, {self.message!r}, generate={self.generate})"


class Interrupt:
    """A hook's answer that pauses the run before the planned tool calls run.

    The run returns (not raises) a result that says it is interrupted; the planned calls
    are kept as the run's pending calls and the run can be resumed with them.

    Args:
        reason: why the run paused (``"approval"``, ...).
        data: plain data for the caller (the calls waiting for a decision, ...).
    """

    __slots__ = ("data", "plan", "reason")

    def __init__(self, reason: str, data: Any = None) -> None:
        self.reason = reason
        self.data = data
        self.plan: list[AgentAction] | None = None
        """The plan as the `after_model` hooks before this one left it (set by the loop)."""

    def __repr__(self) -> str:
        return f"Interrupt({self.reason!r}, {self.data!r})"


ModelHandler: TypeAlias = Callable[[ModelRequest], Plan]
AModelHandler: TypeAlias = Callable[[ModelRequest], Awaitable[Plan]]
ToolHandler: TypeAlias = Callable[[ToolCallRequest], AgentStep]
AToolHandler: TypeAlias = Callable[[ToolCallRequest], Awaitable[AgentStep]]


class AgentMiddleware:
    """The base class of agent middleware: every hook is optional (see the module's table).

    Override a hook to use it; one that is not overridden is never called and costs nothing.
    Hooks receive the `AgentRun` (inputs, steps so far, iteration, elapsed time, the run's
    middleware state, `AgentRun.emit` to tell the callbacks what a guard did).

    `wrap_tool_call` may run on a worker thread (the calls of one step run at once): it
    returns data and leaves the run's state alone; the other hooks run on the loop's thread
    and may change the state.
    """

    name: str | None = None
    """The key of this middleware's state in a run (default: its class name)."""

    def setup(self, executor: AgentExecutor) -> None:
        """Check that this middleware can work with `executor`, when it is built.

        Raises:
            AgentConfigurationError: it cannot (say why).
        """

    # -- the run --------------------------------------------------------------------------

    def before_agent(self, run: AgentRun) -> AgentFinish | StopRun | None:
        """Before the first planning call (a resumed run does not call it again)."""
        return None

    async def abefore_agent(self, run: AgentRun) -> AgentFinish | StopRun | None:
        """Async `before_agent`."""
        return self.before_agent(run)

    def after_agent(self, run: AgentRun, finish: AgentFinish) -> AgentFinish | None:
        """With the run's finish, before the outputs are made from it."""
        return None

    async def aafter_agent(self, run: AgentRun, finish: AgentFinish) -> AgentFinish | None:
        """Async `after_agent`."""
        return self.after_agent(run, finish)

    # -- planning -------------------------------------------------------------------------

    def before_model(
        self, run: AgentRun, request: ModelRequest
    ) -> ModelRequest | AgentFinish | StopRun | None:
        """Before each planning call: rewrite the request, or end the run instead."""
        return None

    async def abefore_model(
        self, run: AgentRun, request: ModelRequest
    ) -> ModelRequest | AgentFinish | StopRun | None:
        """Async `before_model`."""
        return self.before_model(run, request)

    def wrap_model_call(self, run: AgentRun, request: ModelRequest, handler: ModelHandler) -> Plan:
        """Around each planning call: ``handler(request)`` makes it (scratchpad, prompt,
        model, parser); call it once, several times, or not at all."""
        return handler(request)

    async def awrap_model_call(
        self, run: AgentRun, request: ModelRequest, handler: AModelHandler
    ) -> Plan:
        """Async `wrap_model_call`; by default the sync one, run on a worker thread."""
        loop = asyncio.get_running_loop()

        def sync_handler(req: ModelRequest) -> Plan:
            plan: Plan = asyncio.run_coroutine_threadsafe(_awaited(handler(req)), loop).result()
            return plan

        return await asyncio.to_thread(self.wrap_model_call, run, request, sync_handler)

    def after_model(self, run: AgentRun, plan: Plan) -> Plan | StopRun | Interrupt | None:
        """After each planning call: rewrite the plan, end the run, or pause before its
        tool calls."""
        return None

    async def aafter_model(self, run: AgentRun, plan: Plan) -> Plan | StopRun | Interrupt | None:
        """Async `after_model`."""
        return self.after_model(run, plan)

    # -- acting ---------------------------------------------------------------------------

    def wrap_tool_call(
        self, run: AgentRun, request: ToolCallRequest, handler: ToolHandler
    ) -> AgentStep:
        """Around each tool call: ``handler(request)`` runs the tool (and raises its errors;
        the executor's ``handle_tool_errors`` applies outside every wrapper)."""
        return handler(request)

    async def awrap_tool_call(
        self, run: AgentRun, request: ToolCallRequest, handler: AToolHandler
    ) -> AgentStep:
        """Async `wrap_tool_call`; by default the sync one, run on a worker thread."""
        loop = asyncio.get_running_loop()

        def sync_handler(req: ToolCallRequest) -> AgentStep:
            step: AgentStep = asyncio.run_coroutine_threadsafe(
                _awaited(handler(req)), loop
            ).result()
            return step

        return await asyncio.to_thread(self.wrap_tool_call, run, request, sync_handler)

    def after_step(
        self, run: AgentRun, steps: list[AgentStep]
    ) -> list[AgentStep] | AgentFinish | StopRun | None:
        """After each iteration's tool calls (and after an unparsable reply's error step),
        before the steps are kept: rewrite them (the observations the model will see), or
        end the run."""
        return None

    async def aafter_step(
        self, run: AgentRun, steps: list[AgentStep]
    ) -> list[AgentStep] | AgentFinish | StopRun | None:
        """Async `after_step`."""
        return self.after_step(run, steps)

    # -- resuming -------------------------------------------------------------------------

    def on_resume(self, run: AgentRun, decisions: Mapping[str, Any]) -> set[str]:
        """When a paused run is resumed (`AgentExecutor.resume`): take the decisions meant
        for this middleware into the run's state; return the call ids it took. A decision no
        middleware takes is refused (`ApprovalError`)."""
        return set()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


async def _awaited(work: Awaitable[Any]) -> Any:
    return await work


HOOKS = (
    "before_agent",
    "after_agent",
    "before_model",
    "wrap_model_call",
    "after_model",
    "wrap_tool_call",
    "after_step",
)
"""Every hook's sync name; the async twin is ``"a" + name``."""


def overrides(middleware: AgentMiddleware, hook: str) -> bool:
    """Whether `middleware`'s class overrides `hook` or its async twin."""
    cls = type(middleware)
    return any(
        getattr(cls, name) is not getattr(AgentMiddleware, name) for name in (hook, "a" + hook)
    )
