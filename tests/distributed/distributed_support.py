"""Agents, runnables and exceptions for the RayRunner tests (no test functions here).

Ray workers import this module by name (the session fixture puts this folder on their
``PYTHONPATH``), so what the tests ship by reference resolves on the workers too.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Any

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.language_models import ChatRequest, FunctionChatModel
from leanchain.messages import AIMessage, BaseMessage
from leanchain.runnables import Runnable, RunnableConfig, RunnableLambda
from leanchain.tools import tool


class QuotaError(Exception):
    """A user exception with an attribute, to check the original class comes back whole."""

    def __init__(self, message: str, *, retry_in: int) -> None:
        super().__init__(message)
        self.retry_in = retry_in


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def question(a: int, b: int) -> dict[str, str]:
    """The agent input that asks for ``a x b``."""
    return {"input": f"{a} x {b}"}


def _answer(messages: list[BaseMessage], request: ChatRequest) -> str | AIMessage:
    """Call `multiply` on the human's ``a x b``, then answer with the observation."""
    asked = next(m.text for m in messages if m.type == "human")
    if asked == "over quota":
        raise QuotaError(f"quota exceeded for {asked!r}", retry_in=30)
    observations = [m.text for m in messages if m.type == "tool"]
    if not observations:
        a, _, b = asked.partition(" x ")
        return FunctionChatModel.tool_call("multiply", {"a": int(a), "b": int(b)})
    return f"{asked} = {observations[-1]}"


def build_agent() -> AgentExecutor:
    """A tool-calling agent over a scripted model: one tool call, then the answer."""
    model = FunctionChatModel(_answer)
    return AgentExecutor(
        agent=create_tool_calling_agent(model, [multiply], TOOL_CALLING_PROMPT),
        tools=[multiply],
    )


class CountingFactory:
    """Builds the agent and leaves one file per build, named by the worker's pid."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __call__(self) -> Runnable[Any, Any]:
        (self.folder / f"{os.getpid()}-{uuid.uuid4().hex}").touch()
        agent = build_agent()
        return agent | (lambda output: {**output, "pid": os.getpid()})

    def builds(self) -> list[int]:
        """The pid of every build so far (one entry per build)."""
        return sorted(int(p.name.split("-")[0]) for p in self.folder.iterdir())


def echo_config(value: Any, config: RunnableConfig) -> dict[str, Any]:
    """The input with what of the config reached the worker."""
    return {
        "value": value,
        "tags": config.get("tags"),
        "metadata": config.get("metadata"),
        "configurable": config.get("configurable"),
        "callbacks": config.get("callbacks"),
        "pid_is_other": os.getpid() != int(os.environ.get("DRIVER_PID", "0")),
    }


def stall_once(marker: Path) -> Runnable[int, int]:
    """Item 2 writes its worker's pid to `marker` and stalls the first time; all add 100.

    The test kills the stalled worker; Ray's retry finds the marker and goes on.
    """

    def run(x: int) -> int:
        if x == 2 and not marker.exists():
            partial = marker.with_suffix(".partial")
            partial.write_text(str(os.getpid()))
            partial.rename(marker)
            time.sleep(60)
        return x + 100

    return RunnableLambda(run)


def crowd(folder: Path, seconds: float) -> Runnable[int, int]:
    """Each item registers as running in `folder` for `seconds`; returns how many ran then."""

    def run(x: int) -> int:
        mine = folder / f"{x}-{uuid.uuid4().hex}"
        mine.touch()
        peak = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            peak = max(peak, len(list(folder.iterdir())))
            time.sleep(0.02)
        mine.unlink()
        return peak

    return RunnableLambda(run)


class FlakyError(Exception):
    """Raised by `flaky_once` the first time."""


def flaky_once(marker: Path) -> Runnable[int, int]:
    """Item 1 raises `FlakyError` the first time (leaving `marker`); every item adds 100."""

    def run(x: int) -> int:
        if x == 1 and not marker.exists():
            marker.touch()
            raise FlakyError("try again")
        return x + 100

    return RunnableLambda(run)


def always_flaky(x: int) -> int:
    """Raise `FlakyError` every time."""
    raise FlakyError(f"still failing on {x}")


def mark_start(folder: Path) -> Runnable[int, int]:
    """Each item leaves a file named after it when it starts, then takes 0.2 s."""

    def run(x: int) -> int:
        (folder / str(x)).touch()
        time.sleep(0.2)
        return x

    return RunnableLambda(run)
