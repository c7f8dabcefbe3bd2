"""Cost of agent middleware per iteration, against the same run without the parameter.

Workload: a 10-iteration tool-calling agent run (9 calls of a trivial tool, then an answer)
with a scripted model whose replies carry usage, as a provider's do. Rows: ``middleware=[]``,
one and five pass-through middleware that
override every hook (the most a middleware can cost), `LoopGuard()`, `UsageLimits()` and
`ToolPolicy()` (per call: ``bench_tool_policy``).
Each is timed in alternating rounds with the run without middleware (`paired_times`).

Goals (issue 15): ``middleware=[]`` within noise of no parameter; at most 2 µs per middleware
per iteration.
Run: ``.venv/bin/python -m benchmarks middleware`` (or ``make bench``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from benchmarks._util import paired_times, print_table, row, scaled
from leanchain.agents import AgentExecutor, AgentFinish, AgentStep, create_tool_calling_agent
from leanchain.agents.middleware import (
    AgentMiddleware,
    AgentRun,
    LoopGuard,
    ModelRequest,
    Plan,
    ToolCallRequest,
    ToolPolicy,
    UsageLimits,
)
from leanchain.agents.middleware._base import ModelHandler, ToolHandler
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import FunctionChatModel
from leanchain.messages import AIMessage, BaseMessage, UsageMetadata
from leanchain.tools import BaseTool, tool

ITERATIONS = 10
GOAL_PER_MIDDLEWARE_US = 2.0


def echo_text(text: str) -> str:
    """Echo the text back."""
    return text


ECHO: BaseTool = tool(echo_text)


class PassThrough(AgentMiddleware):
    """Overrides every hook and changes nothing: the most a middleware can cost the loop."""

    def before_agent(self, run: AgentRun) -> None:
        return None

    def before_model(self, run: AgentRun, request: ModelRequest) -> None:
        return None

    def wrap_model_call(self, run: AgentRun, request: ModelRequest, handler: ModelHandler) -> Plan:
        return handler(request)

    def after_model(self, run: AgentRun, plan: Plan) -> None:
        return None

    def wrap_tool_call(
        self, run: AgentRun, request: ToolCallRequest, handler: ToolHandler
    ) -> AgentStep:
        return handler(request)

    def after_step(self, run: AgentRun, steps: list[AgentStep]) -> None:
        return None

    def after_agent(self, run: AgentRun, finish: AgentFinish) -> None:
        return None


USAGE: UsageMetadata = {"input_tokens": 50, "output_tokens": 10, "total_tokens": 60}


def _reply(messages: list[BaseMessage], request: Any) -> AIMessage:
    """Nine tool calls, then the answer: a function of the request, so one executor serves
    every run (nothing is built inside the timing)."""
    done = sum(m.type == "tool" for m in messages)
    if done < ITERATIONS - 1:
        return FunctionChatModel.tool_call("echo_text", {"text": str(done)}, usage=USAGE)
    return AIMessage("42", usage_metadata=USAGE)


def _runner(middleware: Sequence[AgentMiddleware] | None) -> Callable[[], Any]:
    extra: dict[str, Any] = {} if middleware is None else {"middleware": middleware}
    model = FunctionChatModel(_reply)
    agent = create_tool_calling_agent(model, [ECHO], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[ECHO], **extra)

    def run() -> Any:
        model.requests.clear()
        return executor.invoke({"input": "q"})

    return run


def main() -> None:
    """Print each variant's median per iteration against the run without middleware."""
    number = scaled(40, 3)
    rounds = scaled(41, 2)
    variants: list[tuple[str, list[AgentMiddleware], int]] = [
        ("middleware=[]", [], 0),
        ("1 pass-through middleware", [PassThrough()], 1),
        ("5 pass-through middleware", [PassThrough() for _ in range(5)], 5),
        ("LoopGuard()", [LoopGuard()], 1),
        ("UsageLimits(request_limit=50)", [UsageLimits(request_limit=50)], 1),
        ("ToolPolicy(retries=2, disable_after=3)", [ToolPolicy(retries=2, disable_after=3)], 1),
    ]
    bare = _runner(None)
    assert bare()["output"] == "42"
    rows = []
    for label, middleware, count in variants:
        runner = _runner(middleware)
        assert runner()["output"] == "42"
        base_s, with_s = paired_times(bare, runner, number=number, rounds=rounds)
        base_us = base_s / ITERATIONS * 1e6
        with_us = with_s / ITERATIONS * 1e6
        if count == 0:
            rows.append(row(f"{label}, per iteration", with_us, base_us, "µs", ratio_at_most=1.05))
            continue
        per = (with_us - base_us) / count
        rows.append(
            row(
                f"{label}, added per middleware per iteration",
                per,
                None,
                "µs",
                at_most=GOAL_PER_MIDDLEWARE_US,
            )
        )
        rows.append(row(f"{label}, per iteration", with_us, base_us, "µs"))
    print_table(
        f"Agent middleware, tool-calling agent, {ITERATIONS}-iteration run (paired rounds)", rows
    )


if __name__ == "__main__":
    main()
