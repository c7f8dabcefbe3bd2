"""The loop's direct calls (the planning call as one `decide`, a tool's run straight to its
`_execute` with the run's resolved config) give exactly what the wrapped path gives: same
outputs, steps, configs the tools see, errors and notes, for every way a call can end."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from middleware_support import PassThrough

from leanchain.agents import AgentAction, AgentExecutor, AgentFinish
from leanchain.agents.middleware import AgentMiddleware
from leanchain.agents.schema import ToolAgentAction
from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import OutputParserException, ToolException
from leanchain.runnables import RunnableConfig, RunnableLambda
from leanchain.tools import BaseTool, StructuredTool, _runs, tool


def _seen(config: RunnableConfig) -> str:
    return repr(sorted((k, v) for k, v in config.items() if k != "callbacks"))


@tool
def echo(text: str) -> str:
    """Echo."""
    return text


@tool
def config_of(text: str, config: RunnableConfig) -> str:
    """The config the tool sees."""
    return _seen(config)


@tool
def broken(text: str) -> str:
    """Raises a ToolException."""
    raise ToolException(f"broken {text}")


@tool
def crash(text: str) -> str:
    """Raises a ValueError."""
    raise ValueError(f"crash {text}")


@tool(response_format="content_and_artifact")
def with_artifact(text: str) -> tuple[str, list[str]]:
    """Content and an artifact."""
    return f"content {text}", [text]


class OwnRun(StructuredTool):
    """A tool whose class replaces `run`: the loop must call it."""

    def run(self, tool_input: Any, **kwargs: Any) -> Any:
        return f"own run: {tool_input!r}, {kwargs.get('tool_call_id')!r}"


tagged = StructuredTool.from_function(
    config_of.func,
    name="tagged",
    description="The config a tool with its own tags and metadata sees.",
    tags=["own"],
    metadata={"by": "tool"},
)
own_run = OwnRun.from_function(echo.func, name="own_run", description="Own run.")


def _handled(handled: BaseTool, **settings: Any) -> BaseTool:
    copy = StructuredTool.from_function(
        handled.func,  # type: ignore[attr-defined]
        name=f"{handled.name}_handled",
        description="Handled.",
        **settings,
    )
    return copy


broken_handled = _handled(broken, handle_tool_error=True)
invalid_handled = _handled(echo, handle_validation_error=True)
TOOLS = [
    echo,
    config_of,
    tagged,
    broken,
    crash,
    with_artifact,
    own_run,
    broken_handled,
    invalid_handled,
]

CALLS: list[tuple[str, Any]] = [
    ("echo", {"text": "a"}),
    ("echo", "plain text"),
    ("echo", {"text": 5}),
    ("config_of", {"text": "a"}),
    ("tagged", {"text": "a"}),
    ("broken", {"text": "a"}),
    ("crash", {"text": "a"}),
    ("with_artifact", {"text": "a"}),
    ("own_run", {"text": "a"}),
    ("broken_handled", {"text": "a"}),
    ("echo_handled", {"text": 5}),
    ("missing", {"text": "a"}),
]


def _outcome(call: Callable[[], dict[str, Any]]) -> tuple[Any, ...]:
    try:
        out = call()
    except Exception as exc:
        return ("error", type(exc), str(exc), tuple(getattr(exc, "__notes__", ())))
    steps = [(type(a), a.tool, a.tool_input, o) for a, o in out.get("intermediate_steps", [])]
    return ("ok", out["output"], steps)


def _run(
    plans: list[Any],
    middleware: list[AgentMiddleware],
    config: RunnableConfig | None = None,
    **settings: Any,
) -> tuple[Any, ...]:
    """The outcome of the run of `plans` (one per planning call)."""
    script = iter(plans)

    def agent(inputs: dict[str, Any]) -> Any:
        plan = next(script)
        if isinstance(plan, Exception):
            raise copy.copy(plan)  # a fresh one per run: each gets its own notes
        return plan

    executor = AgentExecutor(
        agent=RunnableLambda(agent),
        tools=TOOLS,
        middleware=middleware,
        return_intermediate_steps=True,
        **settings,
    )
    return _outcome(lambda: executor.invoke({"input": "q"}, config))


def _both_ways(
    plans: list[Any], config: RunnableConfig | None = None, **settings: Any
) -> list[tuple[Any, ...]]:
    """The run of `plans` without and with pass-through wrappers."""
    return [_run(plans, middleware, config, **settings) for middleware in ([], [PassThrough()])]


def _action(name: str, args: Any, call_id: str | None) -> AgentAction:
    if call_id is None:
        return AgentAction(name, args, "")
    return ToolAgentAction(name, args, "", message_log=[], tool_call_id=call_id)


@pytest.mark.parametrize("handle", [False, True, "oops"])
@pytest.mark.parametrize("call_id", [None, "c1"])
@pytest.mark.parametrize(("name", "args"), CALLS)
def test_tool_call_in_place_equals_wrapped(name: str, args: Any, call_id: Any, handle: Any) -> None:
    plans = [[_action(name, args, call_id)], AgentFinish({"output": "done"}, "")]
    quick, wrapped = _both_ways(plans, handle_tool_errors=handle)
    assert quick == wrapped


@pytest.mark.parametrize(
    "config",
    [
        None,
        {"tags": ["t"], "metadata": {"m": 1}},
        {"configurable": {"model": "m1", "user": "u"}, "run_name": "mine", "recursion_limit": 7},
        {"odd_key": 1},
    ],
)
def test_config_seen_by_tools_equals_wrapped(config: Any) -> None:
    plans = [
        [AgentAction("config_of", {"text": "a"}, ""), AgentAction("tagged", {"text": "b"}, "")],
        AgentFinish({"output": "done"}, ""),
    ]
    quick, wrapped = _both_ways(plans, config, max_tool_concurrency=1)
    assert quick == wrapped
    assert quick[0] == "ok"


def test_config_seen_inside_a_parent_run_equals_wrapped() -> None:
    """An executor run inside another runnable's call: the tools see the parent's config
    laid under the run's, the same both ways."""
    seen = []
    for middleware in ([], [PassThrough()]):
        plans = iter([[AgentAction("config_of", {"text": "a"}, "")], AgentFinish({}, "")])
        executor = AgentExecutor(
            agent=RunnableLambda(lambda inputs, plans=plans: next(plans)),
            tools=TOOLS,
            middleware=middleware,
            return_intermediate_steps=True,
        )
        outer = RunnableLambda(lambda x, executor=executor: executor.invoke(x, {"tags": ["in"]}))
        out = outer.invoke({"input": "q"}, {"tags": ["out"], "metadata": {"k": "v"}})
        seen.append(out["intermediate_steps"][0][1])
    assert seen[0] == seen[1]
    assert "'k'" in seen[0]


