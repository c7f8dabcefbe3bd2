"""`ToolPolicy`: per-call timeouts, retries of passing failures only (never a non-idempotent
tool after its effect), tools that fail too often switched off, each error kind's outcome."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from middleware_support import ENTRIES, Entry, drive
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from test_executor_agents import IDS, KINDS, Kind
from test_executor_support import MODES, Mode, ScriptAgent, act, finish, run

from leanchain.agents import AgentExecutor, InMemoryCheckpointer, ToolPolicy
from leanchain.agents.middleware._tool_policy import DEFAULT_RETRY_ON
from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import (
    AgentConfigurationError,
    ProviderConnectionError,
    ToolException,
    ToolRetryableError,
    ToolTimeoutError,
)
from leanchain.language_models import ScriptedChatModel
from leanchain.tools import BaseTool, StructuredTool, tool
from leanchain.tracing import OpenTelemetryCallbackHandler

TOOL_CALLING = [k for k in KINDS if k.name in ("tool-calling", "openai-tools")]
EVENT = "leanchain.tool_policy"
THREAD = "leanchain-tool-call"


def _unavailable(name: str, times: int) -> str:
    failed = "once" if times == 1 else f"{times} times"
    return (
        f"Tool {name!r} is unavailable: it failed {failed} in this run and was switched "
        "off. Do not call it again; use another tool or answer without it."
    )


class Tools:
    """Tools that count their calls, fail on cue and hang until released."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}
        self.release = threading.Event()
        self.cancelled: list[str] = []
        self.log: list[tuple[str, float]] = []

        def count(name: str) -> int:
            self.calls[name] = self.calls.get(name, 0) + 1
            return self.calls[name]

        @tool
        def flaky(text: str) -> str:
            """Fails twice, then works."""
            if count("flaky") < 3:
                raise ConnectionError("connection reset by peer")
            return f"flaky:{text}"

        @tool
        def broken(text: str) -> str:
            """Always fails: a tool of last resort."""
            count("broken")
            raise ToolException("the service is down")

        @tool(idempotent=False)
        def charge(text: str) -> str:
            """Charge the card (hangs)."""
            count("charge")
            self.release.wait(10)
            return "charged"

        @tool
        def hang(text: str) -> str:
            """Hangs until released."""
            count("hang")
            self.log.append(("hang started", time.monotonic()))
            self.release.wait(10)
            return "late"

        @tool
        def quick(text: str) -> str:
            """Answers at once."""
            count("quick")
            self.log.append(("quick done", time.monotonic()))
            return f"quick:{text}"

        @tool
        def crash(text: str) -> str:
            """Fails with a bug."""
            count("crash")
            raise ValueError("bug in the tool")

        @tool
        def counter(n: int) -> str:
            """Takes an integer."""
            count("counter")
            return f"n={n}"

        @tool
        async def async_hang(text: str) -> str:
            """An async tool that hangs."""
            count("async_hang")
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                self.cancelled.append("async_hang")
                raise
            return "late"

        self.by_name: dict[str, BaseTool] = {
            t.name: t for t in (flaky, broken, charge, hang, quick, crash, counter, async_hang)
        }

    def pick(self, *names: str) -> list[BaseTool]:
        return [self.by_name[n] for n in names]


def _join_call_threads() -> None:
    """Wait for the threads of timed-out sync calls (released by now): none outlives a test."""
    for thread in threading.enumerate():
        if thread.name == THREAD:
            thread.join(5)
    assert [t for t in threading.enumerate() if t.name == THREAD] == []


@pytest.fixture
def kit() -> Iterator[Tools]:
    """The tools; at the end the hung ones are released and their threads joined."""
    made = Tools()
    yield made
    made.release.set()
    _join_call_threads()


def _executor(
    kind: Kind,
    kit: Tools,
    script: list[Any],
    names: tuple[str, ...],
    *middleware: ToolPolicy,
    **kw: Any,
) -> tuple[AgentExecutor, ScriptedChatModel]:
    model = ScriptedChatModel(script)
    chosen = kit.pick(*names)
    executor = AgentExecutor(
        agent=kind.build(model, chosen),
        tools=chosen,
        middleware=list(middleware),
        return_intermediate_steps=True,
        **kw,
    )
    return executor, model


