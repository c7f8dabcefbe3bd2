"""AgentExecutor's config and callbacks, input rules, construction checks, batches and the
verbose trace."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from test_executor_support import (
    MODES,
    Mode,
    ScriptAgent,
    act,
    echo,
    finish,
    run,
    tools,
)

from leanchain.agents import AgentAction, AgentExecutor, ToolAgentAction
from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import AgentConfigurationError, OutputParserException
from leanchain.prompts import PromptTemplate
from leanchain.runnables import Runnable, RunnableConfig, RunnableLambda, RunnablePassthrough
from leanchain.tools import tool


class Recorder(BaseCallbackHandler):
    """Records (event, name or payload, run id, parent run id)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any, UUID, UUID | None]] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
        self.events.append(("chain_start", kw["name"], kw["run_id"], kw["parent_run_id"]))

    def on_chain_end(self, outputs: Any, **kw: Any) -> None:
        self.events.append(("chain_end", outputs, kw["run_id"], kw["parent_run_id"]))

    def on_tool_start(self, serialized: Any, input_str: str, **kw: Any) -> None:
        self.events.append(("tool_start", kw["name"], kw["run_id"], kw["parent_run_id"]))

    def on_agent_action(self, action: Any, **kw: Any) -> None:
        self.events.append(("agent_action", action, kw["run_id"], kw["parent_run_id"]))

    def on_agent_finish(self, finish: Any, **kw: Any) -> None:
        self.events.append(("agent_finish", finish, kw["run_id"], kw["parent_run_id"]))


@pytest.mark.parametrize("mode", MODES)
async def test_agent_and_tools_get_the_callers_config(mode: Mode) -> None:
    agent = ScriptAgent(act("spy", {"text": "x"}), finish("ok"))
    seen: list[RunnableConfig] = []

    @tool
    def spy(text: str, config: RunnableConfig) -> str:
        """Records its config."""
        seen.append(config)
        return text

    config: RunnableConfig = {
        "tags": ["T"],
        "metadata": {"m": 1},
        "configurable": {"k": "v"},
        "callbacks": [Recorder()],
    }
    await run(AgentExecutor(agent=agent, tools=[spy]), {"input": "q"}, mode, config)
    for got in [*agent.configs, *seen]:
        assert got is not None
        assert got["tags"] == ["T"]
        assert got["metadata"] == {"m": 1}
        assert got["configurable"] == {"k": "v"}


@pytest.mark.parametrize("mode", MODES)
async def test_tools_get_a_config_without_callbacks_too(mode: Mode) -> None:
    seen: list[RunnableConfig] = []

    @tool
    def spy(text: str, config: RunnableConfig) -> str:
        """Records its config."""
        seen.append(config)
        return text

    executor = AgentExecutor(agent=ScriptAgent(act("spy", "x"), finish("ok")), tools=[spy])
    await run(executor, {"input": "q"}, mode, {"configurable": {"user": "u1"}})
    assert [c["configurable"] for c in seen] == [{"user": "u1"}]


@pytest.mark.parametrize("mode", MODES)
async def test_callbacks_see_the_run_tree_actions_and_finish(mode: Mode) -> None:
    recorder = Recorder()
    a = act("echo", "hi")
    executor = AgentExecutor(agent=ScriptAgent(a, finish("ok")), tools=tools())
    config: RunnableConfig = {"callbacks": [recorder], "run_name": "Helper"}
    result = await run(executor, {"input": "q"}, mode, config)
    events = recorder.events
    root = events[0][2]
    assert [(e[0], e[1]) for e in events] == [
        ("chain_start", "Helper"),
        ("chain_start", "ScriptAgent"),
        ("chain_end", a),
        ("agent_action", a),
        ("tool_start", "echo"),
        ("chain_start", "ScriptAgent"),
        ("chain_end", finish("ok")),
        ("agent_finish", finish("ok")),
        ("chain_end", result),
    ]
    assert events[0][3] is None
    assert [e[3] for e in events if e[1] in ("ScriptAgent", "echo")] == [root, root, root]
    assert [e[2] for e in events if e[0] in ("agent_action", "agent_finish")] == [root, root]


class ToolStarts(BaseCallbackHandler):
    """Records every tool run: its start's arguments and keywords, and its output."""

    def __init__(self) -> None:
        self.starts: list[tuple[Any, str, dict[str, Any]]] = []
        self.ends: list[Any] = []
        self.run_types: list[Any] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
        self.run_types.append(kw.get("run_type"))

    def on_tool_start(self, serialized: Any, input_str: str, **kw: Any) -> None:
        keys = ("name", "inputs", "tool_call_id")
        self.starts.append((serialized, input_str, {k: kw[k] for k in keys}))

    def on_tool_end(self, output: Any, **kw: Any) -> None:
        self.ends.append(output)