def test_tool_runs_in_place_without_resolving_the_config_again(monkeypatch: Any) -> None:
    """The in-place call is taken: the run's config is not resolved once more per call."""
    resolved = []
    original = _runs.ensure_config
    monkeypatch.setattr(_runs, "ensure_config", lambda c: resolved.append(c) or original(c))
    plans = [[AgentAction("echo", {"text": "a"}, "")], AgentFinish({"output": "done"}, "")]
    quick, wrapped = _both_ways(plans)
    assert quick == wrapped
    assert len(resolved) == 1  # the wrapped run's call only


class _Weird:
    def __repr__(self) -> str:
        return "<weird>"


PLANS: list[Any] = [
    AgentFinish({"output": "at once"}, ""),
    AgentAction("echo", {"text": "single"}, ""),
    [],
    _Weird(),
    [AgentAction("echo", {"text": "a"}, ""), "not an action"],
    ValueError("the model failed"),
    OutputParserException("unparsable", observation="see", llm_output="raw", send_to_llm=True),
    OutputParserException("unparsable"),
]


@pytest.mark.parametrize("handle", [False, True, "parse again"])
@pytest.mark.parametrize("first", PLANS, ids=repr)
def test_planning_in_place_equals_wrapped(first: Any, handle: Any) -> None:
    plans = [first, AgentFinish({"output": "done"}, ""), AgentFinish({"output": "late"}, "")]
    quick, wrapped = _both_ways(plans, handle_parsing_errors=handle)
    assert quick == wrapped