def _observations(result: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(a.tool, obs) for a, obs in result["intermediate_steps"]]


class Events(BaseCallbackHandler):
    """Records the tool policy's events."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        if name == EVENT:
            with self.lock:
                self.events.append(data)


# -- the cases, every agent type, sync and async ----------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_flaky_tool_succeeds_on_its_third_call(kind: Kind, mode: Mode, kit: Tools) -> None:
    script = [kind.call("flaky", "a"), kind.answer("done")]
    policy = ToolPolicy(retries=2, backoff=0)
    executor, _ = _executor(kind, kit, script, ("flaky", "quick"), policy)
    result = await run(executor, {"input": "q"}, mode)
    assert result["output"] == "done"
    assert _observations(result) == [("flaky", "flaky:a")]
    assert kit.calls == {"flaky": 3}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_non_idempotent_tool_that_times_out_is_called_once(
    kind: Kind, mode: Mode, kit: Tools
) -> None:
    script = [kind.call("charge", "10"), kind.answer("done")]
    policy = ToolPolicy(timeout=0.05, retries=3, backoff=0)
    executor, _ = _executor(kind, kit, script, ("charge", "quick"), policy, handle_tool_errors=True)
    result = await run(executor, {"input": "q"}, mode)
    assert _observations(result) == [
        ("charge", "Tool 'charge' timed out: no result within 0.05 s, so the call was abandoned")
    ]
    assert result["output"] == "done"
    assert kit.calls == {"charge": 1}


def _offered(kind: Kind, model: ScriptedChatModel, index: int, tool_name: str) -> bool:
    request = model.requests[index]
    if kind in TOOL_CALLING:
        return tool_name in request.tool_names
    description = {"broken": "Always fails: a tool of last resort.", "quick": "Answers at once."}
    return description[tool_name] in request.messages[0].text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_tool_that_keeps_failing_is_switched_off(
    kind: Kind, mode: Mode, kit: Tools
) -> None:
    script = [kind.call("broken", str(i)) for i in range(4)] + [kind.answer("done")]
    policy = ToolPolicy(disable_after=2)
    executor, model = _executor(kind, kit, script, ("broken", "quick"), policy)
    result = await run(executor, {"input": "q"}, mode)
    assert _observations(result) == [
        ("broken", "the service is down"),
        ("broken", "the service is down"),
        ("broken", _unavailable("broken", 2)),
        ("broken", _unavailable("broken", 2)),
    ]
    assert kit.calls == {"broken": 2}
    assert len(model.requests) == 5
    assert [_offered(kind, model, i, "broken") for i in range(5)] == [
        True,
        True,
        False,
        False,
        False,
    ]
    assert all(_offered(kind, model, i, "quick") for i in range(5))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", TOOL_CALLING, ids=[k.name for k in TOOL_CALLING])
async def test_a_hung_sync_tool_times_out_while_its_sibling_finishes(
    kind: Kind, mode: Mode, kit: Tools
) -> None:
    both = ScriptedChatModel.tool_calls(("hang", {"text": "a"}), ("quick", {"text": "b"}))
    policy = ToolPolicy(timeout=0.5)
    executor, _ = _executor(
        kind, kit, [both, kind.answer("done")], ("hang", "quick"), policy, handle_tool_errors=True
    )
    start = time.monotonic()
    result = await run(executor, {"input": "q"}, mode)
    elapsed = time.monotonic() - start
    assert _observations(result) == [
        ("hang", "Tool 'hang' timed out: no result within 0.5 s, so the call was abandoned"),
        ("quick", "quick:b"),
    ]
    assert 0.5 <= elapsed < 0.5 + 1.5
    # The sibling was not held up by the hung call: it finished long before the timeout.
    started = dict(kit.log)["hang started"]
    assert dict(kit.log)["quick done"] - started < 0.5
    assert kit.calls == {"hang": 1, "quick": 1}


async def test_an_async_tool_over_its_timeout_is_cancelled(kit: Tools) -> None:
    kind = KINDS[0]
    both = ScriptedChatModel.tool_calls(("async_hang", {"text": "a"}), ("quick", {"text": "b"}))
    policy = ToolPolicy(timeout=0.1)
    executor, _ = _executor(
        kind,
        kit,
        [both, kind.answer("done")],
        ("async_hang", "quick"),
        policy,
        handle_tool_errors=True,
    )
    result = await executor.ainvoke({"input": "q"})
    assert _observations(result) == [
        (
            "async_hang",
            "Tool 'async_hang' timed out: no result within 0.1 s, so the call was abandoned",
        ),
        ("quick", "quick:b"),
    ]
    assert kit.cancelled == ["async_hang"]


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_every_entry_point_retries_and_switches_off(
    kind: Kind, entry: Entry, kit: Tools
) -> None:
    script = [
        kind.call("flaky", "a"),
        kind.call("broken", "b"),
        kind.call("broken", "c"),
        kind.answer("done"),
    ]
    policy = ToolPolicy(retries=2, backoff=0, disable_after=1)
    executor, model = _executor(kind, kit, script, ("flaky", "broken", "quick"), policy)
    result = await drive(executor, {"input": "q"}, entry)
    assert result["output"] == "done"
    assert _observations(result) == [
        ("flaky", "flaky:a"),
        ("broken", "the service is down"),
        ("broken", _unavailable("broken", 1)),
    ]
    assert kit.calls == {"flaky": 3, "broken": 1}
    assert [_offered(kind, model, i, "broken") for i in range(4)] == [True, True, False, False]


# -- the kinds of errors ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_invalid_arguments_go_back_to_the_model_without_spending_a_retry(
    mode: Mode, kit: Tools
) -> None:
    kind = KINDS[0]
    bad = ScriptedChatModel.tool_call("counter", {"n": "x"})
    script = [bad, bad, ScriptedChatModel.tool_call("counter", {"n": 3}), kind.answer("done")]
    handler = Events()
    policy = ToolPolicy(retries=2, backoff=0, disable_after=1)
    executor, model = _executor(kind, kit, script, ("counter",), policy)
    result = await run(executor, {"input": "q"}, mode, {"callbacks": [handler]})
    invalid = (
        "Tool 'counter' got invalid arguments: 'n': Input should be a valid integer, unable to "
        "parse string as an integer (got 'x')"
    )
    assert _observations(result) == [("counter", invalid), ("counter", invalid), ("counter", "n=3")]
    # Not a failure of the tool: it stays offered, and nothing was retried.
    assert [r.tool_names for r in model.requests] == [["counter"]] * 4
    assert kit.calls == {"counter": 1}
    assert handler.events == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_invalid_arguments_on_every_agent_type(kind: Kind, mode: Mode, kit: Tools) -> None:
    executor, _ = _executor(
        kind, kit, [kind.call("counter", "x"), kind.answer("done")], ("counter",), ToolPolicy()
    )
    result = await run(executor, {"input": "q"}, mode)
    [(name, observation)] = _observations(result)
    assert name == "counter"
    assert observation.startswith("Tool 'counter' got invalid arguments: 'n': ")
    assert kit.calls == {}


@pytest.mark.parametrize("mode", MODES)
async def test_a_tool_exception_is_an_observation_even_when_tool_errors_raise(
    mode: Mode, kit: Tools
) -> None:
    kind = KINDS[0]
    policy = ToolPolicy(retries=3, backoff=0)
    executor, _ = _executor(
        kind, kit, [kind.call("broken", "a"), kind.answer("done")], ("broken",), policy
    )
    result = await run(executor, {"input": "q"}, mode)
    assert _observations(result) == [("broken", "the service is down")]
    assert kit.calls == {"broken": 1}  # its own failure: not retried


@pytest.mark.parametrize("mode", MODES)
async def test_any_other_error_is_raised_with_the_tool_and_iteration(
    mode: Mode, kit: Tools
) -> None:
    kind = KINDS[0]
    script = [ScriptedChatModel.tool_call("crash", {"text": "a"}, id="c1"), kind.answer("x")]
    policy = ToolPolicy(retries=3, backoff=0, disable_after=1)
    executor, _ = _executor(kind, kit, script, ("crash",), policy)
    with pytest.raises(ValueError) as info:
        await run(executor, {"input": "q"}, mode)
    assert str(info.value) == "bug in the tool"
    assert info.value.__notes__ == [
        "AgentExecutor iteration 1: tool 'crash' failed (tool call 'c1')."
    ]
    assert kit.calls == {"crash": 1}


@pytest.mark.parametrize("mode", MODES)
async def test_a_passing_failure_left_after_the_retries_is_raised(mode: Mode, kit: Tools) -> None:
    kind = KINDS[0]
    kit.calls["flaky"] = -10  # it now fails many more times than the retries
    script = [ScriptedChatModel.tool_call("flaky", {"text": "a"}, id="c1"), kind.answer("x")]
    executor, _ = _executor(kind, kit, script, ("flaky",), ToolPolicy(retries=2, backoff=0))
    with pytest.raises(ConnectionError) as info:
        await run(executor, {"input": "q"}, mode)
    assert str(info.value) == "connection reset by peer"
    assert info.value.__notes__ == [
        "ToolPolicy: 'flaky' was not called again: 3 attempts failed (retries=2).",
        "AgentExecutor iteration 1: tool 'flaky' failed (tool call 'c1').",
    ]
    assert kit.calls == {"flaky": -7}


@pytest.mark.parametrize("mode", MODES)
async def test_with_handle_tool_errors_a_left_failure_is_the_observation(
    mode: Mode, kit: Tools
) -> None:
    kind = KINDS[0]
    kit.calls["flaky"] = -10
    executor, _ = _executor(
        kind,
        kit,
        [kind.call("flaky", "a"), kind.answer("done")],
        ("flaky",),
        ToolPolicy(retries=1, backoff=0),
        handle_tool_errors=True,
    )
    result = await run(executor, {"input": "q"}, mode)
    assert _observations(result) == [("flaky", "connection reset by peer")]
    assert result["output"] == "done"
    assert kit.calls == {"flaky": -8}


@pytest.mark.parametrize("mode", MODES)
async def test_a_timeout_without_handle_tool_errors_ends_the_run(mode: Mode, kit: Tools) -> None:
    kind = KINDS[0]
    script = [ScriptedChatModel.tool_call("hang", {"text": "a"}, id="c1"), kind.answer("x")]
    executor, _ = _executor(kind, kit, script, ("hang",), ToolPolicy(timeout=0.05))
    with pytest.raises(ToolTimeoutError) as info:
        await run(executor, {"input": "q"}, mode)
    assert str(info.value) == (
        "Tool 'hang' timed out: no result within 0.05 s, so the call was abandoned"
    )
    assert isinstance(info.value, TimeoutError)
    assert (info.value.tool_name, info.value.timeout) == ("hang", 0.05)
    assert info.value.__notes__ == [
        "AgentExecutor iteration 1: tool 'hang' failed (tool call 'c1')."
    ]


# -- retrying safely ----------------------------------------------------------------------------


def _scripted_tool(
    name: str, errors: list[Exception], *, idempotent: bool
) -> tuple[BaseTool, list[int]]:
    """A tool that raises `errors` in turn, then answers; and the list of its calls."""
    calls: list[int] = []

    def run_it(text: str) -> str:
        calls.append(1)
        if len(calls) <= len(errors):
            raise errors[len(calls) - 1]
        return f"{name}:{text}"

    made = StructuredTool.from_function(run_it, name=name, description=f"The {name} tool.")
    made.idempotent = idempotent
    return made, calls


def _script_agent_executor(made: BaseTool, *middleware: ToolPolicy, **kw: Any) -> AgentExecutor:
    agent = ScriptAgent(act(made.name, {"text": "a"}), finish("done"))
    return AgentExecutor(
        agent=agent,
        tools=[made],
        middleware=list(middleware),
        return_intermediate_steps=True,
        handle_tool_errors=True,
        **kw,
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("error", "calls"),
    [
        (ToolRetryableError("busy", before_side_effect=True), 2),
        (ToolRetryableError("busy"), 1),
        (ConnectionResetError("reset"), 1),
        (TimeoutError("slow"), 1),
        (ProviderConnectionError("unreachable", provider="openai"), 1),
    ],
    ids=["before-side-effect", "retryable", "reset", "timeout", "provider"],
)
async def test_a_non_idempotent_tool_is_retried_only_before_its_effect(
    mode: Mode, error: Exception, calls: int
) -> None:
    made, ran = _scripted_tool("pay", [error], idempotent=False)
    executor = _script_agent_executor(made, ToolPolicy(retries=3, backoff=0))
    result = await run(executor, {"input": "q"}, mode)
    assert len(ran) == calls
    expected = "pay:a" if calls == 2 else str(error)
    assert [obs for _, obs in result["intermediate_steps"]] == [expected]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "error",
    [
        ToolRetryableError("busy"),
        ConnectionResetError("reset"),
        TimeoutError("slow"),
        ProviderConnectionError("unreachable", provider="openai"),
    ],
    ids=["retryable", "reset", "timeout", "provider"],
)
async def test_an_idempotent_tool_is_retried_after_every_default_kind(
    mode: Mode, error: Exception
) -> None:
    made, ran = _scripted_tool("lookup", [error, error], idempotent=True)
    executor = _script_agent_executor(made, ToolPolicy(retries=2, backoff=0))
    result = await run(executor, {"input": "q"}, mode)
    assert len(ran) == 3
    assert [obs for _, obs in result["intermediate_steps"]] == ["lookup:a"]


@pytest.mark.parametrize("mode", MODES)
async def test_retry_on_is_a_setting(mode: Mode) -> None:
    made, ran = _scripted_tool("lookup", [KeyError("k"), ConnectionError("c")], idempotent=True)
    executor = _script_agent_executor(made, ToolPolicy(retries=3, backoff=0, retry_on=KeyError))
    result = await run(executor, {"input": "q"}, mode)
    assert len(ran) == 2  # KeyError retried; ConnectionError is no longer in the list
    assert [obs for _, obs in result["intermediate_steps"]] == ["c"]


@pytest.mark.parametrize("mode", MODES)
async def test_backoff_doubles_and_an_error_may_ask_for_longer(mode: Mode) -> None:
    errors: list[Exception] = [
        ConnectionError("a"),
        ConnectionError("b"),
        ToolRetryableError("c", retry_after=0.05),
    ]
    made, ran = _scripted_tool("lookup", errors, idempotent=True)
    handler = Events()
    executor = _script_agent_executor(made, ToolPolicy(retries=3, backoff=0.01))
    start = time.monotonic()
    await run(executor, {"input": "q"}, mode, {"callbacks": [handler]})
    assert time.monotonic() - start >= 0.01 + 0.02 + 0.05
    assert [(e["action"], e["attempt"], e["delay"]) for e in handler.events] == [
        ("retry", 1, 0.01),
        ("retry", 2, 0.02),
        ("retry", 3, 0.05),
    ]
    assert len(ran) == 4


@pytest.mark.parametrize("mode", MODES)
async def test_a_backoff_function_is_given_the_retry_number(mode: Mode) -> None:
    asked: list[int] = []

    def backoff(retry: int) -> float:
        asked.append(retry)
        return 0.0

    made, ran = _scripted_tool("lookup", [ConnectionError("x")] * 3, idempotent=True)
    executor = _script_agent_executor(made, ToolPolicy(retries=3, backoff=backoff))
    await run(executor, {"input": "q"}, mode)
    assert asked == [1, 2, 3]
    assert len(ran) == 4


@pytest.mark.parametrize("mode", MODES)
async def test_no_retry_starts_when_the_time_limit_would_strike_first(mode: Mode) -> None:
    made, ran = _scripted_tool("lookup", [ConnectionError("x")] * 3, idempotent=True)
    executor = AgentExecutor(
        agent=ScriptAgent(act("lookup", {"text": "a"}), finish("done")),
        tools=[made],
        middleware=[ToolPolicy(retries=3, backoff=5)],
        max_execution_time=2,
    )
    with pytest.raises(ConnectionError) as info:
        await run(executor, {"input": "q"}, mode)
    assert info.value.__notes__[0] == (
        "ToolPolicy: 'lookup' was not called again: the run's time limit leaves no time for "
        "another attempt."
    )
    assert len(ran) == 1


# -- scope, stacking, state ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_a_policy_governs_only_the_tools_it_names(mode: Mode, kit: Tools) -> None:
    kind = KINDS[0]
    both = ScriptedChatModel.tool_calls(("flaky", {"text": "a"}), ("broken", {"text": "b"}))
    policy = ToolPolicy(retries=2, backoff=0, tools=["flaky"])
    executor, _ = _executor(
        kind,
        kit,
        [both, kind.answer("done")],
        ("flaky", "broken"),
        policy,
        handle_tool_errors=True,
    )
    result = await run(executor, {"input": "q"}, mode)
    # broken is not governed: its ToolException meets handle_tool_errors as usual.
    assert _observations(result) == [("flaky", "flaky:a"), ("broken", "the service is down")]
    assert kit.calls == {"flaky": 3, "broken": 1}


@pytest.mark.parametrize("mode", MODES)
async def test_stacked_policies_an_outer_retry_around_an_inner_timeout(mode: Mode) -> None:
    release = threading.Event()
    calls: list[int] = []

    def slow_once(text: str) -> str:
        calls.append(1)
        if len(calls) == 1:
            release.wait(10)
        return f"ok:{text}"

    made = StructuredTool.from_function(slow_once, name="slow_once", description="Slow once.")
    handler = Events()
    executor = _script_agent_executor(
        made,
        ToolPolicy(retries=2, backoff=0),
        ToolPolicy(timeout=0.05, tools=["slow_once"]),
    )
    try:
        result = await run(executor, {"input": "q"}, mode, {"callbacks": [handler]})
    finally:
        release.set()
        _join_call_threads()
    assert [obs for _, obs in result["intermediate_steps"]] == ["ok:a"]
    assert len(calls) == 2
    assert [(e["action"], e["attempt"]) for e in handler.events] == [("timeout", 1), ("retry", 1)]


@pytest.mark.parametrize("mode", MODES)
async def test_each_run_counts_its_own_failures(mode: Mode, kit: Tools) -> None:
    kind = KINDS[0]
    # Every run's model calls broken twice, then answers: one failure each, never switched off.
    script = [kind.call("broken", "a"), kind.answer("done")] * 6
    model = ScriptedChatModel(script)
    chosen = kit.pick("broken")
    executor = AgentExecutor(
        agent=kind.build(model, chosen),
        tools=chosen,
        middleware=[ToolPolicy(disable_after=2)],
        return_intermediate_steps=True,
        max_iterations=2,
    )
    inputs = [{"input": str(i)} for i in range(6)]
    if mode == "sync":
        results = executor.batch(inputs, {"max_concurrency": 1})
    else:
        results = await executor.abatch(inputs, {"max_concurrency": 1})
    assert [_observations(r) for r in results] == [[("broken", "the service is down")]] * 6
    assert kit.calls == {"broken": 6}


@pytest.mark.parametrize("mode", MODES)
async def test_the_failure_counts_are_plain_data_in_the_saved_run(mode: Mode, kit: Tools) -> None:
    kind = KINDS[0]
    script = [kind.call("broken", str(i)) for i in range(3)] + [kind.answer("done")]
    saver = InMemoryCheckpointer()
    executor, _ = _executor(
        kind, kit, script, ("broken", "quick"), ToolPolicy(disable_after=2), checkpointer=saver
    )
    config: Any = {"configurable": {"thread_id": "t1"}}
    await run(executor, {"input": "q"}, mode, config)
    text = saver.get_json("t1")
    assert text is not None
    assert json.loads(text)["middleware"]["ToolPolicy"] == {
        "failures": {"broken": 2},
        "disabled": ["broken"],
        "journal": [],
    }


@pytest.mark.parametrize("mode", MODES)
async def test_an_agent_that_cannot_be_rebuilt_still_has_the_calls_answered(mode: Mode) -> None:
    made, ran = _scripted_tool("lookup", [ToolException("down")] * 5, idempotent=True)
    agent = ScriptAgent(*[act("lookup", {"text": str(i)}) for i in range(3)], finish("done"))
    executor = AgentExecutor(
        agent=agent,
        tools=[made],
        middleware=[ToolPolicy(disable_after=1)],
        return_intermediate_steps=True,
    )
    result = await run(executor, {"input": "q"}, mode)
    assert [obs for _, obs in result["intermediate_steps"]] == [
        "down",
        _unavailable("lookup", 1),
        _unavailable("lookup", 1),
    ]
    assert len(ran) == 1


@pytest.mark.parametrize("mode", MODES)
async def test_within_one_step_a_call_after_the_budget_is_answered(mode: Mode) -> None:
    made, ran = _scripted_tool("lookup", [ToolException("down")] * 5, idempotent=True)
    step = [act("lookup", {"text": str(i)}) for i in range(3)]
    executor = AgentExecutor(
        agent=ScriptAgent(step, finish("done")),
        tools=[made],
        middleware=[ToolPolicy(disable_after=2)],
        return_intermediate_steps=True,
        max_tool_concurrency=1,
    )
    result = await run(executor, {"input": "q"}, mode)
    assert [obs for _, obs in result["intermediate_steps"]] == [
        "down",
        "down",
        _unavailable("lookup", 2),
    ]
    assert len(ran) == 2


@pytest.mark.parametrize("mode", MODES)
async def test_a_call_to_an_unknown_tool_passes_through(mode: Mode, kit: Tools) -> None:
    kind = KINDS[0]
    policy = ToolPolicy(retries=2, disable_after=1)
    executor, _ = _executor(
        kind, kit, [kind.call("nope", "a"), kind.answer("done")], ("quick",), policy
    )
    result = await run(executor, {"input": "q"}, mode)
    assert _observations(result) == [("nope", "nope is not a valid tool, try one of [quick].")]


# -- events and spans ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_retries_give_ups_timeouts_and_switch_offs_reach_the_callbacks(
    mode: Mode, kit: Tools
) -> None:
    kind = KINDS[0]
    kit.calls["flaky"] = -10
    script = [
        ScriptedChatModel.tool_call("flaky", {"text": "a"}),
        ScriptedChatModel.tool_call("hang", {"text": "b"}),
        ScriptedChatModel.tool_call("flaky", {"text": "c"}),
        kind.answer("done"),
    ]
    handler = Events()
    policy = ToolPolicy(timeout=0.2, retries=1, backoff=0, disable_after=1, tools=["flaky"])
    executor, _ = _executor(
        kind,
        kit,
        script,
        ("flaky", "hang"),
        policy,
        ToolPolicy(timeout=0.05, tools=["hang"], name="hang_policy"),
        handle_tool_errors=True,
    )
    result = await run(executor, {"input": "q"}, mode, {"callbacks": [handler]})
    assert [obs for _, obs in result["intermediate_steps"]] == [
        "connection reset by peer",
        "Tool 'hang' timed out: no result within 0.05 s, so the call was abandoned",
        _unavailable("flaky", 1),
    ]
    assert handler.events == [
        {
            "action": "retry",
            "tool": "flaky",
            "iteration": 1,
            "attempt": 1,
            "error": "ConnectionError",
            "delay": 0.0,
            "message": "'flaky' failed (ConnectionError: connection reset by peer); attempt 2 "
            "of 2 in 0 s",
        },
        {
            "action": "give_up",
            "tool": "flaky",
            "iteration": 1,
            "attempt": 2,
            "error": "ConnectionError",
            "message": "'flaky' failed (ConnectionError: connection reset by peer) and is not "
            "called again: 2 attempts failed (retries=1)",
        },
        {
            "action": "disable",
            "tool": "flaky",
            "iteration": 1,
            "failures": 1,
            "message": "'flaky' failed once in this run (disable_after=1): it is switched "
            "off and no longer offered to the model",
        },
        {
            "action": "timeout",
            "tool": "hang",
            "iteration": 2,
            "attempt": 1,
            "timeout": 0.05,
            "message": "'hang' got no result within 0.05 s (attempt 1)",
        },
        {
            "action": "unavailable",
            "tool": "flaky",
            "iteration": 3,
            "message": "'flaky' is switched off in this run; the call did not run",
        },
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_retries_are_span_events_of_the_agent_span(mode: Mode) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    handler = OpenTelemetryCallbackHandler(provider, capture_content=True)
    made, _ = _scripted_tool("lookup", [ConnectionError("reset")], idempotent=True)
    executor = _script_agent_executor(made, ToolPolicy(retries=1, backoff=0))
    await run(executor, {"input": "q"}, mode, {"callbacks": [handler]})
    spans = exporter.get_finished_spans()
    [agent] = [s for s in spans if s.name == "invoke_agent AgentExecutor"]
    events = [
        (e.name, json.loads(str((e.attributes or {})["leanchain.event.data"])))
        for e in agent.events
    ]
    assert [(name, data["action"], data["attempt"], data["error"]) for name, data in events] == [
        (EVENT, "retry", 1, "ConnectionError")
    ]
    # Each attempt is a tool span of its own: the first failed, the second answered.
    tool_spans = [s for s in spans if s.name == "execute_tool lookup"]
    assert [s.status.status_code.name for s in tool_spans] == ["ERROR", "UNSET"]


# -- settings and the idempotent flag -----------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"timeout": 0}, "ToolPolicy timeout must be a number > 0, got 0"),
        ({"timeout": "1"}, "ToolPolicy timeout must be a number > 0, got '1'"),
        ({"retries": -1}, "ToolPolicy retries must be an int >= 0, got -1"),
        ({"retries": True}, "ToolPolicy retries must be an int >= 0, got True"),
        ({"backoff": -0.5}, "ToolPolicy backoff must be a number >= 0, got -0.5"),
        ({"disable_after": 0}, "ToolPolicy disable_after must be an int >= 1, got 0"),
        (
            {"retry_on": [ValueError, "x"]},
            "ToolPolicy retry_on must be an exception class or a tuple of them, got "
            "[<class 'ValueError'>, 'x']",
        ),
        (
            {"retry_on": ()},
            "ToolPolicy retry_on must be an exception class or a tuple of them, got ()",
        ),
        (
            {"tools": "search"},
            "ToolPolicy tools must be a list of tool names (or None: every tool), got 'search'",
        ),
        (
            {"tools": []},
            "ToolPolicy tools must be a list of tool names (or None: every tool), got []",
        ),
    ],
)
def test_bad_settings_fail_when_built(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(AgentConfigurationError) as info:
        ToolPolicy(**kwargs)
    assert str(info.value) == message


def test_a_named_tool_the_executor_lacks_fails_when_the_executor_is_built(kit: Tools) -> None:
    with pytest.raises(AgentConfigurationError) as info:
        _executor(KINDS[0], kit, [], ("quick",), ToolPolicy(tools=["quik"]))
    assert str(info.value) == (
        "ToolPolicy names tools the executor does not have: ['quik'] (it has ['quick'])"
    )


def test_the_defaults_and_the_repr() -> None:
    policy = ToolPolicy()
    assert (policy.timeout, policy.retries, policy.backoff, policy.disable_after) == (
        None,
        0,
        0.5,
        None,
    )
    assert policy.retry_on == DEFAULT_RETRY_ON
    expected = (TimeoutError, ConnectionError, ProviderConnectionError, ToolRetryableError)
    assert expected == DEFAULT_RETRY_ON
    assert issubclass(ToolTimeoutError, TimeoutError)
    assert repr(policy) == "ToolPolicy()"
    assert repr(ToolPolicy(timeout=2, retries=1, disable_after=3, tools=["b", "a"])) == (
        "ToolPolicy(timeout=2, retries=1, disable_after=3, tools=['a', 'b'])"
    )


def test_the_idempotent_flag() -> None:
    @tool
    def read(text: str) -> str:
        """Reads."""
        return text

    @tool("send", idempotent=False)
    def send(text: str) -> str:
        """Sends."""
        return text

    class Pay(BaseTool):
        name: str = "pay"
        description: str = "Pays."
        idempotent: bool = False

        def _run(self, text: str) -> str:
            return text

    assert (read.idempotent, send.idempotent, Pay().idempotent) == (True, False, False)
    assert Pay(idempotent=True).idempotent is True
    assert BaseTool.idempotent is True

    @tool("shout", infer_schema=False, idempotent=False)
    def shout(text: str) -> str:
        """Shouts."""
        return text.upper()

    assert (type(shout).__name__, shout.idempotent) == ("Tool", False)


def test_a_retryable_error_carries_its_hints() -> None:
    error = ToolRetryableError("busy", before_side_effect=True, retry_after=2.0)
    assert (str(error), error.before_side_effect, error.retry_after) == ("busy", True, 2.0)
    plain = ToolRetryableError()
    assert (str(plain), plain.before_side_effect, plain.retry_after) == ("", False, None)
