"""Tool runs started by the executor carry the model's tool call id; observations stay plain."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from leanchain.agents import AgentExecutor, create_tool_calling_agent
from leanchain.agents.prompts import TOOL_CALLING_PROMPT
from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import ScriptedChatModel
from leanchain.tools import tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class ToolStarts(BaseCallbackHandler):
    def __init__(self) -> None:
        self.starts: list[tuple[str, Any]] = []
        self.ends: list[Any] = []

    def on_tool_start(
        self, serialized: Any, input_str: str, *, run_id: UUID, **kwargs: Any
    ) -> None:
        self.starts.append((serialized["name"], kwargs.get("tool_call_id")))

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.ends.append(output)


def _executor() -> AgentExecutor:
    model = ScriptedChatModel(
        [
            ScriptedChatModel.tool_calls(("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4})),
            "3 and 7.",
        ]
    )
    agent = create_tool_calling_agent(model, [add], TOOL_CALLING_PROMPT)
    return AgentExecutor(agent=agent, tools=[add], return_intermediate_steps=True)


def test_sync_tool_runs_carry_call_ids_and_observations_stay_plain() -> None:
    handler = ToolStarts()
    result = _executor().invoke("add twice", {"callbacks": [handler]})
    assert handler.starts == [("add", "call_1"), ("add", "call_2")]
    assert handler.ends == [3, 7]
    assert [obs for _, obs in result["intermediate_steps"]] == [3, 7]


async def test_async_tool_runs_carry_call_ids_and_observations_stay_plain() -> None:
    handler = ToolStarts()
    result = await _executor().ainvoke("add twice", {"callbacks": [handler]})
    assert sorted(handler.starts) == [("add", "call_1"), ("add", "call_2")]
    assert sorted(handler.ends) == [3, 7]
    assert [obs for _, obs in result["intermediate_steps"]] == [3, 7]


def test_run_with_as_message_false_returns_the_plain_output() -> None:
    assert add.run({"a": 2, "b": 2}, tool_call_id="call_9", as_message=False) == 4
    message = add.run({"a": 2, "b": 2}, tool_call_id="call_9")
    assert (message.content, message.tool_call_id, message.name) == ("4", "call_9", "add")
