"""The middleware layer: which hooks run, in what order, what their answers do, and at what cost."""

from __future__ import annotations

from typing import Any

import pytest
from middleware_support import ENTRIES, Entry, drive
from test_executor_agents import IDS, KINDS, Kind
from test_executor_support import MODES, Mode, ScriptAgent, act, finish, run, tools

from leanchain.agents import AgentExecutor, AgentFinish, AgentStep, create_tool_calling_agent
from leanchain.agents.middleware import (
    AgentMiddleware,
    AgentRun,
    Interrupt,
    ModelRequest,
    Plan,
    StopRun,
    ToolCallRequest,
)
from leanchain.agents.middleware._base import ModelHandler, ToolHandler
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.errors import AgentConfigurationError
from leanchain.language_models import ScriptedChatModel
from leanchain.tools import tool


class Recorder(AgentMiddleware):
    """Overrides every hook and writes down each call in the run's state."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.name = f"rec-{label}"

    def _log(self, run: AgentRun, what: str) -> None:
        run.state_for(self).setdefault("log", []).append(what)
        run.state.setdefault("order", []).append(f"{self.label}:{what}")

    def before_agent(self, run: AgentRun) -> None:
        self._log(run, "before_agent")

    def before_model(self, run: AgentRun, request: ModelRequest) -> None:
        self._log(run, f"before_model({len(request.inputs['intermediate_steps'])})")

    def wrap_model_call(self, run: AgentRun, request: ModelRequest, handler: ModelHandler) -> Plan:
        run.state.setdefault("order", []).append(f"{self.label}:wrap_model>")
        plan = handler(request)
        run.state["order"].append(f"{self.label}:<wrap_model")
        return plan

    def after_model(self, run: AgentRun, plan: Plan) -> None:
        self._log(run, "after_model")

    def wrap_tool_call(
        self, run: AgentRun, request: ToolCallRequest, handler: ToolHandler
    ) -> AgentStep:
        step = handler(request)
        return AgentStep(step.action, f"{step.observation}+{self.label}")

    def after_step(self, run: AgentRun, steps: list[AgentStep]) -> None:
        self._log(run, f"after_step({[s.observation for s in steps]})")

    def after_agent(self, run: AgentRun, finish: AgentFinish) -> None:
        self._log(run, "after_agent")


def _order(result: dict[str, Any]) -> list[str]:
    return result["order"]


class OrderOut(AgentMiddleware):
    """Copies the run's shared log into the outputs, at the very end."""

    def after_agent(self, run: AgentRun, finish: AgentFinish) -> None:
        run.output_extras["order"] = list(run.state.get("order", []))


@pytest.mark.parametrize("entry", ENTRIES)
async def test_every_hook_runs_in_order_on_every_entry_point(entry: Entry) -> None:
    agent = ScriptAgent(act("echo", "a"), finish("done"))
    executor = AgentExecutor(
        agent=agent, tools=tools(), middleware=[Recorder("A"), Recorder("B"), OrderOut()]
    )
    result = await drive(executor, {"input": "q"}, entry)
    assert result["output"] == "done"
    assert _order(result) == [
        "A:before_agent",
        "B:before_agent",
        "A:before_model(0)",
        "B:before_model(0)",
        "A:wrap_model>",
        "B:wrap_model>",
        "B:<wrap_model",
        "A:<wrap_model",
        "A:after_model",
        "B:after_model",
        # The first middleware wraps the others: B's wrapper is inside A's.
        "A:after_step(['echo:a+B+A'])",
        "B:after_step(['echo:a+B+A'])",
        "A:before_model(1)",
        "B:before_model(1)",
        "A:wrap_model>",
        "B:wrap_model>",
        "B:<wrap_model",
        "A:<wrap_model",
        "A:after_model",
        "B:after_model",
        "A:after_agent",
        "B:after_agent",
    ]
    # The agent saw the wrapped observation.
    assert agent.seen[1]["intermediate_steps"] == [(act("echo", "a"), "echo:a+B+A")]


