"""Long runs and many tools (issue 19): request size over a 60-step run with and without each
history strategy, and what the middleware cost per planning call.

Workload: a tool-calling agent (scripted model) that reads 60 pages of about 2,040 characters
(about 510 tokens each), then answers. Request sizes are `count_tokens_approximately` of the
messages the model received (deterministic: no timing). Costs per planning call are timed
directly on the hook, with the run's 60 steps in place, in alternating rounds with a
pass-through hook (`paired_times`): `ClearToolResults.before_model` (clearing in place),
`Summarization.summarized` once its summary exists (no model call: the steady state), and
`ToolSelector.before_model` choosing 5 of 50 tools (the first call of a run) and reusing
the choice (every later call). The 60-step runs end to end are timed against the run with
no middleware too: a smaller scratchpad is also less to format.

Goals: at most 200 µs per planning call for each history strategy at 60 steps (a provider
round trip is 100 times that); at most 500 µs for choosing 5 of 50 tools, 20 µs for reusing
the choice.
Run: ``.venv/bin/python -m benchmarks context``; ``python -m benchmarks.bench_context --svg
PATH`` also writes the request-size plot of docs/agents.md.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks._util import paired_times, print_table, row, scaled
from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.middleware import (
    AgentMiddleware,
    AgentRun,
    ClearToolResults,
    ModelRequest,
    Summarization,
    ToolSelector,
)
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import FunctionChatModel, ScriptedChatModel
from leanchain.messages import count_tokens_approximately
from leanchain.tools import BaseTool, StructuredTool, tool

STEPS = 60
TRIGGER = 4000
PAGE = "The quarterly figures rose again. " * 60
GOAL_HISTORY_US = 200.0
GOAL_SELECT_US = 500.0
GOAL_REUSE_US = 20.0


@tool
def read(text: str) -> str:
    """Read a page of the report."""
    return f"Page {text}: {PAGE}"


def _summariser() -> FunctionChatModel:
    return FunctionChatModel(lambda messages, request: "Pages read so far: all quarterly up.")


STRATEGIES: dict[str, Callable[[], list[AgentMiddleware]]] = {
    "none": list,
    "ClearToolResults": lambda: [ClearToolResults(trigger_tokens=TRIGGER, keep=3)],
    "Summarization": lambda: [Summarization(_summariser(), trigger_tokens=TRIGGER, keep=3)],
}


def _script() -> list[Any]:
    calls = [ScriptedChatModel.tool_call("read", {"text": str(i)}) for i in range(STEPS)]
    return [*calls, "done"]


def request_sizes(middleware: list[AgentMiddleware]) -> list[int]:
    """The tokens of each of the 61 requests of the 60-step run."""
    model = ScriptedChatModel(_script())
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, [read], TOOL_CALLING_PROMPT),
        tools=[read],
        middleware=middleware,
        max_iterations=STEPS + 1,
    )
    assert executor.invoke({"input": "Read the report"})["output"] == "done"
    return [count_tokens_approximately(r.messages) for r in model.requests]


def _runner(middleware: Sequence[AgentMiddleware]) -> Callable[[], Any]:
    def reply(messages: list[Any], request: Any) -> Any:
        # One planning call per reply (the summariser is another model): 60 reads, then done.
        if len(reply_calls) >= STEPS:
            return "done"
        reply_calls.append(len(reply_calls))
        return FunctionChatModel.tool_call("read", {"text": str(len(reply_calls))})

    reply_calls: list[int] = []
    model = FunctionChatModel(reply)
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, [read], TOOL_CALLING_PROMPT),
        tools=[read],
        middleware=list(middleware),
        max_iterations=STEPS + 1,
    )

    def run() -> Any:
        reply_calls.clear()
        model.requests.clear()
        return executor.invoke({"input": "Read the report"})

    return run


def _hook_timing(
    middleware: AgentMiddleware,
    call: Callable[[AgentRun, ModelRequest], Any],
    tools: Sequence[BaseTool],
    steps: list[Any],
    reset: Callable[[AgentRun], None],
) -> tuple[float, float]:
    """Median µs of `call` on a run with `steps`, and of a pass-through, paired."""
    model = ScriptedChatModel([])
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, tools, TOOL_CALLING_PROMPT),
        tools=tools,
        middleware=[middleware],
    )
    agent_run = AgentRun(executor, {"input": "What's the weather in Lisbon?"}, {})
    agent_run.steps = list(steps)
    request = agent_run.request()
    call(agent_run, request)  # the summary, the index: made once, as in a run

    def with_hook() -> Any:
        reset(agent_run)
        return call(agent_run, request)

    def without() -> Any:
        reset(agent_run)
        return request

    number = scaled(300, 3)
    base, timed = paired_times(without, with_hook, number=number, rounds=scaled(9, 2))
    return (timed - base) * 1e6, base * 1e6


def _steps() -> list[Any]:
    model = ScriptedChatModel(_script())
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, [read], TOOL_CALLING_PROMPT),
        tools=[read],
        max_iterations=STEPS + 1,
        return_intermediate_steps=True,
    )
    steps: list[Any] = executor.invoke({"input": "Read the report"})["intermediate_steps"]
    return steps


TOPICS = ["weather", "email", "calendar", "files", "web"]
TASKS = ["forecast", "mail", "meeting", "disk", "search"]


def _fifty_tools() -> list[BaseTool]:
    def make(i: int) -> BaseTool:
        return StructuredTool.from_function(
            lambda text: text,
            name=f"tool_{i}_{TOPICS[i % 5]}",
            description=f"Tool number {i}: does a {TASKS[i % 5]} task.",
        )

    return [make(i) for i in range(50)]


def main() -> None:
    """Print the request sizes and the per-call costs."""
    sizes = {name: request_sizes(make()) for name, make in STRATEGIES.items()}
    print(f"Request size over a {STEPS}-step run, tokens (approximate), trigger {TRIGGER}")
    marks = [1, 10, 20, 30, 40, 50, 61]
    print(
        "  ".join(["strategy".ljust(16), *[f"req {m}".rjust(7) for m in marks], "largest".rjust(8)])
    )
    for name, series in sizes.items():
        cells = [f"{series[m - 1]:>7}" for m in marks]
        print("  ".join([name.ljust(16), *cells, f"{max(series):>8}"]))
    print()

    steps = _steps()
    clear = ClearToolResults(trigger_tokens=TRIGGER, keep=3)
    summarize = Summarization(_summariser(), trigger_tokens=TRIGGER, keep=3)
    keep_state: Callable[[AgentRun], None] = lambda run: None  # noqa: E731
    rows = []
    added, _ = _hook_timing(clear, clear.before_model, [read], steps, keep_state)
    rows.append(
        row("ClearToolResults.before_model, 60 steps", added, None, "µs", at_most=GOAL_HISTORY_US)
    )
    added, _ = _hook_timing(summarize, summarize.summarized, [read], steps, keep_state)
    rows.append(
        row("Summarization, summary kept, 60 steps", added, None, "µs", at_most=GOAL_HISTORY_US)
    )
    fifty = _fifty_tools()
    selector = ToolSelector(max_tools=5)
    forget: Callable[[AgentRun], None] = lambda run: run.state.clear()  # noqa: E731
    added, _ = _hook_timing(selector, selector.before_model, fifty, [], forget)
    rows.append(
        row("ToolSelector, 5 of 50 chosen (first call)", added, None, "µs", at_most=GOAL_SELECT_US)
    )
    added, _ = _hook_timing(selector, selector.before_model, fifty, [], keep_state)
    rows.append(
        row("ToolSelector, choice reused (later calls)", added, None, "µs", at_most=GOAL_REUSE_US)
    )
    bare = _runner([])
    number = scaled(5, 1)
    for name in ("ClearToolResults", "Summarization"):
        with_s, bare_s = paired_times(
            _runner(STRATEGIES[name]()), bare, number=number, rounds=scaled(5, 2)
        )
        rows.append(
            row(
                f"60-step run with {name}, per planning call",
                with_s / 61 * 1e6,
                bare_s / 61 * 1e6,
                "µs",
            )
        )
    print_table(
        "History and tool-selection middleware, cost per planning call (paired rounds)", rows
    )


def _svg_text(x: float, y: float, text: str, anchor: str = "middle", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{text}</text>'


def _svg_line(x1: float, y1: float, x2: float, y2: float, stroke: str, width: int = 1) -> str:
    return (
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
        f'stroke-width="{width}"/>'
    )


def write_svg(path: str) -> None:
    """The request-size plot: one line per strategy over the 61 requests."""
    sizes = {name: request_sizes(make()) for name, make in STRATEGIES.items()}
    width, height, left, bottom, top, right = 640, 320, 64, 40, 20, 150
    peak = max(max(s) for s in sizes.values())
    scale_y = (height - bottom - top) / peak
    scale_x = (width - left - right) / STEPS
    colours = {"none": "#c0392b", "ClearToolResults": "#2471a3", "Summarization": "#229954"}
    y0, x1 = height - bottom, width - right
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    for tokens in range(0, peak + 1, 5000):
        y = y0 - tokens * scale_y
        parts.append(_svg_text(left - 6, y + 4, f"{tokens:,}", "end"))
        parts.append(_svg_line(left, y, x1, y, "#ddd"))
    parts.append(_svg_line(left, y0, x1, y0, "black"))
    parts.append(_svg_line(left, top, left, y0, "black"))
    for step in range(0, STEPS + 1, 10):
        parts.append(_svg_text(left + step * scale_x, y0 + 16, str(step)))
    parts.append(_svg_text((left + x1) / 2, height - 6, "steps before the request"))
    middle = (top + y0) / 2
    rotate = f' transform="rotate(-90 14 {middle:.1f})"'
    parts.append(_svg_text(14, middle, "request tokens (approximate)", extra=rotate))
    for number, (name, series) in enumerate(sizes.items()):
        points = " ".join(
            f"{left + i * scale_x:.1f},{y0 - v * scale_y:.1f}" for i, v in enumerate(series)
        )
        colour = colours[name]
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>'
        )
        y = top + 20 + number * 20
        parts.append(_svg_line(x1 + 10, y - 4, x1 + 30, y - 4, colour, 2))
        parts.append(_svg_text(x1 + 36, y, name, "start"))
    parts.append("</svg>")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(parts) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--svg":
        write_svg(sys.argv[2])
    else:
        main()
