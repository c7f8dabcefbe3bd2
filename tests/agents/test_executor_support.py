"""Hand-built agents and tools for the AgentExecutor tests (no test functions here)."""

from __future__ import annotations

import threading
from typing import Any, Literal

from leanchain.agents import AgentAction, AgentExecutor, AgentFinish
from leanchain.runnables import Runnable, RunnableConfig, RunnableLambda
from leanchain.tools import BaseTool, tool

Mode = Literal["sync", "async"]
MODES: tuple[Mode, ...] = ("sync", "async")


class ScriptAgent(Runnable[dict[str, Any], Any]):
    """Plays its script, one item per planning call; records what it was given.

    An exception in the script is raised instead of returned.
    """

    __slots__ = ("configs", "lock", "script", "seen")

    def __init__(self, *script: Any) -> None:
        self.script = list(script)
        self.seen: list[dict[str, Any]] = []
        self.configs: list[RunnableConfig | None] = []
        self.lock = threading.Lock()

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        with self.lock:
            self.seen.append(input)
            self.configs.append(config)
        return self._call_with_config(self._play, input, config)

    def _play(self, input: dict[str, Any], config: RunnableConfig, run: Any) -> Any:
        with self.lock:
            if not self.script:
                raise AssertionError("the agent's script ran out")
            item = self.script.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        return self.invoke(input, config)

    @property
    def steps_seen(self) -> list[int]:
        """How many intermediate steps the agent saw at each planning call."""
        return [len(s["intermediate_steps"]) for s in self.seen]


class GeneratingAgent(ScriptAgent):
    """A script agent that can write a final answer for early_stopping_method="generate"."""

    __slots__ = ("final_inputs", "reply")

    def __init__(self, reply: Any, *script: Any) -> None:
        super().__init__(*script)
        self.reply = reply
        self.final_inputs: list[dict[str, Any]] = []

    def build_final_answer_chain(self) -> Runnable[dict[str, Any], Any]:
        def answer(inputs: dict[str, Any]) -> Any:
            self.final_inputs.append(inputs)
            return self.reply

        return RunnableLambda(answer)


def act(tool_name: str, tool_input: str | dict[str, Any], log: str = "") -> AgentAction:
    """An action with a default log."""
    return AgentAction(tool_name, tool_input, log or f"call {tool_name}")


def finish(output: Any, log: str = "FIN", **extra: Any) -> AgentFinish:
    """A final answer."""
    return AgentFinish({"output": output, **extra}, log)


@tool
def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo:{text}"


@tool(return_direct=True)
def direct(text: str) -> str:
    """Answer directly."""
    return f"direct:{text}"


@tool(return_direct=True)
def direct2(text: str) -> str:
    """Answer directly, too."""
    return f"direct2:{text}"


def tools() -> list[BaseTool]:
    """The usual tool set."""
    return [echo, direct, direct2]


async def run(
    executor: AgentExecutor,
    input: dict[str, Any] | str,
    mode: Mode,
    config: RunnableConfig | None = None,
) -> dict[str, Any]:
    """`invoke` or `ainvoke`, by mode."""
    if mode == "sync":
        return executor.invoke(input, config)
    return await executor.ainvoke(input, config)


async def chunks(
    executor: AgentExecutor,
    input: dict[str, Any] | str,
    mode: Mode,
    config: RunnableConfig | None = None,
) -> list[dict[str, Any]]:
    """Every chunk of `stream` or `astream`, by mode."""
    if mode == "sync":
        return list(executor.stream(input, config))
    return [c async for c in executor.astream(input, config)]
