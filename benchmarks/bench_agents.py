"""Overhead of `AgentExecutor` per iteration, for each agent type, vs a hand-written loop.

Workload (issue 4): a 10-iteration run — 9 calls of a trivial tool, then a final answer —
with a scripted model, for the tool-calling, ReAct, structured-chat and XML agents. The
baseline is a plain Python loop over the same replies doing the same parsing (the agent's own
output parser, or the message's tool calls) and calling the same tool function directly.

Goals: at most 50 µs per iteration on top of the plain loop (issue 4; LangChain 1.0:
~3,200-4,800 µs), and at most 15 µs per iteration for the tool-calling agent, 12 µs for the
text agents (issue 21).
Run: ``.venv/bin/python -m benchmarks.bench_agents`` (or ``make bench``).
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from leanchain.agents import (
    AgentAction,
    AgentExecutor,
    AgentFinish,
    create_react_agent,
    create_structured_chat_agent,
    create_tool_calling_agent,
    create_xml_agent,
)
from leanchain.agents.output_parsers import (
    JSONAgentOutputParser,
    ReActSingleInputOutputParser,
    XMLAgentOutputParser,
)
from leanchain.agents.prompts import (
    REACT_PROMPT,
    STRUCTURED_CHAT_PROMPT,
    TOOL_CALLING_PROMPT,
    XML_PROMPT,
)
from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage
from leanchain.tools import BaseTool, tool

GOAL_US = 50.0
ITERATION_GOAL_US = {"tool-calling": 15.0, "react": 12.0, "structured-chat": 12.0, "xml": 12.0}
ITERATIONS = 10
RUNS_PER_SAMPLE = 20
SAMPLES = 15


def echo_text(text: str) -> str:
    """Echo the text back."""
    return text


ECHO: BaseTool = tool(echo_text)


@dataclass(frozen=True)
class AgentKind:
    """One agent type: its factory, prompt, scripted replies and the plain loop's parser."""

    name: str
    build: Callable[[ScriptedChatModel], Any]
    call: Any
    answer: Any
    parse: Callable[[Any], AgentAction | list[AgentAction] | AgentFinish]


def _tool_calls(reply: AIMessage) -> list[AgentAction] | AgentFinish:
    if reply.tool_calls:
        return [AgentAction(c["name"], c["args"], "") for c in reply.tool_calls]
    return AgentFinish({"output": reply.text}, reply.text)


KINDS = [
    AgentKind(
        "tool-calling",
        lambda llm: create_tool_calling_agent(llm, [ECHO], TOOL_CALLING_PROMPT),
        ScriptedChatModel.tool_call("echo_text", {"text": "hi"}),
        AIMessage(content="The answer is 42."),
        _tool_calls,
    ),
    AgentKind(
        "react",
        lambda llm: create_react_agent(llm, [ECHO], REACT_PROMPT),
        "Thought: I should echo.\nAction: echo_text\nAction Input: hi",
        "Thought: I know it.\nFinal Answer: 42",
        ReActSingleInputOutputParser().parse,
    ),
    AgentKind(
        "structured-chat",
        lambda llm: create_structured_chat_agent(llm, [ECHO], STRUCTURED_CHAT_PROMPT),
        'Action:\n```\n{"action": "echo_text", "action_input": {"text": "hi"}}\n```',
        'Action:\n```\n{"action": "Final Answer", "action_input": "42"}\n```',
        JSONAgentOutputParser().parse,
    ),
    AgentKind(
        "xml",
        lambda llm: create_xml_agent(llm, [ECHO], XML_PROMPT),
        "<tool>echo_text</tool><tool_input>hi",
        "<final_answer>42</final_answer>",
        XMLAgentOutputParser().parse,
    ),
]


def _script(kind: AgentKind) -> list[Any]:
    return [kind.call] * (ITERATIONS - 1) + [kind.answer]


def plain_loop(kind: AgentKind, replies: list[Any]) -> Any:
    """The hand-written agent loop: parse each reply, call the tool, keep the steps."""
    steps: list[tuple[AgentAction, Any]] = []
    for reply in replies:
        decision = kind.parse(reply)
        if isinstance(decision, AgentFinish):
            return decision.return_values["output"]
        for action in decision if isinstance(decision, list) else [decision]:
            args = action.tool_input
            observation = echo_text(**args) if isinstance(args, dict) else echo_text(args)
            steps.append((action, observation))
    raise AssertionError("no final answer")


def _median_us_per_iteration(run_once: Callable[[Any], Any], prepare: Callable[[], Any]) -> float:
    """Median time per agent iteration, in µs; `prepare` builds each run's fresh state untimed."""
    for _ in range(3):
        run_once(prepare())
    samples = []
    for _ in range(SAMPLES):
        states = [prepare() for _ in range(RUNS_PER_SAMPLE)]
        gc.disable()  # as timeit and benchmarks._util do: a collection lands on either side
        try:
            start = time.perf_counter()
            for state in states:
                run_once(state)
            elapsed = time.perf_counter() - start
        finally:
            gc.enable()
        samples.append(elapsed / (RUNS_PER_SAMPLE * ITERATIONS) * 1e6)
    return statistics.median(samples)


def _executor(kind: AgentKind) -> AgentExecutor:
    agent = kind.build(ScriptedChatModel(_script(kind)))
    return AgentExecutor(agent=agent, tools=[ECHO])


def _run_executor(executor: AgentExecutor) -> Any:
    return executor.invoke({"input": "q"})


def _run_traced(executor: AgentExecutor) -> Any:
    return executor.invoke({"input": "q"}, {"callbacks": [BaseCallbackHandler()]})


def main() -> None:
    """Print, per agent type, the plain loop's and the executor's medians per iteration."""
    print(f"AgentExecutor, {ITERATIONS}-iteration run, µs per iteration (median of {SAMPLES})")
    print(
        f"{'agent':16} {'plain':>8} {'executor':>9} {'overhead':>9}  {'goal':14}"
        f" {'per iteration':22} {'traced':>8}"
    )
    for kind in KINDS:
        replies = _script(kind)
        check = _executor(kind).invoke({"input": "q"})
        assert check["output"] == plain_loop(kind, replies), check

        plain = _median_us_per_iteration(
            lambda r: plain_loop(kind, r),  # noqa: B023 (used before the loop moves on)
            lambda: replies,  # noqa: B023
        )
        executor = _median_us_per_iteration(_run_executor, lambda: _executor(kind))  # noqa: B023
        traced = _median_us_per_iteration(_run_traced, lambda: _executor(kind))  # noqa: B023
        overhead = executor - plain
        verdict = "ok" if overhead <= GOAL_US else "OVER GOAL"
        goal = ITERATION_GOAL_US[kind.name]
        met = "ok" if executor <= goal else "MISS"
        print(
            f"{kind.name:16} {plain:8.1f} {executor:9.1f} {overhead:9.1f}"
            f"  ≤ {GOAL_US:.0f} {verdict:9} ≤ {goal:.0f} µs {met:14} {traced:8.1f}"
        )
    print("traced: with a (no-op) callback handler, so the agent streams its model tokens")


if __name__ == "__main__":
    main()
