"""`LoopGuard`: repeats, cycles and no progress are warned about, then stopped; polling is not."""

from __future__ import annotations

from typing import Any

import pytest
from middleware_support import ENTRIES, Entry, drive
from test_executor_agents import IDS, KINDS, Kind
from test_executor_support import MODES, Mode, run

from leanchain.agents import AgentExecutor
from leanchain.agents.middleware import LoopGuard
from leanchain.callbacks import BaseCallbackHandler
from leanchain.errors import AgentConfigurationError, AgentLoopError
from leanchain.language_models import FunctionChatModel, ScriptedChatModel
from leanchain.tools import BaseTool, tool

REPEAT_WARNING = (
    "\n\n[LoopGuard] You already called search with these arguments and got the same result "
    "('nothing'). Change your approach: use different arguments or another tool, or give your "
    "final answer."
)
REPEAT_STOP = (
    "Agent stopped by LoopGuard: the agent called search 3 times with the same arguments and "
    "got the same result."
)


def _tools() -> list[BaseTool]:
    @tool
    def search(text: str) -> str:
        """Search for the text."""
        return "nothing"

    @tool
    def lookup(text: str) -> str:
        """Look the text up."""
        return "nothing here either"

    polls = iter(range(1000))

    @tool
    def status(text: str) -> str:
        """The job's status."""
        n = next(polls)
        return "done" if n >= 4 else f"pending ({n})"

    @tool
    def empty(text: str) -> str:
        """Returns nothing."""
        return ""

    return [search, lookup, status, empty]


def _executor(kind: Kind, script: list[Any], **kwargs: Any) -> tuple[AgentExecutor, Any]:
    model = ScriptedChatModel(script)
    tool_list = _tools()
    guard = kwargs.pop("guard", None) or LoopGuard()
    executor = AgentExecutor(
        agent=kind.build(model, tool_list),
        tools=tool_list,
        middleware=[guard],
        return_intermediate_steps=True,
        **kwargs,
    )
    return executor, model


