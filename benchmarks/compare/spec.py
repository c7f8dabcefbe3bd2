"""The workloads, written once: what each measures, in which unit, and how cases look.

An implementation (`plain`, `lean`, `lang` and the peers' `peer_*`) maps each workload key to a
factory that takes the `Settings` and returns a `Case`: a `Call` (a function timed over many
calls), an `Import` (Python code timed, and its peak memory read, in a fresh interpreter) or a
`Concurrent` (many concurrent agent runs in a fresh interpreter against a fake server in
another one: their wall time and memory per run).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

__all__ = [
    "CONCURRENT_ITERATIONS",
    "CONCURRENT_TIMEOUT",
    "EVENT_STEPS",
    "EVENT_STREAMS",
    "IMPLEMENTATIONS",
    "PEERS",
    "WORKLOADS",
    "Call",
    "Case",
    "CaseFactory",
    "Concurrent",
    "Implementation",
    "Import",
    "Kind",
    "Settings",
    "Workload",
    "workload",
]

IMPLEMENTATIONS = (
    "plain",
    "leanchain",
    "langchain",
    "create_agent",
    "pydantic_ai",
    "openai_agents",
)
"""The columns, in table order: the lower bound, leanchain, LangChain (langchain-core and
classic's AgentExecutor), then the agent peers: LangChain 1.x ``create_agent`` (LangGraph),
pydantic-ai and the OpenAI Agents SDK."""
PEERS = IMPLEMENTATIONS[2:]
"""The columns compared with leanchain."""


@dataclass(frozen=True)
class Settings:
    """How big and how long the measurements are; `quick` ones only check that all runs."""

    quick: bool = False
    """Few, tiny measurements (smoke tests)."""

    @classmethod
    def from_env(cls) -> Settings:
        """Quick when ``LEANCHAIN_BENCH_QUICK=1``."""
        return cls(quick=os.environ.get("LEANCHAIN_BENCH_QUICK") == "1")

    @property
    def rounds(self) -> int:
        """Rounds per workload; each round measures every implementation once."""
        return 2 if self.quick else 7

    @property
    def sample_seconds(self) -> float:
        """The least time one sample of a `Call` runs (it repeats the call to get there)."""
        return 0.0 if self.quick else 0.1

    @property
    def batch_inputs(self) -> int:
        """Inputs of the batch and abatch workloads."""
        return 20 if self.quick else 1_000

    @property
    def stream_chunks(self) -> int:
        """Chunks of the streaming workloads."""
        return 50 if self.quick else 10_000

    @property
    def concurrent_runs(self) -> int:
        """Agent runs in flight at once in the concurrent workload."""
        return 5 if self.quick else 1_000

    @property
    def concurrent_rounds(self) -> int:
        """Rounds of the concurrent workload (each is a fresh interpreter per column)."""
        return 1 if self.quick else 3

    @property
    def latency_seconds(self) -> float:
        """The fake server's fixed latency in the concurrent workload, per model call."""
        return 0.01 if self.quick else 0.1


@dataclass(frozen=True)
class Call:
    """A case measured by calling `run` repeatedly in this process.

    Args:
        run: one execution of the workload.
        expected: what `run` must return (checked once, before timing).
        close: releases what the case holds (an event loop, a server), after timing.
    """

    run: Callable[[], object]
    expected: object
    close: Callable[[], None] | None = None


@dataclass(frozen=True)
class Import:
    """A case measured by running `code` in a fresh interpreter (``python -c``)."""

    code: str


@dataclass(frozen=True)
class Concurrent:
    """A case measured by `benchmarks.compare.concurrent` in a fresh interpreter.

    ``Settings.concurrent_runs`` agent runs of `CONCURRENT_ITERATIONS` model calls each, all
    in flight at once over the real async OpenAI SDK, against a fake server in another process
    that answers every call after ``Settings.latency_seconds``.

    Args:
        column: the implementation (a key of `IMPLEMENTATIONS`) the child runs.
    """

    column: str


Case: TypeAlias = Call | Import | Concurrent
CaseFactory: TypeAlias = Callable[[Settings], Case]
Implementation: TypeAlias = Mapping[str, CaseFactory]
"""A workload key → the factory of its case; a key that is missing is not measured."""

Kind: TypeAlias = Literal[
    "call", "import_time", "import_memory", "concurrent_time", "concurrent_memory"
]


@dataclass(frozen=True)
class Workload:
    """One line of the report."""

    key: str
    """The name implementations use for it."""
    title: str
    """What it measures, in words."""
    group: str
    """The section of the report (and of the chart)."""
    unit: Literal["µs", "ms", "MiB", "KiB"]
    """The unit of the reported medians."""
    kind: Kind = "call"
    """How a case is measured: timed calls, or a fresh interpreter's time or memory."""
    per: Callable[[Settings], int] = field(default=lambda _settings: 1)
    """What one call's time is divided by (steps, chunks, iterations)."""
    note: str = ""
    """A footnote for the report."""


CONCURRENT_ITERATIONS = 3
"""Model calls per run of the concurrent workload: 2 tool calls, then the answer."""
CONCURRENT_TIMEOUT = 120.0
"""The SDK timeout (every phase, connect included) of every column's client in the concurrent
workload. The SDK's default 5 s connect timeout fails runs whose connects wait behind a
saturated event loop (1,000 runs' requests), even in the hand-written loop."""
EVENT_STEPS = 10
"""The steps of the chain whose events are streamed (``events_10``)."""
EVENT_STREAMS = 20
"""Event streams per timed call of ``events_10`` (one event loop for all: its start-up is
not the work)."""


def _const(n: int) -> Callable[[Settings], int]:
    return lambda _settings: n


def _chunks(settings: Settings) -> int:
    return settings.stream_chunks


WORKLOADS: tuple[Workload, ...] = (
    *(
        Workload(
            f"import_{what}_{kind.removeprefix('import_')}",
            f"{title}: {'wall time' if kind == 'import_time' else 'peak memory'}",
            "import",
            "ms" if kind == "import_time" else "MiB",
            kind,
            note=note,
        )
        for what, title, note in (
            (
                "runnables",
                "import RunnableLambda, RunnableParallel, RunnablePassthrough",
                "from `leanchain.runnables` vs `langchain_core.runnables`; plain is a bare "
                "interpreter (`python -c pass`), for every import row",
            ),
            (
                "parts",
                "import ChatPromptTemplate, StrOutputParser, RunnableLambda",
                "what `prompt | model | parser` needs besides the model, each from its package",
            ),
            (
                "openai",
                "import the same three and ChatOpenAI",
                "leanchain imports the openai SDK when the first model is created; "
                "langchain-openai imports it with the class",
            ),
            (
                "agent",
                "an agent program over OpenAI: its imports and the model object",
                "the agent, tool and chat-model imports and one OpenAI chat model built (which "
                "imports the openai SDK on every side); plain: `import openai` and an "
                "`AsyncOpenAI` client, the hand-written loop's needs",
            ),
            ("top", "import leanchain", "leanchain only"),
            (
                "top_names",
                "from leanchain import ChatPromptTemplate, StrOutputParser, RunnableLambda",
                "leanchain only",
            ),
        )
        for kind in ("import_time", "import_memory")
    ),
    *(
        Workload(
            f"invoke_{n}{'_cb' if cb else ''}",
            f"invoke, chain of {n} lambda{'s' if n > 1 else ''}"
            f"{', one callback handler' if cb else ''}, per step",
            "invoke",
            "µs",
            per=_const(n),
        )
        for cb in (False, True)
        for n in (1, 10, 100)
    ),
    Workload(
        "parallel_4",
        "RunnableParallel, 4 trivial branches",
        "compose",
        "µs",
        note="plain: the 4 calls one after the other (the bare work, no concurrency); "
        "the libraries may run branches in threads",
    ),
    Workload("assign_1", "RunnablePassthrough.assign, 1 key", "compose", "µs"),
    Workload("assign_2", "RunnablePassthrough.assign, 2 keys", "compose", "µs"),
    Workload(
        "batch",
        "batch, 1,000 inputs x sleep 10 ms, max_concurrency 100",
        "batch",
        "ms",
        note="plain: ThreadPoolExecutor(100).map",
    ),
    Workload(
        "abatch",
        "abatch, 1,000 inputs x asyncio.sleep 10 ms, max_concurrency 100",
        "batch",
        "ms",
        note="plain: asyncio.gather with a Semaphore(100)",
    ),
    Workload(
        "stream_1",
        "stream 10,000 chunks: generator + 1 streaming step, per chunk",
        "stream",
        "µs",
        per=_chunks,
    ),
    Workload(
        "stream_3",
        "stream 10,000 chunks: generator + 3 streaming steps, per chunk",
        "stream",
        "µs",
        per=_chunks,
    ),
    Workload(
        "events_10",
        "astream_events (v2), chain of 10 async lambdas, per step",
        "stream",
        "µs",
        per=_const(EVENT_STEPS * EVENT_STREAMS),
        note="33 events per stream (start, stream and end of each step and of the chain), 20 "
        "streams per timed call on one event loop; plain: an async generator that yields the "
        "same 33 event dicts around the 10 awaited steps",
    ),
    *(
        Workload(
            f"agent_{kind}",
            f"{title} agent, 10 iterations, per iteration",
            "agents",
            "µs",
            per=_const(10),
            note=note,
        )
        for kind, title, note in (
            (
                "tool_calling",
                "tool-calling",
                "scripted model (9 tool calls, then an answer) and a trivial tool; plain: a "
                "hand-written loop that formats the prompt, parses the reply, calls the tool",
            ),
            ("react", "ReAct", ""),
            ("structured_chat", "structured-chat", ""),
            ("xml", "XML", ""),
        )
    ),
    Workload(
        "agent_openai",
        "tool-calling agent over the OpenAI SDK and a local fake server, per iteration",
        "agents",
        "µs",
        per=_const(10),
        note="real HTTP to leanchain.testing.FakeProviderServer on 127.0.0.1 (same process); "
        "plain: the openai SDK in a loop; LangChain's AgentExecutor streams the model "
        "(stream_runnable=True), leanchain's only when a callback listens; pydantic-ai's "
        "run_sync and the OpenAI Agents SDK's Runner.run_sync run their async loop on an "
        "event loop of their own (neither has a sync path over a sync client)",
    ),
    Workload(
        "agent_openai_async",
        "tool-calling agent over AsyncOpenAI and a local fake server, per iteration",
        "agents",
        "µs",
        per=_const(10),
        note="each run awaited on one event loop; plain: the async openai SDK in a loop",
    ),
    Workload(
        "concurrent_time",
        f"1,000 concurrent agent runs x {CONCURRENT_ITERATIONS} calls, 100 ms server latency: "
        "wall time",
        "concurrent",
        "ms",
        kind="concurrent_time",
        note="every run in flight at once on one event loop, over the async openai SDK, against "
        "a FakeProviderServer in another process that answers each call after 100 ms (a tool "
        "call until the run has sent 2 tool results, then the answer); each round is a fresh "
        "interpreter per column, after 10 warm-up runs; every column's client has a 120 s "
        "timeout (the SDK's 5 s connect timeout fails late connects, even in the hand-written "
        "loop); plain: the async SDK in a hand-written loop; the floor is 3 x 100 ms",
    ),
    Workload(
        "concurrent_memory",
        "1,000 concurrent agent runs x 3 calls: memory per run in flight",
        "concurrent",
        "KiB",
        kind="concurrent_memory",
        note="(peak resident memory during the 1,000 runs - resident memory before them) / "
        "1,000, measured in the same runs as the wall time",
    ),
)
"""Every workload, in report order."""


def workload(key: str) -> Workload:
    """The workload named `key`."""
    for item in WORKLOADS:
        if item.key == key:
            return item
    raise KeyError(key)