@given(
    st.lists(
        st.one_of(
            st.sampled_from(CALLS).map(lambda c: AgentAction(c[0], c[1], "")),
            st.sampled_from(PLANS[5:]),
        ),
        max_size=6,
    ),
    st.sampled_from([False, True, "oops"]),
    st.one_of(st.none(), st.integers(0, 4)),
)
def test_any_run_in_place_equals_wrapped(
    steps: list[Any], handle: Any, max_iterations: int | None
) -> None:
    """Any run (tool calls of every outcome, planning failures, unparsable replies, an
    iteration limit): the same outcome with the calls made in place as wrapped."""
    plans: list[Any] = [step if isinstance(step, Exception) else [step] for step in steps]
    plans.append(AgentFinish({"output": "done"}, ""))
    quick, wrapped = _both_ways(
        plans,
        handle_tool_errors=handle,
        handle_parsing_errors=handle,
        max_iterations=max_iterations,
    )
    assert quick == wrapped


@pytest.mark.parametrize("max_iterations", [None, 0, 1, 2, 3])
def test_iteration_limit_in_place_equals_timed(max_iterations: int | None) -> None:
    """The flow checks the iteration limit in place unless a time limit is set; a run under
    a time limit (which takes `should_continue`) stops at the same iteration."""
    plans = [[AgentAction("echo", {"text": str(i)}, "")] for i in range(3)]
    plans.append(AgentFinish({"output": "done"}, ""))
    quick = _run(plans, [], max_iterations=max_iterations)
    timed = _run(plans, [], max_iterations=max_iterations, max_execution_time=3600)
    assert quick == timed
    assert len(quick[2]) == min(3, 3 if max_iterations is None else max_iterations)


def test_stream_read_inside_another_run_equals_wrapped() -> None:
    """A run read partly outside any run and partly inside another (its tool calls happen
    in the reader's context then): the tools see the same config as when wrapped."""
    seen = []
    for middleware in ([], [PassThrough()]):
        plans = iter(
            [
                [AgentAction("config_of", {"text": "a"}, "")],
                [AgentAction("config_of", {"text": "b"}, "")],
                AgentFinish({"output": "done"}, ""),
            ]
        )
        executor = AgentExecutor(
            agent=RunnableLambda(lambda inputs, plans=plans: next(plans)),
            tools=TOOLS,
            middleware=middleware,
        )
        chunks = executor.stream({"input": "q"})
        first = [next(chunks), next(chunks)]
        rest = RunnableLambda(lambda _, chunks=chunks: list(chunks)).invoke(
            None, {"tags": ["reader"], "metadata": {"k": "v"}}
        )
        seen.append([c.get("steps") and c["steps"][0].observation for c in first + rest])
    assert seen[0] == seen[1]
    assert any(isinstance(s, str) and "reader" in s for s in seen[0])


class Heard(BaseCallbackHandler):
    """Every event of a run, in order, without its ids."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.events.append(("chain_start", repr(kwargs.get("name"))))

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.events.append(("chain_end", repr(outputs)))

    def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        self.events.append(("chain_error", repr(error)))

    def on_tool_start(self, serialized: Any, input_str: str, **kwargs: Any) -> None:
        self.events.append(("tool_start", f"{serialized!r} {input_str!r}"))

    def on_tool_end(self, output: Any, **kwargs: Any) -> None:
        self.events.append(("tool_end", repr(output)))

    def on_tool_error(self, error: BaseException, **kwargs: Any) -> None:
        self.events.append(("tool_error", repr(error)))

    def on_agent_action(self, action: Any, **kwargs: Any) -> None:
        self.events.append(("agent_action", repr(action)))

    def on_agent_finish(self, finish: Any, **kwargs: Any) -> None:
        self.events.append(("agent_finish", repr(finish)))


@pytest.mark.parametrize("stream_runnable", [False, True])
@pytest.mark.parametrize("first", PLANS, ids=repr)
def test_heard_run_in_place_equals_wrapped(first: Any, stream_runnable: bool) -> None:
    """Under a handler (planning in place when the agent is not streamed): the same
    outcome and the same events, in order, as wrapped."""
    plans = [
        first,
        [AgentAction("broken_handled", {"text": "a"}, "")],
        AgentFinish({"output": "done"}, ""),
    ]
    heard = []
    for middleware in ([], [PassThrough()]):
        handler = Heard()
        outcome = _run(
            plans,
            middleware,
            {"callbacks": [handler]},
            stream_runnable=stream_runnable,
            handle_parsing_errors=True,
        )
        heard.append((outcome, handler.events))
    assert heard[0] == heard[1]
    assert heard[0][1][0] == ("chain_start", "'AgentExecutor'")
