"""The loop's in-place calls (no middleware wraps, no time limit, no handler) give exactly
what the wrapped path gives: same outputs, steps, errors and notes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from middleware_support import ENTRIES, Entry, PassThrough, drive
from test_executor_agents import IDS, KINDS, Kind
from test_executor_agents import _executor as agent_executor
from test_executor_support import tools

from leanchain.agents import AgentAction, AgentExecutor, AgentFinish, AgentStep
from leanchain.agents.middleware import AgentMiddleware
from leanchain.agents.schema import agent_step
from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import message_chunk_to_message
from leanchain.prompts import ChatPromptTemplate, SystemMessagePromptTemplate
from leanchain.runnables import RunnableLambda
from leanchain.tools import tool
from outcome_support import count_calls


@given(st.text(), st.one_of(st.none(), st.integers(), st.text()))
def test_agent_step_equals_the_constructor(name: str, observation: Any) -> None:
    action = AgentAction(name, {"x": 1}, "log")
    quick, built = agent_step(action, observation), AgentStep(action, observation)
    assert quick == built
    assert type(quick) is AgentStep
    assert vars(quick) == vars(built)


@tool
def fail(text: str) -> str:
    """Always fails."""
    raise ValueError(f"bad {text}")


@tool
def echo(text: str) -> str:
    """Echo."""
    return text


def _executor(middleware: list[AgentMiddleware], **kwargs: Any) -> AgentExecutor:
    plans: list[Any] = [
        [AgentAction("echo", {"text": "a"}, ""), AgentAction("nope", "x", "")],
        [AgentAction("fail", {"text": "b"}, "")],
        AgentFinish({"output": "done"}, ""),
    ]
    # The plan for the number of steps so far: two calls, one failing call, the answer.
    by_steps = dict(zip([0, 2, 3], plans, strict=True))
    agent = RunnableLambda(lambda inputs: by_steps[len(inputs["intermediate_steps"])])
    return AgentExecutor(
        agent=agent,
        tools=[echo, fail],
        middleware=middleware,
        return_intermediate_steps=True,
        max_tool_concurrency=1,
        **kwargs,
    )


@pytest.mark.parametrize("handle", [True, "oops"])
def test_in_place_equals_wrapped(handle: Any) -> None:
    quick = _executor([], handle_tool_errors=handle).invoke({"input": "q"})
    wrapped = _executor([PassThrough()], handle_tool_errors=handle).invoke({"input": "q"})
    assert quick == wrapped
    assert [o for _, o in quick["intermediate_steps"]][:2] == [
        "a",
        "nope is not a valid tool, try one of [echo, fail].",
    ]


def test_in_place_error_note_equals_wrapped() -> None:
    notes = []
    for middleware in ([], [PassThrough()]):
        with pytest.raises(ValueError, match="bad b") as info:
            _executor(middleware).invoke({"input": "q"})
        notes.append(info.value.__notes__)
    assert notes[0] == notes[1] == ["AgentExecutor iteration 2: tool 'fail' failed."]


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_in_place_equals_wrapped_on_every_entry(kind: Kind, entry: Entry) -> None:
    """Every entry point and agent type: the run with no middleware (the planning call
    without a `ModelRequest`, the tool calls in place, a quiet `invoke`) gives the outputs,
    steps and model requests of the same run through pass-through wrappers."""
    script = [kind.call("echo", "a"), kind.call("nope", "x"), kind.answer("42")]
    runs = []
    for middleware in ([], [PassThrough()]):
        executor, model = agent_executor(
            kind, list(script), middleware=middleware, return_intermediate_steps=True
        )
        out = await drive(executor, {"input": "q"}, entry)
        steps = [(a.tool, a.tool_input, a.log, o) for a, o in out["intermediate_steps"]]
        requests = [(r.messages, r.tools, r.stop) for r in model.requests]
        runs.append((out["output"], steps, requests))
    assert runs[0] == runs[1]
    assert runs[0][0] == "42"
    assert [step[0] for step in runs[0][1]] == ["echo", "nope"]


_PAST_STOP = {
    "react": "\nObservation: made up",
    "structured-chat": "\nObservation: made up",
    "json-chat": "\nObservation: made up",
    "xml": "</tool_input>made up",
}
"""Text a text agent's model writes past its stop sequence (cut before the reply is read)."""


