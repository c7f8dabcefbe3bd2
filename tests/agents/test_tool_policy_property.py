"""Fault injection for `ToolPolicy`: for any script of failures, each tool runs exactly as often
as the policy allows, and a non-idempotent tool's effect never happens twice for one call."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_executor_support import ScriptAgent, act, finish

from leanchain.agents import AgentExecutor, ToolPolicy
from leanchain.errors import ToolException, ToolRetryableError
from leanchain.tools import BaseTool, StructuredTool

OUTCOMES = ("ok", "retryable", "before", "connection", "timeout", "tool_exception", "other")
PASSING = ("retryable", "before", "connection", "timeout")
IDEMPOTENT = {"idem": True, "once": False}


def _error(outcome: str) -> Exception:
    return {
        "retryable": ToolRetryableError("retryable"),
        "before": ToolRetryableError("before", before_side_effect=True),
        "connection": ConnectionResetError("connection"),
        "timeout": TimeoutError("timeout"),
        "tool_exception": ToolException("tool_exception"),
        "other": ValueError("other"),
    }[outcome]


class Faulty:
    """Two tools that play their scripts of outcomes, one per attempt (then answer), and note
    each effect under the call it belongs to."""

    def __init__(self, scripts: dict[str, list[str]]) -> None:
        self.scripts = {name: iter(script) for name, script in scripts.items()}
        self.attempts = dict.fromkeys(IDEMPOTENT, 0)
        self.effects: dict[str, list[str]] = {name: [] for name in IDEMPOTENT}
        self.tools: list[BaseTool] = [self._tool(name) for name in IDEMPOTENT]

    def _tool(self, name: str) -> BaseTool:
        def work(text: str) -> str:
            self.attempts[name] += 1
            outcome = next(self.scripts[name], "ok")
            if outcome != "before":  # every other outcome comes after the tool's effect
                self.effects[name].append(text)
            if outcome == "ok":
                return f"{name}:{text}"
            raise _error(outcome)

        made = StructuredTool.from_function(work, name=name, description=f"The {name} tool.")
        made.idempotent = IDEMPOTENT[name]
        return made


def _unavailable(name: str, times: int) -> str:
    failed = "once" if times == 1 else f"{times} times"
    return (
        f"Tool {name!r} is unavailable: it failed {failed} in this run and was switched "
        "off. Do not call it again; use another tool or answer without it."
    )


def _expected(
    scripts: dict[str, list[str]],
    steps: list[list[str]],
    retries: int,
    disable_after: int | None,
    handle_tool_errors: bool,
) -> tuple[dict[str, int], list[str], str | None]:
    """What the policy allows: attempts per tool, the observations, and the error raised."""
    plays: dict[str, Iterator[str]] = {name: iter(s) for name, s in scripts.items()}
    attempts = dict.fromkeys(IDEMPOTENT, 0)
    failures = dict.fromkeys(IDEMPOTENT, 0)
    observations: list[str] = []
    for s, step in enumerate(steps):
        for i, name in enumerate(step):
            text = f"{s}-{i}"
            if disable_after is not None and failures[name] >= disable_after:
                observations.append(_unavailable(name, disable_after))
                continue
            attempt = 1
            while True:
                outcome = next(plays[name], "ok")
                attempts[name] += 1
                if outcome == "ok":
                    observations.append(f"{name}:{text}")
                    break
                safe = IDEMPOTENT[name] or outcome == "before"
                if outcome in PASSING and safe and attempt <= retries:
                    attempt += 1
                    continue
                failures[name] += 1
                if outcome == "tool_exception" or handle_tool_errors:
                    observations.append(outcome)
                    break
                return attempts, observations, outcome
    return attempts, observations, None


def _run(executor: AgentExecutor, mode: str) -> tuple[dict[str, Any] | None, Exception | None]:
    try:
        if mode == "sync":
            return executor.invoke({"input": "q"}), None
        return asyncio.run(executor.ainvoke({"input": "q"})), None
    except Exception as exc:
        return None, exc


_SCRIPT = st.lists(st.sampled_from(OUTCOMES), max_size=8)
_STEPS = st.lists(st.lists(st.sampled_from(list(IDEMPOTENT)), min_size=1, max_size=3), max_size=5)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    idem=_SCRIPT,
    once=_SCRIPT,
    steps=_STEPS,
    retries=st.integers(0, 3),
    disable_after=st.none() | st.integers(1, 4),
    handle_tool_errors=st.booleans(),
    mode=st.sampled_from(["sync", "async"]),
)
def test_each_tool_runs_as_often_as_the_policy_allows(
    idem: list[str],
    once: list[str],
    steps: list[list[str]],
    retries: int,
    disable_after: int | None,
    handle_tool_errors: bool,
    mode: str,
) -> None:
    scripts = {"idem": idem, "once": once}
    faulty = Faulty(scripts)
    plan: list[Any] = [
        [act(name, {"text": f"{s}-{i}"}) for i, name in enumerate(step)]
        for s, step in enumerate(steps)
    ]
    executor = AgentExecutor(
        agent=ScriptAgent(*plan, finish("done")),
        tools=faulty.tools,
        middleware=[ToolPolicy(retries=retries, backoff=0, disable_after=disable_after)],
        handle_tool_errors=handle_tool_errors,
        return_intermediate_steps=True,
        max_iterations=None,
        max_tool_concurrency=1,
    )
    attempts, observations, raised = _expected(
        scripts, steps, retries, disable_after, handle_tool_errors
    )
    result, error = _run(executor, mode)
    if raised is None:
        assert error is None
        assert result is not None
        assert [obs for _, obs in result["intermediate_steps"]] == observations
    else:
        assert result is None
        assert str(error) == raised
    assert faulty.attempts == attempts
    # Never a duplicate side effect: each call of the non-idempotent tool had its effect once
    # at most, whatever failed after it.
    assert len(faulty.effects["once"]) == len(set(faulty.effects["once"]))
