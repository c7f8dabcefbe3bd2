"""1,000 concurrent agent runs on one shared executor: no cross-talk, bounded, no growth.

One `AgentExecutor` serves every item of an ``abatch``. The model's reply depends on its own
input, each tool stamps what its config says, and each item has its own callback handler, so
any mix-up between runs (steps, config, callbacks) shows in the outputs. A lock-guarded
counter records how many model calls and tool calls run at once; ``max_concurrency`` bounds
the whole call tree, the parallel tool calls inside each item included.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
import tracemalloc
from typing import Any
from uuid import UUID

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import ChatRequest, FunctionChatModel
from leanchain.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from leanchain.runnables import RunnableConfig
from leanchain.tools import BaseTool, tool

ITEMS = 1000
BOUND = 50


class Gauge:
    """How many model or tool calls run at this moment, and the most there ever were."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.peak = 0

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


def key_of(messages: list[BaseMessage]) -> str:
    return next(m.text for m in reversed(messages) if isinstance(m, HumanMessage))


def plan(messages: list[BaseMessage]) -> AIMessage | str:
    """Two tool calls at once, then one more, then the answer: all derived from the input."""
    key = key_of(messages)
    results = [m.text for m in messages if isinstance(m, ToolMessage)]
    if not results:
        return FunctionChatModel.tool_calls(("stamp", {"key": key}), ("stamp", {"key": key + "'"}))
    if len(results) == 2:
        return FunctionChatModel.tool_call("stamp", {"key": key + '"'})
    return "final " + " | ".join(results)


def expected(i: int) -> str:
    key = f"item-{i}"
    stamps = [f"{k}@{key}/user-{i}/[{key!r}]" for k in (key, key + "'", key + '"')]
    return "final " + " | ".join(stamps)


def make_stamp(gauge: Gauge, sleep: float, is_async: bool) -> BaseTool:
    def stamp_text(key: str, config: RunnableConfig) -> str:
        tags = [t for t in config.get("tags", []) if t.startswith("item-")]
        user = config.get("configurable", {})["user"]
        return f"{key}@{config.get('metadata', {})['item']}/{user}/{tags}"

    if is_async:

        @tool
        async def stamp(key: str, config: RunnableConfig) -> str:
            """Stamps the key with what the config says."""
            with gauge:
                await asyncio.sleep(sleep)
                return stamp_text(key, config)

        return stamp

    @tool
    def stamp_sync(key: str, config: RunnableConfig) -> str:
        """Stamps the key with what the config says."""
        with gauge:
            time.sleep(sleep)
            return stamp_text(key, config)

    stamp_sync.name = "stamp"
    return stamp_sync


class Counter(BaseCallbackHandler):
    """Counts tool starts and keeps nothing else."""

    def __init__(self) -> None:
        self.tools = 0

    def on_tool_start(self, serialized: Any, input_str: str, **kwargs: Any) -> None:
        self.tools += 1