def _hard_script(kind: Kind) -> list[Any]:
    """A call with text past the stop sequence, a failing tool, an unknown tool, an
    unparsable reply (text agents), then the answer."""
    script = [
        kind.call("echo", "a") + _PAST_STOP[kind.name]
        if kind.name in _PAST_STOP
        else kind.call("echo", "a"),
        kind.call("fail", "b"),
        kind.call("nope", "x"),
    ]
    if kind.garbage is not None:
        script.append(kind.garbage)
    return [*script, kind.answer("42")]


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_errors_and_stops_run_alike_on_every_entry(kind: Kind, entry: Entry) -> None:
    """Every entry point and agent type, with a stop cut, a tool error, an unknown tool and
    a parse error handled: the unwatched run (planning in place, tools in place or called
    directly, the quiet model and parser calls) gives the outputs, steps and model requests
    of the same run through pass-through wrappers, and of a run a callback handler watches
    (through `invoke`; its streamed tool-calling replies compared as messages)."""
    runs = []
    for middleware, config in (
        ([], None),
        ([PassThrough()], None),
        ([], {"callbacks": [BaseCallbackHandler()]}),
    ):
        executor, model = agent_executor(
            kind,
            _hard_script(kind),
            tools=[*tools(), fail],
            middleware=middleware,
            handle_tool_errors=True,
            handle_parsing_errors=True,
            return_intermediate_steps=True,
        )
        if config is None:
            out = await drive(executor, {"input": "q"}, entry)
        else:
            out = executor.invoke({"input": "q"}, config)
            out = {key: value for key, value in out.items() if key != "input"}
        steps = [(a.tool, a.tool_input, o) for a, o in out["intermediate_steps"]]
        requests = [
            ([message_chunk_to_message(m) for m in r.messages], r.tools, r.stop)
            for r in model.requests
        ]
        runs.append((out["output"], steps, requests))
    assert runs[0] == runs[1] == runs[2]
    output, steps, requests = runs[0]
    assert output == "42"
    assert [(tool, observation) for tool, _, observation in steps[:3]] == [
        ("echo", "echo:a"),
        ("fail", "bad b"),
        ("nope", "nope is not a valid tool, try one of [echo, direct, direct2, fail]."),
    ]
    assert steps[0][1] in ("a", {"text": "a"})  # the text past the stop sequence cut off
    assert [tool for tool, _, _ in steps[3:]] == ([] if kind.garbage is None else ["_Exception"])
    assert len(requests) == len(steps) + 1


def test_an_agent_formats_the_fixed_part_of_its_prompt_once_when_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Structured chat's system turn (it reads only the rendered tools) is formatted when
    the agent is built, and every run starts from that one message."""
    formats = count_calls(monkeypatch, SystemMessagePromptTemplate, "_format_into")
    kind = KINDS[IDS.index("structured-chat")]
    script = [kind.call("echo", "a"), kind.answer("1"), kind.call("echo", "b"), kind.answer("2")]
    executor, model = agent_executor(kind, script)
    assert formats == [1]
    outputs = [executor.invoke({"input": q})["output"] for q in ("q1", "q2")]
    assert outputs == ["1", "2"]
    assert formats == [1]
    systems = [request.messages[0] for request in model.requests]
    assert len(systems) == 4
    assert all(message is systems[0] for message in systems)
    assert systems[0].content.startswith("You are a helpful assistant.")
    assert [request.messages[-1].content.split("\n")[0] for request in model.requests] == [
        "q1",
        "q1",
        "q2",
        "q2",
    ]


def _requests(model: Any) -> list[Any]:
    return [
        ([message_chunk_to_message(m) for m in r.messages], r.tools, r.stop) for r in model.requests
    ]


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_later_runs_of_one_agent_ask_as_a_fresh_agent_does_on_every_entry(
    kind: Kind, entry: Entry
) -> None:
    """Every entry point and agent type: an agent run twice (its prompt's fixed parts
    formatted once, when it was built, and shared by both runs) asks its model exactly what
    a fresh agent, watched by a handler (its prompt formatted anew on every call), asks in
    each run; where no handler listens, both runs share the fixed messages themselves."""
    script = [kind.call("echo", "a"), kind.answer("1"), kind.call("echo", "b"), kind.answer("2")]
    executor, model = agent_executor(kind, script, tools=[*tools(), fail])
    outputs = [(await drive(executor, {"input": q}, entry))["output"] for q in ("q1", "q2")]
    reference = ScriptedChatModel(script)  # one model, so that its call ids run on
    for q in ("q1", "q2"):
        fresh_tools = [*tools(), fail]
        fresh = AgentExecutor(agent=kind.build(reference, fresh_tools), tools=fresh_tools)
        fresh.invoke({"input": q}, {"callbacks": [BaseCallbackHandler()]})
    assert outputs == ["1", "2"]
    assert _requests(model) == _requests(reference)
    firsts = [r.messages[0] for r in model.requests]
    if isinstance(executor.agent.prompt, ChatPromptTemplate) and "events" not in entry:
        assert all(m is firsts[0] for m in firsts)