@pytest.mark.parametrize("mode", MODES)
async def test_the_executors_run_says_it_is_an_agent_run(mode: Mode) -> None:
    handler = ToolStarts()
    executor = AgentExecutor(agent=ScriptAgent(finish("ok")), tools=tools())
    await run(executor, "q", mode, {"callbacks": [handler]})
    assert handler.run_types == ["agent", None]


@pytest.mark.parametrize("mode", MODES)
async def test_an_unknown_tool_is_answered_by_an_invalid_tool_run(mode: Mode) -> None:
    handler = ToolStarts()
    call = ToolAgentAction("nope", {"x": 1}, "log", tool_call_id="call_1")
    executor = AgentExecutor(agent=ScriptAgent(call, act("gone", "y"), finish("ok")), tools=tools())
    await run(executor, "q", mode, {"callbacks": [handler]})
    described = {
        "name": "invalid_tool",
        "description": "Called when tool name is invalid. Suggests valid tool names.",
    }
    names = ["echo", "direct", "direct2"]
    assert handler.starts == [
        (
            described,
            f"{{'requested_tool_name': 'nope', 'available_tool_names': {names}}}",
            {
                "name": "invalid_tool",
                "inputs": {"requested_tool_name": "nope", "available_tool_names": names},
                "tool_call_id": "call_1",
            },
        ),
        (
            described,
            f"{{'requested_tool_name': 'gone', 'available_tool_names': {names}}}",
            {
                "name": "invalid_tool",
                "inputs": {"requested_tool_name": "gone", "available_tool_names": names},
                "tool_call_id": None,
            },
        ),
    ]
    assert handler.ends == [
        "nope is not a valid tool, try one of [echo, direct, direct2].",
        "gone is not a valid tool, try one of [echo, direct, direct2].",
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_a_handled_parse_error_is_reported_as_an_agent_action(mode: Mode) -> None:
    recorder = Recorder()
    executor = AgentExecutor(
        agent=ScriptAgent(OutputParserException("junk"), finish("ok")),
        tools=tools(),
        handle_parsing_errors=True,
    )
    await run(executor, {"input": "q"}, mode, {"callbacks": [recorder]})
    actions = [e[1] for e in recorder.events if e[0] == "agent_action"]
    assert actions == [AgentAction("_Exception", "Invalid or incomplete response", "junk")]


@pytest.mark.parametrize("mode", MODES)
async def test_executor_callbacks_tags_and_metadata_join_the_callers(mode: Mode) -> None:
    recorder = Recorder()
    agent = ScriptAgent(finish("ok"))
    executor = AgentExecutor(
        agent=agent, tools=tools(), callbacks=[recorder], tags=["mine"], metadata={"a": 1}
    )
    await run(executor, {"input": "q"}, mode, {"tags": ["theirs"], "metadata": {"b": 2}})
    assert recorder.events[0][:2] == ("chain_start", "AgentExecutor")
    config = agent.configs[0]
    assert config is not None
    assert (config["tags"], config["metadata"]) == (["mine", "theirs"], {"a": 1, "b": 2})


class _StreamSpy(Runnable[dict[str, Any], Any]):
    """Streams its answer in two chunks; records how it was called."""

    __slots__ = ("calls",)

    def __init__(self) -> None:
        self.calls: list[str] = []

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        self.calls.append("invoke")
        return finish("whole")

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        self.calls.append("stream")
        if input["intermediate_steps"]:
            yield finish("streamed")
            return
        yield [act("echo", "a")]
        yield [act("echo", "b")]


def test_stream_runnable_streams_the_agent_and_adds_its_chunks() -> None:
    spy = _StreamSpy()
    executor = AgentExecutor(agent=spy, tools=tools(), return_intermediate_steps=True)
    result = executor.invoke({"input": "q"}, {"callbacks": [Recorder()]})
    assert spy.calls == ["stream", "stream"]
    assert result["intermediate_steps"] == [
        (act("echo", "a"), "echo:a"),
        (act("echo", "b"), "echo:b"),
    ]
    assert result["output"] == "streamed"


def test_stream_runnable_false_invokes_the_agent() -> None:
    spy = _StreamSpy()
    executor = AgentExecutor(agent=spy, tools=tools(), stream_runnable=False)
    assert executor.invoke({"input": "q"}, {"callbacks": [Recorder()]}) == {
        "input": "q",
        "output": "whole",
    }
    assert spy.calls == ["invoke"]


def test_with_no_one_listening_the_agent_is_invoked() -> None:
    spy = _StreamSpy()
    executor = AgentExecutor(agent=spy, tools=tools())
    assert executor.invoke({"input": "q"}) == {"input": "q", "output": "whole"}
    assert spy.calls == ["invoke"]


# -- inputs -------------------------------------------------------------------------------------


def _prompted(template: str) -> Runnable[dict[str, Any], Any]:
    return (
        RunnablePassthrough.assign(agent_scratchpad=lambda _: "")
        | PromptTemplate.from_template(template)
        | RunnableLambda(lambda value: finish(value.to_string()))
    )


@pytest.mark.parametrize("mode", MODES)
async def test_a_string_becomes_the_input_when_the_prompt_takes_input(mode: Mode) -> None:
    executor = AgentExecutor(agent=_prompted("Q: {input}{agent_scratchpad}"), tools=tools())
    assert await run(executor, "why?", mode) == {"input": "why?", "output": "Q: why?"}


@pytest.mark.parametrize("mode", MODES)
async def test_a_string_becomes_the_input_when_the_prompt_is_unknown(mode: Mode) -> None:
    executor = AgentExecutor(agent=ScriptAgent(finish("ok")), tools=tools())
    assert await run(executor, "why?", mode) == {"input": "why?", "output": "ok"}


@pytest.mark.parametrize("mode", MODES)
async def test_a_string_is_refused_when_the_prompt_takes_no_input(mode: Mode) -> None:
    executor = AgentExecutor(agent=_prompted("{question} {topic}{agent_scratchpad}"), tools=tools())
    with pytest.raises(TypeError) as info:
        await run(executor, "why?", mode)
    assert str(info.value) == (
        "AgentExecutor got a plain string, but the agent's prompt has no 'input' variable; "
        "pass a dict with the keys ['question', 'topic']"
    )
    with pytest.raises(TypeError):
        executor.stream("why?")


def test_other_inputs_are_refused() -> None:
    executor = AgentExecutor(agent=ScriptAgent(), tools=tools())
    with pytest.raises(
        TypeError, match=r"^AgentExecutor expects a dict of inputs \(or a str\), got list$"
    ):
        executor.invoke(["q"])  # type: ignore[arg-type]


# -- construction -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tools": [echo, echo]}, "Tool names must be unique, got duplicates: ['echo']"),
        ({"handle_parsing_errors": 3}, "Got unexpected type of `handle_parsing_errors`"),
        ({"handle_tool_errors": None}, "Got unexpected type of `handle_tool_errors`"),
        ({"max_iterations": -1}, "max_iterations must be None or a number >= 0, got -1"),
        (
            {"max_execution_time": -0.5},
            "max_execution_time must be None or a number >= 0, got -0.5",
        ),
        ({"max_tool_concurrency": 0}, "max_tool_concurrency must be None or a number >= 1, got 0"),
        ({"max_iterations": True}, "max_iterations must be None or a number >= 0, got True"),
        (
            {"trim_intermediate_steps": "2"},
            "trim_intermediate_steps must be an int or a callable, got '2'",
        ),
        ({"agent": 42}, "agent must be a Runnable (or a function), got int"),
    ],
)
def test_bad_settings_fail_at_construction(kwargs: dict[str, Any], message: str) -> None:
    settings: dict[str, Any] = {"agent": ScriptAgent(), "tools": tools(), **kwargs}
    with pytest.raises(AgentConfigurationError) as info:
        AgentExecutor(**settings)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_lookup_tool_and_from_agent_and_tools() -> None:
    executor = AgentExecutor.from_agent_and_tools(ScriptAgent(), tools(), max_iterations=3)
    assert executor.lookup_tool("echo") is echo
    assert executor.max_iterations == 3
    assert executor.tool_names == ("echo", "direct", "direct2")


