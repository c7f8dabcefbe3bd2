"""The acting half of an agent run: the steps of an iteration, made of the planned tool calls
(in place, or as calls the middleware wraps) or of an unparsable reply, and their errors.

`Acting` is a base of `AgentRun` (`_run`), which holds the data it works on; it is apart
only so that each module stays one idea: `_run` plans and limits, this module acts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from leanchain.agents.middleware._base import ToolCallRequest
from leanchain.agents.schema import (
    AgentAction,
    AgentStep,
    ToolAgentAction,
    agent_step,
)
from leanchain.callbacks.manager import RunManager, astart_run, start_run
from leanchain.errors import OutputParserException
from leanchain.runnables.config import RunnableConfig
from leanchain.tools import BaseTool

if TYPE_CHECKING:
    from leanchain.agents.executor import AgentExecutor

__all__ = ["INVALID_TOOL_NAME", "PARSE_ERROR_MESSAGE", "Acting", "note"]

PARSE_ERROR_MESSAGE = (
    "An output parsing error occurred. In order to pass this error back to the agent and have "
    "it try again, pass `handle_parsing_errors=True` to the AgentExecutor. This is the error: "
)

INVALID_TOOL_NAME = "invalid_tool"
"""The tool run that reports a call to a tool that does not exist (LangChain's name)."""
_INVALID_TOOL_DESCRIPTION = "Called when tool name is invalid. Suggests valid tool names."
_RUN = BaseTool.run  # a tool whose class keeps it may be run at its `_execute` (`act`)


def _invalid_tool_start(ex: AgentExecutor, action: AgentAction) -> tuple[str, dict[str, Any]]:
    """The input text and start keywords of the tool run that answers an unknown tool name.

    LangChain answers it by running its ``invalid_tool`` tool, so handlers (and a console
    trace) see the observation as that tool's output; leanchain reports the same run.
    """
    inputs = {"requested_tool_name": action.tool, "available_tool_names": list(ex.tool_names)}
    call_id = action.tool_call_id if isinstance(action, ToolAgentAction) else None
    serialized = {"name": INVALID_TOOL_NAME, "description": _INVALID_TOOL_DESCRIPTION}
    return str(inputs), {"serialized": serialized, "inputs": inputs, "tool_call_id": call_id}


def note(exc: BaseException, text: str) -> None:
    """Add `text` to `exc` once (one exception object may pass through here again)."""
    if text not in getattr(exc, "__notes__", ()):
        exc.add_note(text)


def _tool_failed(name: str, call_id: str | None, iteration: int) -> str:
    call = f" (tool call {call_id!r})" if call_id else ""
    return f"AgentExecutor iteration {iteration}: tool {name!r} failed{call}."


def _handled_observation(exc: Exception, handler: bool | str | Callable[..., Any]) -> Any:
    if isinstance(handler, bool):
        return str(exc)
    if isinstance(handler, str):
        return handler
    return handler(exc)


class Acting:
    """`AgentRun`'s tool calls and steps (see the module docstring); no state of its own."""

    __slots__ = ()

    # What `AgentRun` holds and these methods read (its slots; see its docstring).
    executor: AgentExecutor
    config: RunnableConfig
    manager: RunManager | None
    tools_direct: bool
    steps: list[tuple[AgentAction, Any]]
    iterations: int
    _tool_handler: Callable[[ToolCallRequest], AgentStep] | None
    _atool_handler: Callable[[ToolCallRequest], Awaitable[AgentStep]] | None

    def parse_error_step(self, exc: OutputParserException) -> AgentStep:
        """The "_Exception" step for an unparsable reply, or the error the caller must raise.

        Raises:
            OutputParserException: ``handle_parsing_errors`` is off (LangChain's message,
                chained from `exc`; a `ValueError`, as LangChain's is).
        """
        handler = self.executor.handle_parsing_errors
        if handler is False:
            raise OutputParserException(PARSE_ERROR_MESSAGE + str(exc)) from exc
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

    def announce(self, actions: list[AgentAction]) -> None:
        """Tell the callbacks what the agent is about to do."""
        if self.manager:
            for action in actions:
                self.manager.emit("on_agent_action", action)

    async def aannounce(self, actions: list[AgentAction]) -> None:
        """Async `announce`."""
        if self.manager:
            for action in actions:
                await self.manager.aemit("on_agent_action", action)

    def tool_requests(self, actions: list[AgentAction]) -> list[ToolCallRequest]:
        """The step's tool calls, each with its tool looked up."""
        tools, iteration = self.executor.tools_by_name, self.iterations + 1
        return [
            ToolCallRequest(action, tools.get(action.tool), index=i, iteration=iteration)
            for i, action in enumerate(actions)
        ]

    def act(self, actions: list[AgentAction]) -> list[AgentStep]:
        """Run the step's tools in place, one after another: what the calls of `tool_call`
        do for their requests when no middleware wraps them (each a step, or its error
        handled or raised with a note)."""
        tools, steps = self.executor.tools_by_name, []
        for action in actions:
            try:
                step = self._run_action(action, tools.get(action.tool))
            except Exception as exc:
                step = self._tool_error(action, self.iterations + 1, exc)
            steps.append(step)
        return steps

    def tool_call(self, request: ToolCallRequest) -> Callable[[], AgentStep]:
        """The call that runs `request` (through the middleware) and returns its step."""
        handler = self._tool_handler or self._run_tool

        def call() -> AgentStep:
            try:
                return handler(request)
            except Exception as exc:
                return self._tool_error(request.action, request.iteration, exc)

        return call

    def atool_call(self, request: ToolCallRequest) -> Callable[[], Awaitable[AgentStep]]:
        """Async `tool_call`."""
        handler = self._atool_handler or self._arun_tool

        async def call() -> AgentStep:
            try:
                return await handler(request)
            except Exception as exc:
                return self._tool_error(request.action, request.iteration, exc)

        return call

    def _tool_error(self, action: AgentAction, iteration: int, exc: Exception) -> AgentStep:
        """A tool's exception as the step's observation, or raised with a note."""
        handler = self.executor.handle_tool_errors
        if handler is False:
            call_id = getattr(action, "tool_call_id", None)
            note(exc, _tool_failed(action.tool, call_id, iteration))
            raise exc
        return AgentStep(action, _handled_observation(exc, handler))

    def _run_tool(self, request: ToolCallRequest) -> AgentStep:
        """Run the tool of `request` (the innermost handler: its errors are raised)."""
        return self._run_action(request.action, request.tool)

    def _run_action(self, action: AgentAction, tool: BaseTool | None) -> AgentStep:
        """Run `tool` for `action` (``None``: the invalid-tool observation); errors raised."""
        if tool is None:
            observation = self.executor.invalid_tool_observation(action.tool)
            if self.manager is not None:
                text, extra = _invalid_tool_start(self.executor, action)
                run = start_run(self.config, "tool", INVALID_TOOL_NAME, text, **extra)
                if run is not None:
                    run.on_end(observation)
            return AgentStep(action, observation)
        # A plain action has no call id (`getattr` would raise and catch an AttributeError).
        call_id = None if type(action) is AgentAction else getattr(action, "tool_call_id", None)
        if self.tools_direct and type(tool).run is _RUN:
            # The class's `run` would only pass on the config, which this run resolved in
            # this same context and no one listens to (`tools_direct`): its call less.
            observation = tool._execute(action.tool_input, self.config, call_id, False, True)
        else:
            observation = tool.run(
                action.tool_input, config=self.config, tool_call_id=call_id, as_message=False
            )
        return agent_step(action, observation)

    async def _arun_tool(self, request: ToolCallRequest) -> AgentStep:
        """Async `_run_tool`."""
        action, tool = request.action, request.tool
        if tool is None:
            observation = self.executor.invalid_tool_observation(action.tool)
            if self.manager is not None:
                text, extra = _invalid_tool_start(self.executor, action)
                run = await astart_run(self.config, "tool", INVALID_TOOL_NAME, text, **extra)
                if run is not None:
                    await run.aon_end(observation)
            return AgentStep(action, observation)
        call_id = getattr(action, "tool_call_id", None)
        observation = await tool.arun(
            action.tool_input, config=self.config, tool_call_id=call_id, as_message=False
        )
        return agent_step(action, observation)