class Recorder(BaseCallbackHandler):
    """One item's handler: the runs it was told about and every input it saw."""

    def __init__(self) -> None:
        self.run_ids: set[UUID] = set()
        self.parents: set[UUID | None] = set()
        self.seen: list[str] = []

    def _start(self, run_id: UUID, parent_run_id: UUID | None, payload: Any) -> None:
        self.run_ids.add(run_id)
        self.parents.add(parent_run_id)
        self.seen.append(str(payload))

    def on_chain_start(
        self,
        serialized: Any,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self._start(run_id, parent_run_id, inputs)

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self._start(run_id, parent_run_id, messages)

    def on_tool_start(
        self,
        serialized: Any,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self._start(run_id, parent_run_id, input_str)


def build(gauge: Gauge, *, is_async: bool, sleep: float) -> tuple[AgentExecutor, FunctionChatModel]:
    if is_async:

        async def reply(messages: list[BaseMessage], request: ChatRequest) -> AIMessage | str:
            with gauge:
                await asyncio.sleep(sleep)
                return plan(messages)

        model = FunctionChatModel(reply)
    else:

        def sync_reply(messages: list[BaseMessage], request: ChatRequest) -> AIMessage | str:
            with gauge:
                time.sleep(sleep)
                return plan(messages)

        model = FunctionChatModel(sync_reply)
    tools = [make_stamp(gauge, sleep, is_async)]
    agent = create_tool_calling_agent(model, tools, TOOL_CALLING_PROMPT)
    return AgentExecutor(agent=agent, tools=tools), model


def configs(n: int, recorders: list[Recorder] | None) -> list[RunnableConfig]:
    made: list[RunnableConfig] = []
    for i in range(n):
        config: RunnableConfig = {
            "metadata": {"item": f"item-{i}"},
            "tags": [f"item-{i}"],
            "configurable": {"user": f"user-{i}"},
            "max_concurrency": BOUND,
        }
        if recorders is not None:
            config["callbacks"] = [recorders[i]]
        made.append(config)
    return made


async def test_a_thousand_runs_on_one_executor_keep_to_themselves() -> None:
    gauge = Gauge()
    executor, model = build(gauge, is_async=True, sleep=0.002)
    recorders = [Recorder() for _ in range(ITEMS)]
    inputs = [{"input": f"item-{i}"} for i in range(ITEMS)]

    outputs = await executor.abatch(inputs, configs(ITEMS, recorders))

    assert outputs == [{"input": f"item-{i}", "output": expected(i)} for i in range(ITEMS)]
    assert len(model.requests) == 3 * ITEMS
    # The whole tree stays within max_concurrency, parallel tool calls included; and the
    # bound was actually reached, or the test would prove nothing.
    assert BOUND // 2 <= gauge.peak <= BOUND
    assert gauge.now == 0
    # Each handler saw only its own run tree: one root, its own inputs, no other run's ids.
    all_ids: set[UUID] = set()
    for i, recorder in enumerate(recorders):
        # One root run (parent None); every other run a child of one of its own runs.
        assert recorder.parents - recorder.run_ids == {None}
        assert not (recorder.run_ids & all_ids)
        all_ids |= recorder.run_ids
        mentioned = {word for text in recorder.seen for word in _items(text)}
        assert mentioned == {f"item-{i}"}
    assert len(all_ids) == sum(len(r.run_ids) for r in recorders)


def _items(text: str) -> set[str]:
    """The ``item-N`` names in a text."""
    found: set[str] = set()
    for part in text.split("item-")[1:]:
        digits = ""
        for ch in part:
            if not ch.isdigit():
                break
            digits += ch
        found.add(f"item-{digits}")
    return found


def test_a_sync_batch_on_one_executor_keeps_to_itself_within_the_bound() -> None:
    gauge = Gauge()
    executor, _ = build(gauge, is_async=False, sleep=0.001)
    n = 200
    inputs = [{"input": f"item-{i}"} for i in range(n)]
    items = configs(n, None)
    for config in items:
        config["max_concurrency"] = 8
    outputs = executor.batch(inputs, items)
    assert outputs == [{"input": f"item-{i}", "output": expected(i)} for i in range(n)]
    assert 4 <= gauge.peak <= 8


async def test_memory_does_not_grow_from_one_round_to_the_next() -> None:
    gauge = Gauge()
    executor, model = build(gauge, is_async=True, sleep=0.001)
    inputs = [{"input": f"item-{i}"} for i in range(ITEMS)]
    # Every eighth item with a handler: both the fast path and the traced path (run trees,
    # managers, handler calls) are measured, in a test that stays a few seconds long.
    counter = Counter()
    mixed = configs(ITEMS, None)
    for config in mixed[::8]:
        config["callbacks"] = [counter]

    async def one_round() -> int:
        outputs = await executor.abatch(inputs, mixed)
        assert outputs[-1] == {"input": f"item-{ITEMS - 1}", "output": expected(ITEMS - 1)}
        del outputs
        model.requests.clear()  # the test model records every request on purpose
        gc.collect()
        return tracemalloc.get_traced_memory()[0]

    await one_round()  # warm-up: lazy imports, caches, the thread pool
    tracemalloc.start()
    try:
        first = await one_round()
        second = await one_round()
    finally:
        tracemalloc.stop()
    assert second - first < 2 * 1024 * 1024
    assert counter.tools == 3 * 3 * len(mixed[::8])
