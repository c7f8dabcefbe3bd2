"""`UsageLimits`: requests, tool calls, tokens and cost capped per run, no callbacks needed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from middleware_support import ENTRIES, Entry, drive
from test_executor_agents import IDS, KINDS, Kind
from test_executor_support import MODES, Mode, run

from leanchain.agents import AgentExecutor
from leanchain.agents.middleware import LoopGuard, UsageLimits
from leanchain.errors import AgentConfigurationError, UsageLimitExceeded
from leanchain.language_models import FunctionChatModel, ScriptedChatModel
from leanchain.messages import AIMessage, UsageMetadata, count_tokens_approximately
from leanchain.tools import BaseTool, tool


def _usage(tokens_in: int, tokens_out: int) -> UsageMetadata:
    return {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "total_tokens": tokens_in + tokens_out,
    }


class _Counted:
    """A tool set that counts how often each tool ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []

        @tool
        def search(text: str) -> str:
            """Search for the text."""
            self.ran.append(f"search:{text}")
            return f"found {text}"

        @tool
        def fetch(text: str) -> str:
            """Fetch the page."""
            self.ran.append(f"fetch:{text}")
            return f"page {text}"

        self.tools: list[BaseTool] = [search, fetch]


def _executor(
    kind: Kind, script: list[Any], limits: UsageLimits, **kwargs: Any
) -> tuple[AgentExecutor, ScriptedChatModel, _Counted]:
    model = ScriptedChatModel(script)
    counted = _Counted()
    executor = AgentExecutor(
        agent=kind.build(model, counted.tools),
        tools=counted.tools,
        middleware=[limits],
        return_intermediate_steps=True,
        **kwargs,
    )
    return executor, model, counted


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_request_limit_raises_with_the_work_so_far(kind: Kind, mode: Mode) -> None:
    script = [kind.call("search", str(i)) for i in range(10)]
    executor, model, counted = _executor(kind, script, UsageLimits(request_limit=2))
    with pytest.raises(UsageLimitExceeded) as info:
        await run(executor, {"input": "q"}, mode)
    assert str(info.value) == "UsageLimits: the run reached request_limit=2 (2 used)"
    assert info.value.limit == "request_limit"
    assert info.value.usage["requests"] == 2
    assert info.value.usage["tool_calls"] == 2
    assert [(a.tool, obs) for a, obs in info.value.steps] == [
        ("search", "found 0"),
        ("search", "found 1"),
    ]
    assert len(model.requests) == 2
    assert counted.ran == ["search:0", "search:1"]


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_request_limit_force_ends_the_run_gracefully(kind: Kind, entry: Entry) -> None:
    script = [kind.call("search", str(i)) for i in range(10)]
    limits = UsageLimits(request_limit=3, on_exceed="force", include_usage=True)
    executor, model, _ = _executor(kind, script, limits)
    result = await drive(executor, {"input": "q"}, entry)
    assert result["output"] == (
        "Agent stopped by UsageLimits: the run reached request_limit=3 (3 used)"
    )
    assert result["stopped_reason"] == "usage_limit"
    assert result["usage"]["requests"] == 3
    assert result["usage"]["tool_calls"] == 3
    assert len(result["intermediate_steps"]) == 3
    assert len(model.requests) == 3


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_generate_keeps_one_request_for_the_final_answer(kind: Kind, mode: Mode) -> None:
    script = [kind.call("search", str(i)) for i in range(2)] + [kind.answer("summary")]
    limits = UsageLimits(request_limit=3, on_exceed="generate", include_usage=True)
    executor, model, _ = _executor(kind, script, limits)
    result = await run(executor, {"input": "q"}, mode)
    assert result["output"] == "summary"
    assert result["stopped_reason"] == "usage_limit"
    assert result["usage"]["requests"] == 3  # two planning calls and the final answer
    assert len(model.requests) == 3


@pytest.mark.parametrize("mode", MODES)
async def test_a_tool_call_limit_is_never_overshot(mode: Mode) -> None:
    kind = KINDS[0]
    two = ScriptedChatModel.tool_calls(("search", {"text": "a"}), ("search", {"text": "b"}))
    script = [
        two,
        ScriptedChatModel.tool_calls(("search", {"text": "c"}), ("fetch", {"text": "d"})),
    ]
    limits = UsageLimits(tool_calls_limit=3, on_exceed="force")
    executor, model, counted = _executor(kind, [*script, kind.answer("x")], limits)
    result = await run(executor, {"input": "q"}, mode)
    assert counted.ran == ["search:a", "search:b", "search:c"]
    assert [obs for _, obs in result["intermediate_steps"]] == [
        "found a",
        "found b",
        "found c",
        "Not run: this call would exceed UsageLimits tool_calls_limit=3. No more tool calls can "
        "be made in this run.",
    ]
    assert result["output"] == (
        "Agent stopped by UsageLimits: the run reached tool_calls_limit=3 (3 used)"
    )
    assert len(model.requests) == 2


