"""The local OpenAI-compatible server of the provider workload, and each run's script."""

from __future__ import annotations

from typing import Any, Final

from benchmarks.compare.shared import AGENT_OUTPUT, ITERATIONS, TOOL_CALL_ARGS
from leanchain.testing import FakeProviderServer, ScriptedReply, ScriptedToolCall

__all__ = ["API_KEY", "MODEL", "TOOL_SCHEMA", "script_one_run", "start_server"]

MODEL: Final = "gpt-4o-mini"
API_KEY: Final = "sk-bench-not-a-key"
TOOL_SCHEMA: Final[dict[str, Any]] = {
    "type": "function",
    "function": {
        "name": "echo_text",
        "description": "Echo the text back.",
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
}
"""The tool as the plain loop offers it (what the libraries derive from the function)."""

_RUN: Final = (
    *(
        ScriptedReply(tool_calls=[ScriptedToolCall("echo_text", TOOL_CALL_ARGS)])
        for _ in range(ITERATIONS - 1)
    ),
    ScriptedReply(text=AGENT_OUTPUT),
)


def start_server() -> FakeProviderServer:
    """A started server; the caller stops it."""
    return FakeProviderServer().start()


def script_one_run(server: FakeProviderServer) -> None:
    """Forget the last run's records and queue one run's replies: 9 tool calls, an answer."""
    server.reset()
    server.enqueue(*_RUN, provider="openai")
