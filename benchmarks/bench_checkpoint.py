"""What saving a run after every step costs: `InMemoryCheckpointer` and `SqliteCheckpointer`.

Workloads:

- a 10-iteration tool-calling agent run (9 calls of a trivial tool, then an answer; a
  scripted model), without a checkpointer and with each one, timed in alternating rounds
  (`paired_times`). A run is saved 11 times (when it starts, after each of its 9 steps, when
  it finishes); the added cost is reported per save;
- one save of a run of 10 and of 50 tool-calling steps (model messages with tool calls,
  tool results): after a step (the run's `StateWriter` encodes only the new step, the text of
  the others is kept), and of the whole state (what the first save after a resume, or
  `BaseCheckpointer.put`, encodes).

The SQLite file lives in a temporary directory, in WAL mode with ``synchronous=NORMAL`` (the
checkpointer's settings): a commit per save, no fsync per commit.

Goals (issue 17): a save after a step costs at most 150 µs in memory and 1 ms in SQLite for
a run of 10 steps, so that it stays far below one model call.
Run: ``.venv/bin/python -m benchmarks checkpoint`` (or ``make bench``).
"""

from __future__ import annotations

import dataclasses
import itertools
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._util import median_time, paired_times, print_table, row, scaled
from leanchain.agents import (
    AgentAction,
    AgentExecutor,
    BaseCheckpointer,
    InMemoryCheckpointer,
    RunState,
    SqliteCheckpointer,
    ToolAgentAction,
    create_tool_calling_agent,
)
from leanchain.agents._state import StateWriter
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import FunctionChatModel
from leanchain.messages import AIMessage, BaseMessage, UsageMetadata, tool_call
from leanchain.tools import BaseTool, tool

ITERATIONS = 10
SAVES = ITERATIONS + 1
GOAL_MEMORY_US = 150.0
GOAL_SQLITE_US = 1000.0


def echo_text(text: str) -> str:
    """Echo the text back."""
    return text


ECHO: BaseTool = tool(echo_text)
USAGE: UsageMetadata = {"input_tokens": 50, "output_tokens": 10, "total_tokens": 60}


def _reply(messages: list[BaseMessage], request: Any) -> AIMessage:
    done = sum(m.type == "tool" for m in messages)
    if done < ITERATIONS - 1:
        return FunctionChatModel.tool_call("echo_text", {"text": str(done)}, usage=USAGE)
    return AIMessage("42", usage_metadata=USAGE)


def _runner(checkpointer: BaseCheckpointer | None) -> Callable[[], Any]:
    model = FunctionChatModel(_reply)
    agent = create_tool_calling_agent(model, [ECHO], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[ECHO], checkpointer=checkpointer)
    threads = itertools.count()

    def run() -> Any:
        model.requests.clear()
        config: Any = {"configurable": {"thread_id": f"t{next(threads) % 50}"}}
        return executor.invoke({"input": "q"}, config)

    return run


def _state(steps: int) -> RunState:
    """A run of `steps` tool-calling steps, each with its model message and tool result."""
    pairs: list[tuple[AgentAction, Any]] = []
    for i in range(steps):
        message = AIMessage(
            content="Let me look that up.",
            tool_calls=[
                tool_call(name="search", args={"query": f"item {i}", "limit": 5}, id=f"c{i}")
            ],
            usage_metadata=USAGE,
            response_metadata={"finish_reason": "tool_calls", "model_name": "bench"},
            id=f"run-{i}",
        )
        action = ToolAgentAction(
            "search", {"query": f"item {i}", "limit": 5}, "log", (message,), tool_call_id=f"c{i}"
        )
        pairs.append((action, f"result {i}: " + "lorem ipsum " * 20))
    return RunState(
        inputs={"input": "find things"}, steps=pairs, iterations=steps, run_id="r", seq=2
    )


def _saves(
    saver: BaseCheckpointer, state: RunState
) -> tuple[Callable[[], None], Callable[[], None]]:
    """A save after a new last step (the others' text kept), and a save of the whole state."""
    writer = StateWriter()
    writer.write(state)
    action, observation = state.steps[-1]

    def step_save() -> None:
        state.steps[-1] = (dataclasses.replace(action), observation)  # a new step
        saver.put_json("bench", "r", 2, writer.write(state))

    def whole_save() -> None:
        saver.put("bench", state)

    return step_save, whole_save


def main() -> None:
    """Print the run with each checkpointer against the run without, and the cost of a save."""
    number = scaled(100, 2)
    rounds = scaled(9, 2)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        bare = _runner(None)
        assert bare()["output"] == "42"
        memory = InMemoryCheckpointer()
        sqlite = SqliteCheckpointer(Path(tmp) / "runs.db")
        try:
            for label, saver, goal in (
                ("InMemoryCheckpointer", memory, GOAL_MEMORY_US),
                ("SqliteCheckpointer", sqlite, GOAL_SQLITE_US),
            ):
                runner = _runner(saver)
                assert runner()["output"] == "42"
                base_s, with_s = paired_times(bare, runner, number=number, rounds=rounds)
                per_save = (with_s - base_s) / SAVES * 1e6
                rows.append(
                    row(
                        f"{ITERATIONS}-iteration run, {label}, added per save",
                        per_save,
                        None,
                        "µs",
                        at_most=goal,
                    )
                )
                rows.append(
                    row(
                        f"{ITERATIONS}-iteration run, {label}, per iteration",
                        with_s / ITERATIONS * 1e6,
                        base_s / ITERATIONS * 1e6,
                        "µs",
                    )
                )
            for steps in (10, 50):
                state = _state(steps)
                for label, saver, goal in (
                    ("in memory", memory, GOAL_MEMORY_US),
                    ("SQLite", sqlite, GOAL_SQLITE_US),
                ):
                    step_save, whole_save = _saves(saver, state)
                    for what, func, bound in (
                        ("save after a step", step_save, goal if steps == 10 else None),
                        ("whole state written (first save of a resume)", whole_save, None),
                    ):
                        seconds = median_time(func, number=scaled(200, 2), rounds=rounds)
                        rows.append(
                            row(
                                f"{what}, a run of {steps} steps, {label}",
                                seconds * 1e6,
                                None,
                                "µs",
                                at_most=bound,
                            )
                        )
            size = len(_state(10).to_json())
        finally:
            sqlite.close()
    print_table(
        f"Checkpoints: saving an agent run after every step (a 10-step state is {size} bytes "
        "of JSON)",
        rows,
    )


if __name__ == "__main__":
    main()
