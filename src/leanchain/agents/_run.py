"""The state of one agent run, and every decision the loop takes on it.

`AgentRun` is shared by the sync and the async loop (`_loop`): planning, parse-error steps,
tool calls, return_direct, limits and the stopped response are decided here once.

An exception that ends a run propagates unchanged (same object, same type, so ``except``
clauses keep working), with a note (PEP 678, ``exc.__notes__``) that says where it happened:
the iteration, and the agent's model or the tool that failed.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from leanchain.agents._stopping import finish_from_reply, forced_finish, log_stop
from leanchain.agents.schema import AgentAction, AgentFinish, AgentStep, ToolAgentAction
from leanchain.callbacks.manager import RunManager, astart_run, start_run
from leanchain.errors import OutputParserException
from leanchain.language_models import BaseChatModel
from leanchain.runnables.base import Runnable
from leanchain.runnables.config import RunnableConfig, strip_run_keys

if TYPE_CHECKING:
    from leanchain.agents.executor import AgentExecutor

__all__ = ["INVALID_TOOL_NAME", "PARSE_ERROR_MESSAGE", "AgentRun"]

PARSE_ERROR_MESSAGE = (
    "An output parsing error occurred. In order to pass this error back to the agent and have "
    "it try again, pass `handle_parsing_errors=True` to the AgentExecutor. This is the error: "
)

INVALID_TOOL_NAME = "invalid_tool"
"""The tool run that reports a call to a tool that does not exist (LangChain's name)."""
_INVALID_TOOL_DESCRIPTION = "Called when tool name is invalid. Suggests valid tool names."

_NOTHING: Any = object()


def _add(total: Any, chunk: Any) -> Any:
    try:
        return total + chunk
    except TypeError:
        return chunk


def _as_plan(output: Any) -> AgentFinish | list[AgentAction]:
    if isinstance(output, AgentFinish):
        return output
    if isinstance(output, AgentAction):
        return [output]
    if isinstance(output, list) and all(isinstance(a, AgentAction) for a in output):
        return output
    raise TypeError(
        "The agent must return an AgentAction, a list of AgentActions or an AgentFinish, "
        f"got {type(output).__name__}: {output!r}"
    )


def _invalid_tool_start(ex: AgentExecutor, action: AgentAction) -> tuple[str, dict[str, Any]]:
    """The input text and start keywords of the tool run that answers an unknown tool name.

    LangChain answers it by running its ``invalid_tool`` tool, so handlers (and a console
    trace) see the observation as that tool's output; leanchain reports the same run.
    """
    inputs = {"requested_tool_name": action.tool, "available_tool_names": list(ex.tool_names)}
    call_id = action.tool_call_id if isinstance(action, ToolAgentAction) else None
    serialized = {"name": INVALID_TOOL_NAME, "description": _INVALID_TOOL_DESCRIPTION}
    return str(inputs), {"serialized": serialized, "inputs": inputs, "tool_call_id": call_id}


def _note(exc: BaseException, note: str) -> None:
    """Add `note` to `exc` once (one exception object may pass through here again)."""
    if note not in getattr(exc, "__notes__", ()):
        exc.add_note(note)


def _model_of(agent: Runnable[Any, Any]) -> str:
    """The agent's chat model (found through sequences and bindings), for error notes."""
    pending: list[Any] = [agent]
    for _ in range(100):
        if not pending:
            break
        node = pending.pop(0)
        if isinstance(node, BaseChatModel):
            return repr(node)
        children = getattr(node, "steps", None)
        if isinstance(children, tuple):
            pending.extend(children)
        bound = getattr(node, "bound", None)
        if bound is not None:
            pending.append(bound)
    return f"not found in {agent.get_name()!r}"


def _tool_failed(name: str, call_id: str | None, iteration: int) -> str:
    call = f" (tool call {call_id!r})" if call_id else ""
    return f"AgentExecutor iteration {iteration}: tool {name!r} failed{call}."


def _handled_observation(exc: Exception, handler: bool | str | Callable[..., Any]) -> Any:
    if isinstance(handler, bool):
        return str(exc)
    if isinstance(handler, str):
        return handler
    return handler(exc)


class AgentRun:
    """The state of one run and every decision of the loop; the generators only sequence it."""

    __slots__ = (
        "config",
        "ex",
        "inputs",
        "iterations",
        "run",
        "start",
        "steps",
    )

    def __init__(self, ex: AgentExecutor, inputs: dict[str, Any], config: RunnableConfig) -> None:
        self.ex = ex
        self.inputs = inputs
        self.config = config
        self.run: RunManager | None = None
        self.steps: list[tuple[AgentAction, Any]] = []
        self.iterations = 0
        self.start = time.monotonic()

    # -- start and end ----------------------------------------------------------------------

    def begin(self, run: RunManager | None) -> None:
        """Adopt the executor's run (or none) and start the clock."""
        self.run = run
        # The agent and the tools run as children of the executor's run with the caller's
        # whole config (leanchain: LangChain hands them the callbacks only).
        self.config = run.child_config(self.config) if run else strip_run_keys(self.config)
        self.start = time.monotonic()

    def outputs(self, finish: AgentFinish) -> dict[str, Any]:
        """The run's outputs for `finish` (the callbacks are told by the caller)."""
        outputs = dict(finish.return_values)
        if self.ex.return_intermediate_steps:
            outputs["intermediate_steps"] = self.steps
        return outputs

    # -- limits -----------------------------------------------------------------------------

    @property
    def time_elapsed(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.start

    def should_continue(self) -> bool:
        """Whether the iteration and time limits allow another iteration."""
        ex = self.ex
        if ex.max_iterations is not None and self.iterations >= ex.max_iterations:
            return False
        return ex.max_execution_time is None or self.time_elapsed < ex.max_execution_time

    def deadline(self) -> float | None:
        """The `time.monotonic` instant at which the time limit strikes."""
        limit = self.ex.max_execution_time
        return None if limit is None else self.start + limit

    def remaining(self) -> float | None:
        """Seconds left before the time limit strikes."""
        deadline = self.deadline()
        return None if deadline is None else deadline - time.monotonic()

    def _stopping(self) -> Runnable[Any, Any] | None:
        log_stop()
        return self.ex.final_answer_chain

    def stop(self) -> AgentFinish:
        """The stopped response, once a limit ended the run."""
        chain = self._stopping()
        if chain is None:
            return forced_finish()
        try:
            return finish_from_reply(chain.invoke(self._final_answer_input(), self.config))
        except Exception as exc:
            _note(exc, self._final_answer_failed())
            raise

    async def astop(self) -> AgentFinish:
        """Async `stop`."""
        chain = self._stopping()
        if chain is None:
            return forced_finish()
        try:
            reply = await chain.ainvoke(self._final_answer_input(), self.config)
        except Exception as exc:
            _note(exc, self._final_answer_failed())
            raise
        return finish_from_reply(reply)

    def _final_answer_failed(self) -> str:
        return (
            f"AgentExecutor: the agent failed while writing its final answer after "
            f"{self.iterations} iterations (early_stopping_method='generate'); its model: "
            f"{_model_of(self.ex.agent)}."
        )

    def _planning_failed(self, exc: Exception) -> None:
        if not isinstance(exc, OutputParserException):  # the loop turns those into steps
            _note(
                exc,
                f"AgentExecutor iteration {self.iterations + 1}: the agent failed while "
                f"planning the next step; its model: {_model_of(self.ex.agent)}.",
            )

    def _final_answer_input(self) -> dict[str, Any]:
        return {**self.inputs, "intermediate_steps": list(self.steps)}

    # -- planning ---------------------------------------------------------------------------

    def agent_input(self) -> dict[str, Any]:
        """What the agent sees: the inputs and the (trimmed) steps so far."""
        trim = self.ex.trim_intermediate_steps
        if isinstance(trim, int):
            seen = self.steps[-trim:] if trim > 0 else self.steps[:]
        else:
            seen = trim(self.steps[:])
        return {**self.inputs, "intermediate_steps": seen}

    def plan(self) -> AgentFinish | list[AgentAction]:
        """Ask the agent what to do next.

        The agent is streamed when someone listens, so that model tokens reach the callbacks
        while the model answers; with no handler the chunks would serve no one, and invoking
        gives the same decision for a fraction of the cost.
        """
        agent, config = self.ex.agent, self.config
        try:
            if not self.ex.stream_runnable or self.run is None:
                return _as_plan(agent.invoke(self.agent_input(), config))
            total: Any = _NOTHING
            for chunk in agent.stream(self.agent_input(), config):
                total = chunk if total is _NOTHING else _add(total, chunk)
            return _as_plan(None if total is _NOTHING else total)
        except Exception as exc:
            self._planning_failed(exc)
            raise

    async def aplan(self) -> AgentFinish | list[AgentAction]:
        """Async `plan`."""
        agent, config = self.ex.agent, self.config
        try:
            if not self.ex.stream_runnable or self.run is None:
                return _as_plan(await agent.ainvoke(self.agent_input(), config))
            total: Any = _NOTHING
            async for chunk in agent.astream(self.agent_input(), config):
                total = chunk if total is _NOTHING else _add(total, chunk)
            return _as_plan(None if total is _NOTHING else total)
        except Exception as exc:
            self._planning_failed(exc)
            raise

    def parse_error_step(self, exc: OutputParserException) -> AgentStep:
        """The "_Exception" step for an unparsable reply, or the error the caller must raise.

        Raises:
            ValueError: ``handle_parsing_errors`` is off (chained from `exc`).
        """
        handler = self.ex.handle_parsing_errors
        if handler is False:
            raise ValueError(PARSE_ERROR_MESSAGE + str(exc)) from exc
        text = str(exc)
        if handler is True:
            if exc.send_to_llm:
                observation: Any = str(exc.observation)
                text = str(exc.llm_output)
            else:
                observation = "Invalid or incomplete response"
        elif isinstance(handler, str):
            observation = handler
        else:
            observation = handler(exc)
        return AgentStep(AgentAction("_Exception", observation, text), observation)

    # -- acting -----------------------------------------------------------------------------

    def announce(self, actions: list[AgentAction]) -> None:
        """Tell the callbacks what the agent is about to do."""
        if self.run:
            for action in actions:
                self.run.emit("on_agent_action", action)

    async def aannounce(self, actions: list[AgentAction]) -> None:
        """Async `announce`."""
        if self.run:
            for action in actions:
                await self.run.aemit("on_agent_action", action)

    def tool_call(self, action: AgentAction) -> Callable[[], AgentStep]:
        """The call that runs `action`'s tool and returns its step."""
        ex, config = self.ex, self.config
        tool = ex.tools_by_name.get(action.tool)
        if tool is None:
            observation = ex.invalid_tool_observation(action.tool)
            if self.run is None:
                step = AgentStep(action, observation)
                return lambda: step

            def told() -> AgentStep:
                text, extra = _invalid_tool_start(ex, action)
                run = start_run(config, "tool", INVALID_TOOL_NAME, text, **extra)
                if run is not None:
                    run.on_end(observation)
                return AgentStep(action, observation)

            return told
        handler = ex.handle_tool_errors
        call_id = getattr(action, "tool_call_id", None)
        iteration = self.iterations + 1

        def call() -> AgentStep:
            try:
                observation = tool.run(
                    action.tool_input, config=config, tool_call_id=call_id, as_message=False
                )
            except Exception as exc:
                if handler is False:
                    _note(exc, _tool_failed(action.tool, call_id, iteration))
                    raise
                observation = _handled_observation(exc, handler)
            return AgentStep(action, observation)

        return call

    def atool_call(self, action: AgentAction) -> Callable[[], Awaitable[AgentStep]]:
        """Async `tool_call`."""
        ex, config = self.ex, self.config
        tool = ex.tools_by_name.get(action.tool)
        handler = ex.handle_tool_errors
        call_id = getattr(action, "tool_call_id", None)
        iteration = self.iterations + 1

        async def call() -> AgentStep:
            if tool is None:
                observation = ex.invalid_tool_observation(action.tool)
                if self.run is not None:
                    text, extra = _invalid_tool_start(ex, action)
                    run = await astart_run(config, "tool", INVALID_TOOL_NAME, text, **extra)
                    if run is not None:
                        await run.aon_end(observation)
                return AgentStep(action, observation)
            try:
                observation = await tool.arun(
                    action.tool_input, config=config, tool_call_id=call_id, as_message=False
                )
            except Exception as exc:
                if handler is False:
                    _note(exc, _tool_failed(action.tool, call_id, iteration))
                    raise
                observation = _handled_observation(exc, handler)
            return AgentStep(action, observation)

        return call

    def record(self, steps: list[AgentStep]) -> AgentFinish | None:
        """Keep the iteration's steps; the finish when one of them is a return_direct tool's."""
        self.iterations += 1
        self.steps.extend((step.action, step.observation) for step in steps)
        tools = self.ex.tools_by_name
        for step in steps:
            tool = tools.get(step.action.tool)
            if tool is not None and tool.return_direct and step.action.tool != "_Exception":
                return AgentFinish({"output": step.observation}, "")
        return None
