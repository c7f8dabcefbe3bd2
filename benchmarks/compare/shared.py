"""What the three implementations share: the functions, the scripted replies, the prompts.

Sharing them keeps the work identical on every side: the same lambdas, the same tool, the
same replies from the scripted model, the same prompt text.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any, Final

from benchmarks.compare.spec import EVENT_STREAMS
from leanchain.agents.prompts import (
    REACT_TEMPLATE,
    STRUCTURED_CHAT_HUMAN,
    STRUCTURED_CHAT_SYSTEM,
    TOOL_CALLING_SYSTEM,
    XML_TEMPLATE,
)

__all__ = [
    "AGENT_INPUT",
    "AGENT_KINDS",
    "AGENT_OUTPUT",
    "ITERATIONS",
    "OPENAI_ANSWER",
    "REACT_TEMPLATE",
    "SLEEP_SECONDS",
    "STRUCTURED_CHAT_HUMAN",
    "STRUCTURED_CHAT_SYSTEM",
    "TEXT_REPLIES",
    "TOOL_CALLING_SYSTEM",
    "TOOL_CALL_ARGS",
    "XML_TEMPLATE",
    "Cycle",
    "aidentity",
    "anap",
    "count_events",
    "double",
    "echo_text",
    "identity",
    "nap",
    "relay",
    "source",
    "triple",
]

ITERATIONS: Final = 10
"""Agent iterations per run: 9 tool calls, then the final answer."""
SLEEP_SECONDS: Final = 0.01
"""How long each batch input sleeps."""
AGENT_INPUT: Final = "What does the tool say?"
AGENT_OUTPUT: Final = "42"
"""The final answer every agent run returns."""
TOOL_CALL_ARGS: Final = {"text": "hi"}
"""The arguments of every scripted tool call."""
OPENAI_ANSWER: Final = AGENT_OUTPUT

AGENT_KINDS: Final = ("tool_calling", "react", "structured_chat", "xml")

TEXT_REPLIES: Final[dict[str, tuple[str, str]]] = {
    "react": (
        "Thought: I should ask the tool.\nAction: echo_text\nAction Input: hi",
        f"Thought: I know the answer.\nFinal Answer: {AGENT_OUTPUT}",
    ),
    "structured_chat": (
        'Thought: I should ask the tool.\nAction:\n```\n{"action": "echo_text", '
        '"action_input": {"text": "hi"}}\n```',
        f'Thought: I know the answer.\nAction:\n```\n{{"action": "Final Answer", '
        f'"action_input": "{AGENT_OUTPUT}"}}\n```',
    ),
    "xml": (
        "<tool>echo_text</tool><tool_input>hi",
        f"<final_answer>{AGENT_OUTPUT}</final_answer>",
    ),
}
"""Per text agent: (the tool-call reply, the final reply)."""


def identity(x: Any) -> Any:
    """A trivial step."""
    return x


async def aidentity(x: Any) -> Any:
    """A trivial async step."""
    return x


async def count_events(stream: Callable[[], AsyncIterator[Any]]) -> int:
    """Drain `EVENT_STREAMS` event streams made by `stream`: the number of events."""
    count = 0
    for _ in range(EVENT_STREAMS):
        async for _event in stream():
            count += 1
    return count


def double(d: dict[str, int]) -> int:
    """An assigned key: twice ``d["a"]``."""
    return d["a"] * 2


def triple(d: dict[str, int]) -> int:
    """Another assigned key: three times ``d["a"]``."""
    return d["a"] * 3


def echo_text(text: str) -> str:
    """Echo the text back."""
    return text


def nap(x: int) -> int:
    """A batch input's work: sleep 10 ms in this thread."""
    time.sleep(SLEEP_SECONDS)
    return x


async def anap(x: int) -> int:
    """A batch input's async work: sleep 10 ms on the event loop."""
    await asyncio.sleep(SLEEP_SECONDS)
    return x


def source(inputs: Iterable[int]) -> Iterator[int]:
    """The streaming source: for each input ``n``, yield ``0 .. n-1``."""
    for n in inputs:
        yield from range(n)


def relay(chunks: Iterable[Any]) -> Iterator[Any]:
    """A streaming step: passes each chunk on as it comes."""
    for chunk in chunks:  # noqa: UP028 - a streaming step does work per chunk
        yield chunk


class Cycle:
    """The scripted replies of one agent run, repeated forever: a run takes exactly
    `ITERATIONS` of them, so every run sees the same script without rebuilding anything."""

    __slots__ = ("_index", "_items")

    def __init__(self, call: Any, answer: Any) -> None:
        self._items = [call] * (ITERATIONS - 1) + [answer]
        self._index = 0

    def answer(self, request: object) -> Any:
        """The next reply to `request` (a prompt or messages, which a script ignores)."""
        item = self._items[self._index]
        self._index = (self._index + 1) % ITERATIONS
        return item