@pytest.mark.parametrize("mode", MODES)
async def test_per_tool_limits(mode: Mode) -> None:
    kind = KINDS[0]
    script = [kind.call("fetch", "1"), kind.call("search", "2"), kind.call("fetch", "3")]
    limits = UsageLimits(tool_call_limits={"fetch": 1})
    executor, _, counted = _executor(kind, [*script, kind.answer("x")], limits)
    with pytest.raises(UsageLimitExceeded) as info:
        await run(executor, {"input": "q"}, mode)
    assert str(info.value) == ("UsageLimits: the run reached tool_call_limits['fetch']=1 (2 used)")
    assert counted.ran == ["fetch:1", "search:2"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_token_limits_overshoot_by_one_call_at_most(kind: Kind, mode: Mode) -> None:
    def call(i: int) -> Any:
        reply = kind.call("search", str(i))
        if isinstance(reply, str):
            reply = AIMessage(reply)
        return reply.model_copy(update={"usage_metadata": _usage(8, 2)})

    limits = UsageLimits(total_tokens_limit=25, on_exceed="force", include_usage=True)
    executor, model, counted = _executor(kind, [call(i) for i in range(9)], limits)
    result = await run(executor, {"input": "q"}, mode)
    assert result["output"] == (
        "Agent stopped by UsageLimits: the run reached total_tokens_limit=25 (30 used)"
    )
    assert result["usage"] == {
        "requests": 3,
        "tool_calls": 2,
        "tool_calls_by_tool": {"search": 2},
        "input_tokens": 24,
        "output_tokens": 6,
        "total_tokens": 30,
        "cost": 0.0,
        "approximate": False,
    }
    # The third call crossed the limit: what it asked for never ran.
    assert counted.ran == ["search:0", "search:1"]
    assert len(model.requests) == 3


@pytest.mark.parametrize("mode", MODES)
async def test_a_model_without_usage_is_counted_approximately(mode: Mode) -> None:
    kind = KINDS[0]
    executor, model, _ = _executor(kind, [kind.answer("done")], UsageLimits(include_usage=True))
    result = await run(executor, {"input": "q"}, mode)
    expected_in = count_tokens_approximately(model.requests[0].messages)
    expected_out = count_tokens_approximately([AIMessage("done")])
    assert result["usage"]["approximate"] is True
    assert result["usage"]["input_tokens"] == expected_in
    assert result["usage"]["output_tokens"] == expected_out


@pytest.mark.parametrize("mode", MODES)
async def test_cost_from_the_price_table(mode: Mode) -> None:
    kind = KINDS[0]
    replies = [
        AIMessage("", tool_calls=[{"name": "search", "args": {"text": str(i)}, "id": f"c{i}"}])
        for i in range(5)
    ]
    replies = [r.model_copy(update={"usage_metadata": _usage(1000, 500)}) for r in replies]
    prices = {"ScriptedChatModel": {"input": 2.0, "output": 10.0}}  # per million tokens
    limits = UsageLimits(cost_limit=0.015, prices=prices, on_exceed="force", include_usage=True)
    executor, _, counted = _executor(kind, replies, limits)
    result = await run(executor, {"input": "q"}, mode)
    # Each call costs 1000 * 2 / 1e6 + 500 * 10 / 1e6 = 0.007; the third crosses 0.015.
    assert result["usage"]["cost"] == pytest.approx(0.021)
    assert result["output"] == (
        "Agent stopped by UsageLimits: the run reached cost_limit=0.015 (0.021 used)"
    )
    assert counted.ran == ["search:0", "search:1"]


async def test_a_cost_limit_needs_a_price_for_the_model() -> None:
    kind = KINDS[0]
    limits = UsageLimits(cost_limit=1.0, prices={"gpt-4o": {"input": 1, "output": 1}})
    executor, _, _ = _executor(kind, [kind.answer("x")], limits)
    with pytest.raises(AgentConfigurationError) as info:
        executor.invoke({"input": "q"})
    assert str(info.value) == (
        "UsageLimits has a cost_limit but no price for the model 'ScriptedChatModel'; prices has "
        "['gpt-4o']"
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"request_limit": -1}, "UsageLimits request_limit must be None or >= 0, got -1"),
        (
            {"total_tokens_limit": 1.5},
            "UsageLimits total_tokens_limit must be None or >= 0, got 1.5",
        ),
        (
            {"cost_limit": 1.0},
            "UsageLimits cost_limit needs prices: {model name: {'input': ..., 'output': ...}} per "
            "million tokens",
        ),
        (
            {"prices": {"m": {"input": 1}}},
            "UsageLimits prices['m'] must be a mapping with 'input' and 'output' prices per "
            "million tokens, got {'input': 1}",
        ),
        (
            {"on_exceed": "ignore"},
            "UsageLimits on_exceed must be 'raise', 'force' or 'generate', got 'ignore'",
        ),
    ],
)
def test_bad_settings_fail_when_built(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(AgentConfigurationError) as info:
        UsageLimits(**kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize("mode", MODES)
async def test_concurrent_runs_keep_separate_counters(mode: Mode) -> None:
    def reply(messages: list[Any], request: Any) -> Any:
        done = sum(m.type == "tool" for m in messages)
        if done < 3:
            return FunctionChatModel.tool_call("search", {"text": str(done)})
        return "ok"

    counted = _Counted()
    executor = AgentExecutor(
        agent=KINDS[0].build(FunctionChatModel(reply, delay=0.01), counted.tools),
        tools=counted.tools,
        middleware=[UsageLimits(request_limit=4, tool_calls_limit=3, include_usage=True)],
    )
    inputs = [{"input": str(i)} for i in range(6)]
    if mode == "sync":
        results = executor.batch(inputs, {"max_concurrency": 6})
    else:
        results = await executor.abatch(inputs)
    assert [r["usage"]["requests"] for r in results] == [4] * 6
    assert [r["usage"]["tool_calls"] for r in results] == [3] * 6


_REPLIES = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=12
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    replies=_REPLIES,
    request_limit=st.none() | st.integers(0, 8),
    tool_calls_limit=st.none() | st.integers(0, 8),
    total_tokens_limit=st.none() | st.integers(0, 200),
    on_exceed=st.sampled_from(["raise", "force"]),
)
def test_whatever_the_model_scripts_the_limits_hold(
    replies: list[tuple[int, int, int]],
    request_limit: int | None,
    tool_calls_limit: int | None,
    total_tokens_limit: int | None,
    on_exceed: str,
) -> None:
    script: list[Any] = []
    for n, tokens_in, tokens_out in replies:
        calls = [("search", {"text": f"{len(script)}-{i}"}) for i in range(n)]
        message = (
            ScriptedChatModel.tool_calls(*calls, usage=_usage(tokens_in, tokens_out))
            if calls
            else AIMessage("done", usage_metadata=_usage(tokens_in, tokens_out))
        )
        script.append(message)
    script.append(AIMessage("the end"))  # the run always has an answer to come to
    limits = UsageLimits(
        request_limit=request_limit,
        tool_calls_limit=tool_calls_limit,
        total_tokens_limit=total_tokens_limit,
        on_exceed=on_exceed,  # type: ignore[arg-type]
        include_usage=True,
    )
    executor, model, counted = _executor(KINDS[0], script, limits, max_iterations=None)
    try:
        usage = executor.invoke({"input": "q"})["usage"]
    except UsageLimitExceeded as exc:
        usage = exc.usage
    if request_limit is not None:
        assert len(model.requests) <= request_limit
    if tool_calls_limit is not None:
        assert len(counted.ran) <= tool_calls_limit
    if total_tokens_limit is not None:
        # Only the last call may have crossed the limit.
        totals = [r[1] + r[2] for r in replies][: len(model.requests)]
        assert sum(totals[:-1]) <= total_tokens_limit or not totals
    assert usage["requests"] == len(model.requests)
    assert usage["tool_calls"] == len(counted.ran)


async def test_a_cancelled_async_run_leaves_nothing_behind() -> None:
    import asyncio

    from leanchain.language_models._intercept import INTERCEPTORS

    started = asyncio.Event()

    @tool
    async def wait(text: str) -> str:
        """Waits for a long time."""
        started.set()
        await asyncio.sleep(30)
        return "late"

    def reply(messages: list[Any], request: Any) -> Any:
        calls = [("wait", {"text": "a"}), ("wait", {"text": "b"})]
        return FunctionChatModel.tool_calls(*calls)

    executor = AgentExecutor(
        agent=KINDS[0].build(FunctionChatModel(reply), [wait]),
        tools=[wait],
        middleware=[UsageLimits(request_limit=5), LoopGuardForCancel()],
    )
    task = asyncio.ensure_future(executor.ainvoke({"input": "q"}))
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0)
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []
    assert INTERCEPTORS.get() == ()


class LoopGuardForCancel(LoopGuard):
    """A LoopGuard (with its after_step) in the cancelled run's middleware."""
