"""The concurrent workload: many agent runs in flight at once, each column in a fresh interpreter.

Two child processes per measurement, so that neither the server's threads nor another
column's imports land in what is measured:

- ``python -m benchmarks.compare.concurrent serve LATENCY ITERATIONS`` serves a
  `FakeProviderServer` that answers every OpenAI call after ``LATENCY`` seconds, from the
  request itself: a tool call until the conversation holds ``ITERATIONS - 1`` tool results,
  then the answer. (A script consumed in order cannot serve runs that interleave.) It prints
  its base URL, then serves until its standard input closes.
- ``python -m benchmarks.compare.concurrent run COLUMN BASE_URL RUNS`` builds the column's
  agent (``concurrent_agent`` in its module), runs 10 warm-up runs, then ``RUNS`` runs at once
  on one event loop, and prints ``{"ms": wall time, "kib_per_run": memory per run}``: the
  peak resident memory during the runs less the resident memory before them, over ``RUNS``.
"""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from importlib import import_module
from pathlib import Path
from typing import Any, TypeAlias

from benchmarks.compare.shared import AGENT_OUTPUT, TOOL_CALL_ARGS
from benchmarks.compare.spec import CONCURRENT_ITERATIONS, Concurrent, Settings

__all__ = ["MODULES", "AgentRun", "ConcurrentServer", "main", "sample"]

ROOT = Path(__file__).resolve().parents[2]
MODULES = {
    "plain": "benchmarks.compare.plain",
    "leanchain": "benchmarks.compare.lean",
    "langchain": "benchmarks.compare.lang",
    "create_agent": "benchmarks.compare.peer_create_agent",
    "pydantic_ai": "benchmarks.compare.peer_pydantic_ai",
    "openai_agents": "benchmarks.compare.peer_openai_agents",
}
"""Column → the module whose ``concurrent_agent(base_url)`` builds its agent."""

AgentRun: TypeAlias = tuple[Callable[[], Awaitable[Any]], Callable[[], Awaitable[None]]]
"""What ``concurrent_agent`` returns: one run (its final answer), and the close of its client."""

_WARM_UP = 10
_TIMEOUT = 600.0


def _serve(latency: float, iterations: int) -> None:
    from leanchain.testing import FakeProviderServer, ScriptedReply, ScriptedToolCall
    from leanchain.testing._handler import HTTPServer
    from leanchain.testing._recording import RecordedRequest
    from leanchain.testing._state import ServerState

    call = ScriptedReply(tool_calls=[ScriptedToolCall("echo_text", TOOL_CALL_ARGS)], delay=latency)
    answer = ScriptedReply(text=AGENT_OUTPUT, delay=latency)

    class ByProgress(ServerState):
        """Answers each request from its own conversation, and records nothing."""

        def __init__(self) -> None:
            super().__init__(chunk_size=4, anthropic_ping=False)
            self._body = threading.local()

        def record(self, request: RecordedRequest) -> None:
            # The handler records a request just before it takes its reply, on its thread.
            self._body.value = request.body

        def take(self, provider: Any) -> Any:
            body = self._body.value
            messages = body.get("messages") if isinstance(body, dict) else None
            results = sum(
                1 for m in messages or () if isinstance(m, dict) and m.get("role") == "tool"
            )
            return call if results < iterations - 1 else answer

    # socketserver's default backlog of 5 would drop most of 1,000 simultaneous connects
    # (each dropped SYN costs its run a 1 s retransmission).
    HTTPServer.request_queue_size = 4096
    server = FakeProviderServer()
    server._state = ByProgress()  # the benchmark's own answering rule (private on purpose)
    with server:
        print(server.openai_base_url, flush=True)
        sys.stdin.read()


def _kib(field: str) -> int:
    with open("/proc/self/status") as status:
        return int(status.read().split(f"{field}:")[1].split()[0])


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (Linux ``clear_refs``); whether it could."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        return False
    return True


async def _measure(column: str, base_url: str, runs: int) -> dict[str, float]:
    from benchmarks.compare.runner import no_tracing

    no_tracing()
    module = import_module(MODULES[column])
    run, close = module.concurrent_agent(base_url)
    try:
        warm = await asyncio.gather(*(run() for _ in range(_WARM_UP)))
        if warm != [AGENT_OUTPUT] * _WARM_UP:
            raise AssertionError(f"expected {AGENT_OUTPUT!r} from every run, got {warm!r}")
        gc.collect()
        before = _kib("VmRSS")
        if not _reset_peak():
            raise RuntimeError("the concurrent workload needs Linux's /proc/self/clear_refs")
        start = time.perf_counter()
        outputs = await asyncio.gather(*(run() for _ in range(runs)))
        wall = time.perf_counter() - start
        peak = _kib("VmHWM")
    finally:
        await close()
    wrong = [output for output in outputs if output != AGENT_OUTPUT]
    if wrong:
        raise AssertionError(f"{len(wrong)} of {runs} runs did not answer {AGENT_OUTPUT!r}")
    return {"ms": wall * 1e3, "kib_per_run": max(0, peak - before) / runs}


class ConcurrentServer:
    """The serving child process, started on first use and stopped by `stop`."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._process: subprocess.Popen[str] | None = None
        self.base_url = ""

    def start(self) -> str:
        """The base URL, after starting the server if it is not running."""
        if self._process is None:
            self._process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "benchmarks.compare.concurrent",
                    "serve",
                    str(self._settings.latency_seconds),
                    str(CONCURRENT_ITERATIONS),
                ],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert self._process.stdout is not None
            self.base_url = self._process.stdout.readline().strip()
            if not self.base_url.startswith("http://127.0.0.1:"):
                self.stop()
                raise RuntimeError("the concurrent workload's server did not start")
        return self.base_url

    def stop(self) -> None:
        """Close the server's standard input and wait for it (kill it after 5 s)."""
        process, self._process = self._process, None
        if process is None:
            return
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def sample(case: Concurrent, server: ConcurrentServer, settings: Settings) -> dict[str, float]:
    """One measurement of `case` in a fresh interpreter: ``{"ms": ..., "kib_per_run": ...}``."""
    base_url = server.start()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.compare.concurrent",
            "run",
            case.column,
            base_url,
            str(settings.concurrent_runs),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"concurrent {case.column} failed: {last}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str]) -> int:
    """``serve LATENCY ITERATIONS`` or ``run COLUMN BASE_URL RUNS`` (see the module doc)."""
    if argv[:1] == ["serve"] and len(argv) == 3:
        _serve(float(argv[1]), int(argv[2]))
        return 0
    if argv[:1] == ["run"] and len(argv) == 4:
        print(json.dumps(asyncio.run(_measure(argv[1], argv[2], int(argv[3])))))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
