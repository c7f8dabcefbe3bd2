"""The planning half of an agent run: the agent asked what to do next (through the
middleware's model wrappers, or in place), and the one last call for a final answer.

`Planning` is a base of `AgentRun` (`_run`), which holds the data it works on; it is apart
only so that each module stays one idea: `_run` keeps the run and its limits, this module
plans, `_acting` acts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from leanchain.agents._acting import note
from leanchain.agents._stopping import finish_from_reply
from leanchain.agents.format_scratchpad._steps import RunSteps
from leanchain.agents.middleware._base import ModelRequest, Plan
from leanchain.agents.schema import AgentAction, AgentFinish
from leanchain.errors import OutputParserException
from leanchain.language_models import BaseChatModel
from leanchain.runnables.base import Runnable
from leanchain.runnables.config import RunnableConfig
from leanchain.runnables.utils import afold, fold

if TYPE_CHECKING:
    from leanchain.agents.executor import AgentExecutor
    from leanchain.callbacks.manager import RunManager

__all__ = ["Planning"]

_new_list = list.__new__


def _as_plan(output: Any) -> Plan:
    if type(output) is not list:  # the usual plan is a plain list
        if isinstance(output, AgentFinish):
            return output
        if isinstance(output, AgentAction):
            return [output]
        if not isinstance(output, list):
            raise _not_a_plan(output)
    for action in output:
        if not isinstance(action, AgentAction):
            raise _not_a_plan(output)
    return output


def _not_a_plan(output: Any) -> TypeError:
    return TypeError(
        "The agent must return an AgentAction, a list of AgentActions or an AgentFinish, "
        f"got {type(output).__name__}: {output!r}"
    )


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


class Planning:
    """`AgentRun`'s planning calls (see the module docstring); no state of its own."""

    __slots__ = ()

    # What `AgentRun` holds and these methods read (its slots; see its docstring).
    executor: AgentExecutor
    inputs: dict[str, Any]
    config: RunnableConfig
    manager: RunManager | None
    steps: list[tuple[AgentAction, Any]]
    iterations: int
    scratchpad_memo: dict[Any, Any]
    _model_handler: Callable[[ModelRequest], Plan] | None
    _amodel_handler: Callable[[ModelRequest], Awaitable[Plan]] | None

    # -- the final answer -------------------------------------------------------------------

    def final_answer(self) -> AgentFinish:
        """One more model call for a final answer (through the middleware's model wrappers)."""
        request = ModelRequest(self._final_answer_input(), self.executor.tools, final=True)
        plan = (self._model_handler or self._plan_call)(request)
        assert isinstance(plan, AgentFinish)
        return plan

    async def afinal_answer(self) -> AgentFinish:
        """Async `final_answer`."""
        request = ModelRequest(self._final_answer_input(), self.executor.tools, final=True)
        plan = await (self._amodel_handler or self._aplan_call)(request)
        assert isinstance(plan, AgentFinish)
        return plan

    def _final_answer_failed(self) -> str:
        return (
            f"AgentExecutor: the agent failed while writing its final answer after "
            f"{self.iterations} iterations (early stop with 'generate'); its model: "
            f"{_model_of(self.executor.agent)}."
        )

    def _planning_failed(self, exc: Exception) -> None:
        if not isinstance(exc, OutputParserException):  # the loop turns those into steps
            note(
                exc,
                f"AgentExecutor iteration {self.iterations + 1}: the agent failed while "
                f"planning the next step; its model: {_model_of(self.executor.agent)}.",
            )

    def _final_answer_input(self) -> dict[str, Any]:
        return {**self.inputs, "intermediate_steps": RunSteps(self.steps, self.scratchpad_memo)}

    # -- planning ---------------------------------------------------------------------------

    def agent_input(self) -> dict[str, Any]:
        """What the agent sees: the inputs and the (trimmed) steps so far."""
        trim = self.executor.trim_intermediate_steps
        if isinstance(trim, int):
            seen = self.steps[-trim:] if trim > 0 else self.steps
        else:
            seen = trim(self.steps[:])
        # A list with the run's memo: the agent's formatter writes only the new steps.
        # (`RunSteps(seen, memo)`, made without its __init__ and the super() call in it.)
        steps = _new_list(RunSteps)
        steps += seen
        steps.memo = self.scratchpad_memo
        inputs = {**self.inputs}
        inputs["intermediate_steps"] = steps
        return inputs

    def request(self) -> ModelRequest:
        """The next planning call's request: the agent's input and all the executor's tools."""
        return ModelRequest(self.agent_input(), self.executor.tools)

    def plan(self, request: ModelRequest | None = None) -> Plan:
        """Ask the agent what to do next (through the middleware's model wrappers).

        `request` ``None`` is the run's next request (`request`): with no model wrapper to
        hand it to, the agent is called with its input at once, which is the same call.
        """
        try:
            handler = self._model_handler
            if handler is not None:
                return handler(self.request() if request is None else request)
            if request is None:
                return self._ask(self.executor.agent, self.agent_input())
            return self._plan_call(request)
        except Exception as exc:
            self._planning_failed(exc)
            raise

    def decide(self) -> Plan:
        """`plan` as one call, where `begin` found nothing between the loop and the agent
        (`plans_in_place`): the agent invoked on the run's input, as `_ask` would."""
        try:
            output = self.executor.agent.invoke(self.agent_input(), self.config)
            # A text agent's usual answer is one action: what `_as_plan` makes of it.
            return [output] if isinstance(output, AgentAction) else _as_plan(output)
        except Exception as exc:
            self._planning_failed(exc)
            raise

    async def aplan(self, request: ModelRequest | None = None) -> Plan:
        """Async `plan`."""
        try:
            handler = self._amodel_handler
            if handler is not None:
                return await handler(self.request() if request is None else request)
            if request is None:
                return await self._aask(self.executor.agent, self.agent_input())
            return await self._aplan_call(request)
        except Exception as exc:
            self._planning_failed(exc)
            raise

    def _agent_for(self, request: ModelRequest) -> Runnable[Any, Any]:
        ex = self.executor
        return ex.agent if request.tools == ex.tools else ex.agent_for(request.tools)

    def _plan_call(self, request: ModelRequest) -> Plan:
        """The planning call itself (the innermost model handler)."""
        if request.final:
            return self._final_call(request)
        return self._ask(self._agent_for(request), request.inputs)

    async def _aplan_call(self, request: ModelRequest) -> Plan:
        """Async `_plan_call`."""
        if request.final:
            return await self._afinal_call(request)
        return await self._aask(self._agent_for(request), request.inputs)

    def _ask(self, agent: Runnable[Any, Any], inputs: dict[str, Any]) -> Plan:
        """`agent`'s decision on `inputs`.

        The agent is streamed when someone listens, so that model tokens reach the callbacks
        while the model answers; with no handler the chunks would serve no one, and invoking
        gives the same decision for a fraction of the cost.
        """
        if not self.executor.stream_runnable or self.manager is None:
            return _as_plan(agent.invoke(inputs, self.config))
        got, total = fold(agent.stream(inputs, self.config))
        return _as_plan(total if got else None)

    async def _aask(self, agent: Runnable[Any, Any], inputs: dict[str, Any]) -> Plan:
        """Async `_ask`."""
        if not self.executor.stream_runnable or self.manager is None:
            return _as_plan(await agent.ainvoke(inputs, self.config))
        got, total = await afold(agent.astream(inputs, self.config))
        return _as_plan(total if got else None)

    def _final_call(self, request: ModelRequest) -> AgentFinish:
        chain = self.executor.final_answer_chain_for_stop()
        try:
            return finish_from_reply(chain.invoke(request.inputs, self.config))
        except Exception as exc:
            note(exc, self._final_answer_failed())
            raise

    async def _afinal_call(self, request: ModelRequest) -> AgentFinish:
        chain = self.executor.final_answer_chain_for_stop()
        try:
            reply = await chain.ainvoke(request.inputs, self.config)
        except Exception as exc:
            note(exc, self._final_answer_failed())
            raise
        return finish_from_reply(reply)
