"""Replaying a recorded agent run from a cassette vs running it against the live fake server.

Workload (issue 18): a 10-iteration tool-calling agent run — 9 tool calls, then the final
answer — over ``ChatOpenAI`` (the real SDK) and ``FakeProviderServer`` (real HTTP on
127.0.0.1, keep-alive). The replayed run reads the cassette file, matches every request by its
key and answers from it with the callbacks' model runs intact; no HTTP, no SDK. Both sides are
timed in alternating rounds (`paired_times`); the ratio is replay / live, from the same run.
Rows: ``invoke`` (no callbacks: plain JSON answers) and ``stream`` with a token handler (the
model streams over SSE; the replay plays the recorded chunks).

Goal: a replayed run takes at most half the time of the live one (it is a test's stand-in for
the network, so it must not cost more than what it replaces).

Run: ``.venv/bin/python -m benchmarks.bench_cassette`` (or ``make bench``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._util import Row, paired_times, print_table, row, scaled
from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import BaseCallbackHandler
from leanchain.providers import ChatOpenAI
from leanchain.testing import FakeProviderServer, ScriptedReply, ScriptedToolCall, cassette
from leanchain.tools import tool

ITERATIONS = 10
GOAL_RATIO = 0.5


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


class Tokens(BaseCallbackHandler):
    """Asks for the model's tokens, so the agent streams its model."""

    wants_tokens = True


def replies() -> list[ScriptedReply]:
    """Nine tool calls, then the answer."""
    calls = [
        ScriptedReply(tool_calls=[ScriptedToolCall("lookup", {"key": f"k{i}"}, id=f"call_{i}")])
        for i in range(ITERATIONS - 1)
    ]
    return [*calls, ScriptedReply(text="All nine keys looked up.")]


def measure(server: FakeProviderServer, folder: Path, name: str, config: Any) -> Row:
    model = ChatOpenAI(
        model="gpt-bench", base_url=server.openai_base_url, api_key="sk-bench", max_retries=0
    )
    agent = create_tool_calling_agent(model, [lookup], TOOL_CALLING_PROMPT)
    executor = AgentExecutor(agent=agent, tools=[lookup], max_iterations=ITERATIONS + 1)
    question = {"input": "Look up k0 to k8."}
    path = folder / f"{name}.json"

    def live() -> None:
        server.enqueue(*replies())
        executor.invoke(question, config)

    def replay() -> None:
        with cassette(path, mode="replay"):
            executor.invoke(question, config)

    server.enqueue(*replies())
    with cassette(path, mode="record"):
        result = executor.invoke(question, config)
    assert result["output"] == "All nine keys looked up.", result
    live_s, replay_s = paired_times(live, replay, number=scaled(5, 1), rounds=scaled(7, 2))
    model.close()
    return row(
        f"{name}, 10-iteration agent run, replayed (baseline: live fake server)",
        replay_s * 1e3,
        live_s * 1e3,
        "ms",
        ratio_at_most=GOAL_RATIO,
    )


def main() -> None:
    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
    with tempfile.TemporaryDirectory() as folder, FakeProviderServer() as server:
        rows = [
            measure(server, Path(folder), "invoke", None),
            measure(server, Path(folder), "stream", {"callbacks": [Tokens()]}),
        ]
    print_table("cassette replay vs live (ChatOpenAI over FakeProviderServer)", rows)


if __name__ == "__main__":
    main()