def _observations(result: dict[str, Any]) -> list[Any]:
    return [obs for _, obs in result["intermediate_steps"]]


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_repeated_call_is_warned_then_stopped(kind: Kind, entry: Entry) -> None:
    script = [kind.call("search", "x")] * 10 + [kind.answer("never")]
    executor, model = _executor(kind, script)
    result = await drive(executor, {"input": "q"}, entry)
    assert result["output"] == REPEAT_STOP
    assert result["stopped_reason"] == "loop_guard"
    assert _observations(result) == ["nothing", "nothing" + REPEAT_WARNING, "nothing"]
    assert len(model.requests) == 3  # 15 without the guard: 12 model calls saved
    # The warning reached the model with the second result, and only then.
    seen = ["\n".join(m.text for m in request.messages) for request in model.requests]
    assert ["[LoopGuard]" in text for text in seen] == [False, False, True]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_warned_agent_that_changes_course_finishes(kind: Kind, mode: Mode) -> None:
    script = [kind.call("search", "x"), kind.call("search", "x"), kind.answer("fine")]
    executor, _ = _executor(kind, script)
    result = await run(executor, {"input": "q"}, mode)
    assert result["output"] == "fine"
    assert "stopped_reason" not in result
    assert _observations(result) == ["nothing", "nothing" + REPEAT_WARNING]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_polling_whose_answer_changes_is_not_a_loop(kind: Kind, mode: Mode) -> None:
    script = [kind.call("status", "job")] * 5 + [kind.answer("job done")]
    executor, _ = _executor(kind, script)
    result = await run(executor, {"input": "q"}, mode)
    assert result["output"] == "job done"
    assert _observations(result) == [
        "pending (0)",
        "pending (1)",
        "pending (2)",
        "pending (3)",
        "done",
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_cycle_is_named_and_stopped(kind: Kind, mode: Mode) -> None:
    pair = [kind.call("search", "x"), kind.call("lookup", "y")]
    guard = LoopGuard(repeat_limit=5)
    executor, model = _executor(kind, pair * 5 + [kind.answer("never")], guard=guard)
    result = await run(executor, {"input": "q"}, mode)
    native = kind.garbage is None  # native tool calls carry {"text": ...}, text agents a str
    search, lookup = (
        ("search(text='x')", "lookup(text='y')")
        if native
        else (
            "search('x')",
            "lookup('y')",
        )
    )
    warning = (
        f"\n\n[LoopGuard] You keep repeating the same calls ({search} → {lookup}) and getting "
        "the same results. Change your approach: use different arguments or another tool, or "
        "give your final answer."
    )
    assert _observations(result) == [
        "nothing",
        "nothing here either",
        "nothing",
        "nothing here either" + warning,
        "nothing",  # still cycling (lookup → search): stopped
    ]
    assert result["output"] == (
        f"Agent stopped by LoopGuard: the agent kept repeating the calls {lookup} → {search} "
        "with the same results."
    )
    assert len(model.requests) == 5


@pytest.mark.parametrize("mode", MODES)
async def test_no_progress_counts_empty_results_from_any_call(mode: Mode) -> None:
    kind = KINDS[0]
    script = [kind.call("empty", str(i)) for i in range(6)] + [kind.answer("never")]
    executor, _ = _executor(kind, script)
    result = await run(executor, {"input": "q"}, mode)
    warning = (
        "\n\n[LoopGuard] The last 3 results were the same or empty: you are making no progress. "
        "Change your approach, or give your final answer."
    )
    assert _observations(result) == ["", "", warning, ""]
    assert result["output"] == (
        "Agent stopped by LoopGuard: the agent's last 4 results were the same or empty."
    )


@pytest.mark.parametrize("mode", MODES)
async def test_exempt_tools_are_never_counted(mode: Mode) -> None:
    kind = KINDS[0]
    script = [kind.call("search", "x")] * 4 + [kind.answer("ok")]
    executor, _ = _executor(kind, script, guard=LoopGuard(exempt_tools=["search"]))
    result = await run(executor, {"input": "q"}, mode)
    assert result["output"] == "ok"
    assert _observations(result) == ["nothing"] * 4


@pytest.mark.parametrize("mode", MODES)
async def test_arguments_compare_as_normalised_json(mode: Mode) -> None:
    kind = KINDS[0]
    script = [
        ScriptedChatModel.tool_call("search", {"text": "x", "n": 1}),
        ScriptedChatModel.tool_call("search", {"n": 1, "text": "x"}),
        kind.answer("ok"),
    ]
    executor, _ = _executor(kind, script)
    result = await run(executor, {"input": "q"}, mode)
    assert result["intermediate_steps"][1][1].endswith(REPEAT_WARNING)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_raise_carries_the_steps(kind: Kind, mode: Mode) -> None:
    script = [kind.call("search", "x")] * 5
    executor, _ = _executor(kind, script, guard=LoopGuard(on_loop="raise"))
    with pytest.raises(AgentLoopError) as info:
        await run(executor, {"input": "q"}, mode)
    assert str(info.value) == (
        "LoopGuard stopped the run: the agent called search 3 times with the same arguments and "
        "got the same result."
    )
    assert info.value.kind == "repeat"
    assert [(a.tool, obs) for a, obs in info.value.steps] == [
        ("search", "nothing"),
        ("search", "nothing" + REPEAT_WARNING),
        ("search", "nothing"),
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_generate_makes_one_final_answer_call(kind: Kind, mode: Mode) -> None:
    script = [kind.call("search", "x")] * 3 + [kind.answer("best guess")]
    executor, model = _executor(kind, script, guard=LoopGuard(on_loop="generate"))
    result = await run(executor, {"input": "q"}, mode)
    assert result["output"] == "best guess"
    assert result["stopped_reason"] == "loop_guard"
    assert len(model.requests) == 4


def test_generate_needs_an_agent_that_can_write_a_final_answer() -> None:
    with pytest.raises(AgentConfigurationError) as info:
        AgentExecutor(
            agent=lambda inputs: None, tools=_tools(), middleware=[LoopGuard(on_loop="generate")]
        )
    assert str(info.value) == (
        "LoopGuard(on_loop='generate') needs an agent that can write a final answer (one built "
        "by a create_*_agent factory); use 'force' or 'raise' with this agent"
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"repeat_limit": 1}, "LoopGuard repeat_limit must be an int >= 2, got 1"),
        ({"warnings": -1}, "LoopGuard warnings must be an int >= 0, got -1"),
        ({"no_progress_limit": True}, "LoopGuard no_progress_limit must be an int >= 2, got True"),
        (
            {"on_loop": "explode"},
            "LoopGuard on_loop must be 'force', 'generate' or 'raise', got 'explode'",
        ),
    ],
)
def test_bad_settings_fail_when_built(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(AgentConfigurationError) as info:
        LoopGuard(**kwargs)
    assert str(info.value) == message


class _Events(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self.events.append((name, data))


@pytest.mark.parametrize("mode", MODES)
async def test_warnings_and_stops_reach_the_callbacks(mode: Mode) -> None:
    kind = KINDS[0]
    executor, _ = _executor(kind, [kind.call("search", "x")] * 5)
    handler = _Events()
    await run(executor, {"input": "q"}, mode, {"callbacks": [handler]})
    assert handler.events == [
        (
            "leanchain.loop_guard",
            {
                "action": "warn",
                "kind": "repeat",
                "message": REPEAT_WARNING.removeprefix("\n\n[LoopGuard] "),
                "tool": "search",
                "iteration": 2,
            },
        ),
        (
            "leanchain.loop_guard",
            {
                "action": "stop",
                "kind": "repeat",
                "message": REPEAT_STOP.removeprefix("Agent stopped by LoopGuard: "),
                "tool": "search",
                "iteration": 3,
            },
        ),
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_concurrent_runs_on_one_executor_keep_their_own_counts(mode: Mode) -> None:
    def reply(messages: list[Any], request: Any) -> Any:
        # Every run repeats its call once (a warning, not a stop), then answers.
        if sum(m.type == "tool" for m in messages) < 2:
            return FunctionChatModel.tool_call("search", {"text": "x"})
        return "ok"

    tool_list = _tools()
    executor = AgentExecutor(
        agent=KINDS[0].build(FunctionChatModel(reply, delay=0.01), tool_list),
        tools=tool_list,
        middleware=[LoopGuard()],
    )
    inputs = [{"input": str(i)} for i in range(6)]
    if mode == "sync":
        results = executor.batch(inputs, {"max_concurrency": 6})
    else:
        results = await executor.abatch(inputs)
    # Counts shared between runs would have stopped some of them at their second call.
    assert [r["output"] for r in results] == ["ok"] * 6