async def test_state_is_kept_per_middleware_and_per_run() -> None:
    executor = AgentExecutor(
        agent=ScriptAgent(finish("one"), finish("two")), tools=tools(), middleware=[Recorder("A")]
    )
    seen: list[dict[str, Any]] = []

    class Keep(AgentMiddleware):
        def after_agent(self, run: AgentRun, finish: AgentFinish) -> None:
            seen.append(dict(run.state))

    executor = AgentExecutor(
        agent=ScriptAgent(finish("one"), finish("two")),
        tools=tools(),
        middleware=[Recorder("A"), Recorder("A"), Keep()],
    )
    executor.invoke({"input": "q"})
    executor.invoke({"input": "q"})
    # Two middleware of one name get numbered keys; every run starts with no state.
    assert [sorted(state) for state in seen] == [["order", "rec-A", "rec-A#2"]] * 2
    assert seen[0]["rec-A"]["log"] == seen[1]["rec-A"]["log"]


@pytest.mark.parametrize("mode", MODES)
async def test_before_model_may_rewrite_the_request(mode: Mode) -> None:
    class Hide(AgentMiddleware):
        def before_model(self, run: AgentRun, request: ModelRequest) -> ModelRequest:
            return request.replace(inputs={**request.inputs, "intermediate_steps": []})

    agent = ScriptAgent(act("echo", "a"), finish("done"))
    executor = AgentExecutor(agent=agent, tools=tools(), middleware=[Hide()])
    assert (await run(executor, {"input": "q"}, mode))["output"] == "done"
    assert agent.steps_seen == [0, 0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", ["before_agent", "before_model", "after_model", "after_step"])
async def test_a_finish_or_a_stop_from_any_hook_ends_the_run(mode: Mode, hook: str) -> None:
    def answer(*args: Any) -> Any:
        return StopRun("mine", f"stopped in {hook}")

    ender = type("Ender", (AgentMiddleware,), {hook: answer})()
    agent = ScriptAgent(act("echo", "a"), act("echo", "b"), finish("never"))
    executor = AgentExecutor(agent=agent, tools=tools(), middleware=[ender])
    result = await run(executor, {"input": "q"}, mode)
    assert result == {"input": "q", "output": f"stopped in {hook}", "stopped_reason": "mine"}
    planning_calls = {"before_agent": 0, "before_model": 0, "after_model": 1, "after_step": 1}
    assert len(agent.seen) == planning_calls[hook]


@pytest.mark.parametrize("mode", MODES)
async def test_after_agent_may_rewrite_the_finish(mode: Mode) -> None:
    class Shout(AgentMiddleware):
        def after_agent(self, run: AgentRun, finish: AgentFinish) -> AgentFinish:
            return AgentFinish({"output": finish.return_values["output"].upper()}, finish.log)

    executor = AgentExecutor(agent=ScriptAgent(finish("done")), tools=tools(), middleware=[Shout()])
    assert (await run(executor, {"input": "q"}, mode))["output"] == "DONE"


@pytest.mark.parametrize("mode", MODES)
async def test_wrap_tool_call_sees_the_tools_real_error_before_handle_tool_errors(
    mode: Mode,
) -> None:
    errors: list[str] = []

    @tool
    def boom(text: str) -> str:
        """Fails."""
        raise RuntimeError(f"boom {text}")

    class Watch(AgentMiddleware):
        def wrap_tool_call(
            self, run: AgentRun, request: ToolCallRequest, handler: ToolHandler
        ) -> AgentStep:
            try:
                return handler(request)
            except RuntimeError as exc:
                errors.append(str(exc))
                raise

    agent = ScriptAgent(act("boom", "x"), finish("ok"))
    executor = AgentExecutor(
        agent=agent, tools=[boom], middleware=[Watch()], handle_tool_errors=True
    )
    assert (await run(executor, {"input": "q"}, mode))["output"] == "ok"
    assert errors == ["boom x"]
    assert agent.seen[1]["intermediate_steps"] == [(act("boom", "x"), "boom x")]


@pytest.mark.parametrize("mode", MODES)
async def test_a_hook_that_raises_ends_the_run_with_that_error(mode: Mode) -> None:
    class Fail(AgentMiddleware):
        def after_model(self, run: AgentRun, plan: Plan) -> None:
            raise LookupError("no such thing")

    executor = AgentExecutor(
        agent=ScriptAgent(act("echo", "a")), tools=tools(), middleware=[Fail()]
    )
    with pytest.raises(LookupError, match="no such thing"):
        await run(executor, {"input": "q"}, mode)


@pytest.mark.parametrize("mode", MODES)
async def test_a_wrong_answer_type_is_a_clear_error(mode: Mode) -> None:
    class Wrong(AgentMiddleware):
        def after_step(self, run: AgentRun, steps: list[AgentStep]) -> Any:
            return "yes"

    executor = AgentExecutor(
        agent=ScriptAgent(act("echo", "a")), tools=tools(), middleware=[Wrong()]
    )
    with pytest.raises(TypeError) as info:
        await run(executor, {"input": "q"}, mode)
    assert str(info.value) == (
        "after_step must return None or one of list, AgentFinish, StopRun; got 'yes'"
    )


async def test_async_twins_run_the_sync_hooks_by_default() -> None:
    executor = AgentExecutor(
        agent=ScriptAgent(act("echo", "a"), finish("done")),
        tools=tools(),
        middleware=[Recorder("A"), OrderOut()],
    )
    result = await executor.ainvoke({"input": "q"})
    assert result["order"][:5] == [
        "A:before_agent",
        "A:before_model(0)",
        "A:wrap_model>",
        "A:<wrap_model",
        "A:after_model",
    ]
    assert result["order"][5] == "A:after_step(['echo:a+A'])"


async def test_an_async_only_hook_is_used_by_async_runs_and_refused_by_sync_ones() -> None:
    class AsyncOnly(AgentMiddleware):
        async def aafter_model(self, run: AgentRun, plan: Plan) -> StopRun:
            return StopRun("async", "stopped asynchronously")

    executor = AgentExecutor(
        agent=ScriptAgent(act("echo", "a")), tools=tools(), middleware=[AsyncOnly()]
    )
    assert (await executor.ainvoke({"input": "q"}))["output"] == "stopped asynchronously"
    with pytest.raises(AgentConfigurationError) as info:
        executor.invoke({"input": "q"})
    assert str(info.value) == (
        "These middleware hooks are async only, so this executor can only run with "
        "ainvoke/astream/astream_events: ['AsyncOnly.aafter_model']; define the sync hook too"
    )


def test_hooks_a_class_does_not_override_are_never_called() -> None:
    class OnlyAfterStep(AgentMiddleware):
        def after_step(self, run: AgentRun, steps: list[AgentStep]) -> None:
            return None

    executor = AgentExecutor(agent=ScriptAgent(), tools=tools(), middleware=[OnlyAfterStep()])
    hooks = executor.hooks
    assert [
        h
        for h in (
            "before_agent",
            "before_model",
            "wrap_model_call",
            "after_model",
            "wrap_tool_call",
            "after_agent",
        )
        if getattr(hooks, h)
    ] == []
    assert len(hooks.after_step) == 1
    bare = AgentExecutor(agent=ScriptAgent(), tools=tools())
    assert bare.hooks.any is False


def test_middleware_must_be_agent_middleware() -> None:
    with pytest.raises(AgentConfigurationError) as info:
        AgentExecutor(agent=ScriptAgent(), tools=tools(), middleware=[object()])  # type: ignore[list-item]
    assert str(info.value).startswith("middleware must be AgentMiddleware instances, got object")


@pytest.mark.parametrize("mode", MODES)
async def test_an_interrupt_pauses_the_run_before_its_tool_calls(mode: Mode) -> None:
    ran: list[str] = []

    @tool
    def send(text: str) -> str:
        """Send a message."""
        ran.append(text)
        return "sent"

    class Gate(AgentMiddleware):
        def after_model(self, run: AgentRun, plan: Plan) -> Interrupt | None:
            if isinstance(plan, list):
                return Interrupt("approval", [a.tool for a in plan])
            return None

    executor = AgentExecutor(
        agent=ScriptAgent(act("send", "hi")), tools=[send], middleware=[Gate()]
    )
    result = await run(executor, {"input": "q"}, mode)
    assert result["interrupted"] is True
    assert result["interrupt"] == {"reason": "approval", "data": ["send"]}
    assert ran == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_request_with_fewer_tools_rebuilds_a_factory_agent(kind: Kind, mode: Mode) -> None:
    class OnlyEcho(AgentMiddleware):
        def before_model(self, run: AgentRun, request: ModelRequest) -> ModelRequest:
            return request.replace(tools=[t for t in request.tools if t.name == "echo"])

    model = ScriptedChatModel([kind.call("direct", "x"), kind.answer("ok")])
    tool_list = tools()
    executor = AgentExecutor(
        agent=kind.build(model, tool_list), tools=tool_list, middleware=[OnlyEcho()]
    )
    result = await run(executor, {"input": "q"}, mode)
    # A call to a tool the model was not shown still runs: the executor has it.
    assert result["output"] == "direct:x"
    shown = "\n".join(m.text for m in model.requests[0].messages)
    bound = [t["function"]["name"] for t in model.requests[0].tools or []]
    if kind.garbage is None:  # native tool calling: the bound schemas
        assert bound == ["echo"]
    else:  # text agents: the tools rendered in the prompt
        assert bound == []
        assert "echo" in shown
        assert "direct" not in shown


def test_an_executor_missing_a_tool_the_agent_knows_is_refused() -> None:
    tool_list = tools()
    agent = create_tool_calling_agent(ScriptedChatModel([]), tool_list, TOOL_CALLING_PROMPT)
    with pytest.raises(AgentConfigurationError) as info:
        AgentExecutor(agent=agent, tools=tool_list[:1])
    assert str(info.value) == (
        "The agent was built with tools the executor was not given: ['direct', 'direct2'] "
        "(the executor has ['echo']); pass the same tools to both"
    )
    # More tools than the agent knows are fine (LangChain allows it too).
    extra = tool_list[1:]
    agent = create_tool_calling_agent(ScriptedChatModel([]), extra, TOOL_CALLING_PROMPT)
    assert AgentExecutor(agent=agent, tools=tool_list).tool_names == ("echo", "direct", "direct2")


@pytest.mark.parametrize("mode", MODES)
async def test_a_paused_run_keeps_the_plan_as_earlier_hooks_rewrote_it(mode: Mode) -> None:
    ran: list[str] = []

    @tool
    def send(text: str) -> str:
        """Send a message."""
        ran.append(text)
        return "sent"

    class Polite(AgentMiddleware):
        def after_model(self, run: AgentRun, plan: Plan) -> Plan | None:
            if isinstance(plan, list):
                return [act(a.tool, f"please {a.tool_input}") for a in plan]
            return None

    class PauseOnce(AgentMiddleware):
        def after_model(self, run: AgentRun, plan: Plan) -> Interrupt | None:
            if isinstance(plan, list) and not run.resumed:
                return Interrupt("check", [a.tool_input for a in plan])
            return None

    executor = AgentExecutor(
        agent=ScriptAgent(act("send", "hi"), finish("ok")),
        tools=[send],
        middleware=[Polite(), PauseOnce()],
    )
    paused = await run(executor, {"input": "q"}, mode)
    assert paused["interrupt"] == {"reason": "check", "data": ["please hi"]}
    if mode == "sync":
        result = executor.resume(paused["state"])
    else:
        result = await executor.aresume(paused["state"])
    assert result["output"] == "ok"
    assert ran == ["please hi"]  # the rewritten call waited and ran, once
