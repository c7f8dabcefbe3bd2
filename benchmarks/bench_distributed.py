"""`RayRunner` throughput and dispatch overhead on a local Ray instance (issue 10).

Workloads:

- 400 tool-calling agent runs (`AgentExecutor` + ``create_tool_calling_agent`` over a
  `FunctionChatModel` that waits 50 ms per call: one tool call, then the answer, so 100 ms of
  model time per run), on Ray with 1 worker (``max_concurrency=1``), 2 workers (one per CPU)
  and 8 workers (``num_cpus_per_item=0.25``), and 2 workers running groups of 25 items on
  their threads (``items_per_task=25``), against a local ``abatch`` of the same agent (the
  model's wait is ``asyncio.sleep``, so the local run is bound by concurrency, not CPU).
- Per-item dispatch overhead: a batch of trivial items (``lambda x: x``) on 2 workers, wall
  time per item, one item per task and 100 items per task, against a local ``batch``; and the
  round trip of a one-item batch.

Ray is started here with 2 CPUs. Without Ray installed the benchmark prints a line and returns.
Run: ``python -m benchmarks distributed`` (``make bench`` runs every benchmark).
"""

from __future__ import annotations

import asyncio
import importlib
import os
import time
from collections.abc import Callable
from typing import Any

from benchmarks._util import QUICK, median_of, scaled
from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import ChatRequest, FunctionChatModel
from leanchain.messages import AIMessage, BaseMessage
from leanchain.runnables import RunnableLambda
from leanchain.tools import tool

MODEL_LATENCY = 0.05
RUNS = scaled(400, 16)
TRIVIAL_ITEMS = scaled(1000, 20)
ROUNDS = scaled(5, 1)


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def _answer(messages: list[BaseMessage], request: ChatRequest) -> str | AIMessage:
    asked = next(m.text for m in messages if m.type == "human")
    observations = [m.text for m in messages if m.type == "tool"]
    if not observations:
        a, _, b = asked.partition(" x ")
        return FunctionChatModel.tool_call("multiply", {"a": int(a), "b": int(b)})
    return f"{asked} = {observations[-1]}"


def build_agent() -> AgentExecutor:
    """The agent under test: 50 ms per model call, two calls per run."""
    model = FunctionChatModel(_answer, delay=MODEL_LATENCY)
    agent = create_tool_calling_agent(model, [multiply], TOOL_CALLING_PROMPT)
    return AgentExecutor(agent=agent, tools=[multiply])


def _inputs() -> list[dict[str, str]]:
    return [{"input": f"{i} x {i + 1}"} for i in range(RUNS)]


def _timed(func: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = func()
    return time.perf_counter() - start, result


def main() -> None:
    """Print throughput per setup and the per-item dispatch overhead (medians)."""
    try:
        ray: Any = importlib.import_module("ray")
    except ImportError:
        print("ray is not installed: skipping (pip install 'leanchain[ray]')")
        return
    from leanchain.distributed import RayRunner

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": root}},
    )
    try:
        _agent_throughput(RayRunner)
        _dispatch_overhead(RayRunner)
    finally:
        ray.shutdown()


def _agent_throughput(runner_class: Any) -> None:
    inputs = _inputs()
    expected = asyncio.run(build_agent().abatch(inputs))
    setups: list[tuple[str, Callable[[list[Any]], Any]]] = [
        ("local abatch", lambda xs: asyncio.run(build_agent().abatch(xs))),
        ("ray, 1 worker", runner_class(build_agent, max_concurrency=1).batch),
        ("ray, 2 workers", runner_class(build_agent).batch),
        ("ray, 8 workers (0.25 CPU each)", runner_class(build_agent, num_cpus_per_item=0.25).batch),
        ("ray, 2 workers, 25 items/task", runner_class(build_agent, items_per_task=25).batch),
    ]
    print(
        f"{RUNS} agent runs, 2 model calls of {MODEL_LATENCY * 1000:.0f} ms each"
        + (" (quick mode: numbers are not meaningful)" if QUICK else "")
    )
    print(f"{'setup':32} {'wall s':>8} {'runs/s':>8}")
    for name, run in setups:
        run(inputs[:16])  # warm: workers started, factories built
        # A Ray round takes seconds: one round each keeps the benchmark near a minute.
        rounds = ROUNDS if name.startswith("local") else 1
        samples = []
        for _ in range(rounds):
            elapsed, outputs = _timed(lambda: run(inputs))  # noqa: B023 (called at once)
            assert outputs == expected, name
            samples.append(elapsed)
        wall = median_of(samples)
        print(f"{name:32} {wall:8.2f} {RUNS / wall:8.1f}")


def _dispatch_overhead(runner_class: Any) -> None:
    identity = RunnableLambda(lambda x: x)
    items = list(range(TRIVIAL_ITEMS))
    print(f"dispatch overhead, {TRIVIAL_ITEMS} trivial items (median of {ROUNDS})")
    for name, runner in [
        ("ray batch, 1 item/task", runner_class(identity)),
        ("ray batch, 100 items/task", runner_class(identity, items_per_task=100)),
    ]:
        runner.batch(items)
        remote = median_of([_timed(lambda: runner.batch(items))[0] for _ in range(ROUNDS)])  # noqa: B023
        print(f"{name:32} {remote / TRIVIAL_ITEMS * 1e6:8.1f} µs/item")
    local = median_of([_timed(lambda: identity.batch(items))[0] for _ in range(ROUNDS)])
    print(f"{'local batch':32} {local / TRIVIAL_ITEMS * 1e6:8.1f} µs/item")
    single_runner = runner_class(identity)
    single = median_of([_timed(lambda: single_runner.batch([0]))[0] for _ in range(ROUNDS * 4)])
    print(f"{'ray round trip, one item':32} {single * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