# -- batches and the verbose trace ------------------------------------------------------------


def _echo_agent(inputs: dict[str, Any]) -> Any:
    if inputs["intermediate_steps"]:
        return finish(inputs["intermediate_steps"][0][1])
    return act("echo", inputs["input"])


def test_batch_runs_every_input() -> None:
    executor = AgentExecutor(agent=_echo_agent, tools=tools())
    assert executor.batch(["a", {"input": "b"}]) == [
        {"input": "a", "output": "echo:a"},
        {"input": "b", "output": "echo:b"},
    ]


async def test_abatch_runs_every_input() -> None:
    executor = AgentExecutor(agent=_echo_agent, tools=tools())
    assert await executor.abatch(["a", "b"]) == [
        {"input": "a", "output": "echo:a"},
        {"input": "b", "output": "echo:b"},
    ]


TIMING = re.compile(r"\[\d+\.\d+ m?s\]")


class Tty(io.StringIO):
    """Standard output as a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("mode", MODES)
async def test_verbose_prints_the_run_through_the_console_handler(
    mode: Mode, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    agent = ScriptAgent(act("echo", "hi", "I should echo."), act("nope", "x"), finish("42"))
    executor = AgentExecutor(agent=agent, tools=tools(), verbose=True)
    assert await run(executor, {"input": "q"}, mode) == {"input": "q", "output": "42"}
    # The agent's view (ConsoleCallbackHandler's default): thoughts, calls, observations,
    # the answer; the agent runnable's own runs are left out.
    assert TIMING.sub("[T]", capsys.readouterr().out).splitlines() == [
        "> agent:AgentExecutor  input: {'input': 'q'}",
        "  thought: I should echo.",
        "  -> action: echo 'hi'",
        "  > tool:echo  input: 'hi'",
        "  < tool:echo  [T]  output: 'echo:hi'",
        "  thought: call nope",
        "  -> action: nope 'x'",
        "  > tool:invalid_tool  input: "
        "{'requested_tool_name': 'nope', 'available_tool_names': ['echo', 'direct', 'direct2']}",
        "  < tool:invalid_tool  [T]  output: "
        "'nope is not a valid tool, try one of [echo, direct, direct2].'",
        "  thought: FIN",
        "  -> finish: {'output': '42'}",
        "< agent:AgentExecutor  [T]  output: {'input': 'q', 'output': '42'}",
    ]


def test_verbose_shows_stops_and_parse_errors(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    bad = OutputParserException(
        "no action", observation="Say it again.", llm_output="?", send_to_llm=True
    )
    executor = AgentExecutor(
        agent=ScriptAgent(bad),
        tools=tools(),
        verbose=True,
        max_iterations=1,
        handle_parsing_errors=True,
    )
    executor.invoke("q")
    lines = TIMING.sub("[T]", capsys.readouterr().out).splitlines()
    assert lines == [
        "> agent:AgentExecutor  input: {'input': 'q'}",
        "  x chain:ScriptAgent  [T]  error: OutputParserException: no action",
        "  -> action: _Exception 'Say it again.'",
        "  -> finish: {'output': 'Agent stopped due to iteration limit or time limit.'}",
        "< agent:AgentExecutor  [T]  output: "
        "{'input': 'q', 'output': 'Agent stopped due to iteration limit or time limit.'}",
    ]


def test_verbose_adds_to_the_callers_handlers(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    recorder = Recorder()
    executor = AgentExecutor(agent=ScriptAgent(finish("42")), tools=tools(), verbose=True)
    executor.invoke("q", {"callbacks": [recorder]})
    assert [e[0] for e in recorder.events] == [
        "chain_start",
        "chain_start",
        "chain_end",
        "agent_finish",
        "chain_end",
    ]
    assert capsys.readouterr().out.count("\n") == 4


def test_verbose_colours_a_terminal_unless_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    executor = AgentExecutor(agent=ScriptAgent(finish("42"), finish("42")), tools=tools())
    executor.verbose = True
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys, "stdout", out := Tty())
    executor.invoke("q")
    assert TIMING.sub("[T]", out.getvalue()) == (
        "> \x1b[1magent:AgentExecutor\x1b[0m  input: {'input': 'q'}\n"
        "  \x1b[2mthought: FIN\x1b[0m\n"
        "  \x1b[32m-> finish: {'output': '42'}\x1b[0m\n"
        "< \x1b[1magent:AgentExecutor\x1b[0m  \x1b[2m[T]\x1b[0m  output: "
        "{'input': 'q', 'output': '42'}\n"
    )
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(sys, "stdout", out := Tty())
    executor.invoke("q")
    assert TIMING.sub("[T]", out.getvalue()).splitlines()[-1] == (
        "< agent:AgentExecutor  [T]  output: {'input': 'q', 'output': '42'}"
    )


def test_set_verbose_is_the_default_of_executors_built_after_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from leanchain.globals import set_verbose

    set_verbose(True)
    try:
        loud = AgentExecutor(agent=ScriptAgent(finish("done")), tools=tools())
        quiet = AgentExecutor(agent=ScriptAgent(finish("done")), tools=tools(), verbose=False)
    finally:
        set_verbose(False)
    assert (loud.verbose, quiet.verbose) == (True, False)
    loud.invoke({"input": "q"})
    assert "done" in capsys.readouterr().out
    quiet.invoke({"input": "q"})
    assert capsys.readouterr().out == ""
